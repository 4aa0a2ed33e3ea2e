package dev.ladder.eval.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layering the build keeps (docs/design.md, DESIGN.md): modules depend one way (eval on pipeline, adapters, sql
 * and inference; pipeline on sql and inference; sql and adapters on inference; inference on none of them), and
 * packages form no cycle, and main code names types by import. Dependencies are read from main sources the way
 * scripts would read them: imports, static imports and inline fully-qualified names, comments left out.
 */
class LayeringTest {

    /** Which modules each module may use (its own implied). */
    private static final Map<String, Set<String>> MODULE_MAY_USE = Map.of(
            "inference", Set.of(),
            "sql", Set.of("inference"),
            "adapters", Set.of("inference"),
            "pipeline", Set.of("inference", "sql"),
            "eval", Set.of("inference", "sql", "adapters", "pipeline"));

    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.ladder(?:\\.[a-z_][a-z0-9_]*)+)\\.[A-Z]");
    private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);

    /** package -> packages it uses; and package -> the module that holds it. */
    private record Graph(Map<String, Set<String>> uses, Map<String, String> moduleOf) {}

    private static Graph read() {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Map<String, Set<String>> uses = new TreeMap<>();
        Map<String, String> moduleOf = new HashMap<>();
        for (String module : MODULE_MAY_USE.keySet()) {
            Path src = root.resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    Matcher pm = PACKAGE.matcher(text);
                    if (!pm.find()) continue;
                    String pkg = pm.group(1);
                    moduleOf.put(pkg, module);
                    Set<String> out = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                    Matcher rm = REFERENCE.matcher(COMMENT.matcher(text).replaceAll(""));
                    while (rm.find()) if (!rm.group(1).equals(pkg)) out.add(rm.group(1));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new Graph(uses, moduleOf);
    }

    @Test
    void modulesDependOneWay() {
        Graph g = read();
        List<String> wrong = new ArrayList<>();
        g.uses().forEach((pkg, targets) -> {
            String from = g.moduleOf().get(pkg);
            for (String t : targets) {
                String to = g.moduleOf().get(t);
                if (to != null && !to.equals(from) && !MODULE_MAY_USE.get(from).contains(to)) {
                    wrong.add(pkg + " (" + from + ") -> " + t + " (" + to + ")");
                }
            }
        });
        assertThat(wrong).as("dependencies against the module order").isEmpty();
    }

    @Test
    void noPackageCycle() {
        Graph g = read();
        List<Set<String>> cycles = new ArrayList<>();
        for (Set<String> c : stronglyConnected(g.uses())) {
            if (c.size() < 2) continue;
            Set<String> shortNames = new TreeSet<>();
            for (String p : c) shortNames.add(p.replace("dev.ladder.", ""));
            cycles.add(shortNames);
        }
        assertThat(cycles).as("package cycles (each package of a cycle uses every other through it; see docs/design.md)")
                .isEmpty();
    }

    /** Comments, string and character literals and text blocks, in one pass so that each hides the others. */
    private static final Pattern NOT_CODE = Pattern.compile(
            "\"\"\"[\\s\\S]*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'|//[^\\n]*|/\\*[\\s\\S]*?\\*/");
    /** A qualified type name in code: lower-case package parts, then a capitalised simple name. */
    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w.])((?:java|javax|jdk|sun|dev|com|org|net|ai|tech|picocli|info|me|ch|io)(?:\\.[a-z_][\\w]*)+)\\.([A-Z]\\w*)");
    private static final Pattern IMPORT = Pattern.compile("(?m)^\\s*import\\s+(?:static\\s+)?([\\w.]+)\\.(\\w+)\\s*;");
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|record|interface|enum)\\s+([A-Z]\\w*)");

    /**
     * Main code names types by import, so that a file's imports list every dependency it has. A fully-qualified
     * name is allowed only where Java needs one: the simple name is already taken in the file (another import, a
     * type the file declares, a class of the same package).
     */
    @Test
    void mainCodeNamesTypesByImport() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> inline = new ArrayList<>();
        for (String module : MODULE_MAY_USE.keySet()) {
            Path src = root.resolve(module).resolve("src/main/java");
            List<Path> files;
            try (Stream<Path> walk = Files.walk(src)) {
                files = walk.filter(p -> p.toString().endsWith(".java")).toList();
            }
            for (Path f : files) {
                String text = Files.readString(f, StandardCharsets.UTF_8);
                Map<String, String> imported = new HashMap<>();
                Matcher im = IMPORT.matcher(text);
                while (im.find()) imported.put(im.group(2), im.group(1) + "." + im.group(2));
                String code = NOT_CODE.matcher(text).replaceAll(" ");
                Set<String> taken = new java.util.HashSet<>();
                Matcher dm = DECLARED.matcher(code);
                while (dm.find()) taken.add(dm.group(1));
                try (Stream<Path> siblings = Files.list(f.getParent())) {
                    siblings.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".java"))
                            .forEach(n -> taken.add(n.substring(0, n.length() - ".java".length())));
                }
                for (String line : code.split("\\n")) {
                    if (line.strip().startsWith("import ") || line.strip().startsWith("package ")) continue;
                    Matcher q = QUALIFIED.matcher(line);
                    while (q.find()) {
                        String name = q.group(2);
                        String full = q.group(1) + "." + name;
                        boolean needed = (imported.containsKey(name) && !imported.get(name).equals(full))
                                || (taken.contains(name) && !full.equals(packageOf(text) + "." + name));
                        if (!needed) inline.add(root.relativize(f) + ": " + full);
                    }
                }
            }
        }
        assertThat(inline).as("inline fully-qualified names in main code: import them").isEmpty();
    }

    /** An engine library's types: only the inference (and adapters) module may hold them. */
    private static final Pattern ENGINE_TYPE = Pattern.compile("\\bai\\.(djl|onnxruntime)\\.");

    /** eval reaches the engines through inference's facade (Placement, TorchRuntime, the loaders), never their types. */
    @Test
    void evalNeverNamesAnEngineType() throws IOException {
        Path src = Path.of("..").toAbsolutePath().normalize().resolve("eval/src/main/java");
        List<String> found = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(src)) {
            for (Path f : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                String code = NOT_CODE.matcher(Files.readString(f, StandardCharsets.UTF_8)).replaceAll(" ");
                Matcher m = ENGINE_TYPE.matcher(code);
                if (m.find()) found.add(src.relativize(f) + ": ai." + m.group(1));
            }
        }
        assertThat(found).as("eval code naming an engine library's types").isEmpty();
    }

    private static String packageOf(String text) {
        Matcher m = PACKAGE.matcher(text);
        return m.find() ? m.group(1) : "";
    }

    /** Tarjan's strongly connected components, iteratively (no recursion limit to mind). */
    private static List<Set<String>> stronglyConnected(Map<String, Set<String>> uses) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new java.util.HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String start : uses.keySet()) {
            if (index.containsKey(start)) continue;
            Deque<Object[]> work = new ArrayDeque<>();   // {node, iterator over its targets}
            work.push(new Object[] {start, uses.getOrDefault(start, Set.of()).iterator()});
            index.put(start, next[0]);
            low.put(start, next[0]++);
            stack.push(start);
            onStack.add(start);
            while (!work.isEmpty()) {
                Object[] frame = work.peek();
                String v = (String) frame[0];
                @SuppressWarnings("unchecked")
                java.util.Iterator<String> it = (java.util.Iterator<String>) frame[1];
                if (it.hasNext()) {
                    String w = it.next();
                    if (!uses.containsKey(w)) continue;   // a package outside main sources
                    if (!index.containsKey(w)) {
                        index.put(w, next[0]);
                        low.put(w, next[0]++);
                        stack.push(w);
                        onStack.add(w);
                        work.push(new Object[] {w, uses.getOrDefault(w, Set.of()).iterator()});
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                } else {
                    work.pop();
                    if (!work.isEmpty()) {
                        String parent = (String) work.peek()[0];
                        low.put(parent, Math.min(low.get(parent), low.get(v)));
                    }
                    if (low.get(v).equals(index.get(v))) {
                        Set<String> c = new TreeSet<>();
                        String w;
                        do {
                            w = stack.pop();
                            onStack.remove(w);
                            c.add(w);
                        } while (!w.equals(v));
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }
}
