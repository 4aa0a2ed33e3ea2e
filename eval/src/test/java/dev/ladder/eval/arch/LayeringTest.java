package dev.ladder.eval.arch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.strategy.Pipeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layering the build keeps (docs/design.md, DESIGN.md): modules depend one way (the CLI on everything; eval on the scorer, pipeline,
 * adapters, sql and inference; the scorer on sql alone, so no engine is below it; pipeline on sql and inference;
 * adapters on inference; sql and inference on common only), the
 * packages inside a module follow the order docs/design.md draws (read from the page itself), no pipeline (a package
 * registering a {@link Pipeline}) uses another, packages form no cycle, and main code names types by import.
 * Dependencies are read from main sources the way scripts would read them: imports, static imports and inline
 * fully-qualified names, comments left out.
 */
class LayeringTest {

    /** Which modules each module may use (its own implied). */
    private static final Map<String, Set<String>> MODULE_MAY_USE = Map.of(
            "common", Set.of(),
            "inference", Set.of("common"),
            "sql", Set.of("common"),
            "adapters", Set.of("inference", "common"),
            "pipeline", Set.of("inference", "sql", "common"),
            "scorer", Set.of("sql", "common"),
            "eval", Set.of("inference", "sql", "adapters", "pipeline", "scorer", "common"),
            "cli", Set.of("inference", "sql", "adapters", "pipeline", "scorer", "eval", "common"));

    /** The scorer is what other projects depend on (as on test-suite-sql-eval): no engine below it in the build. */
    @Test
    void theScorerHasNoEngineBelowIt() throws IOException {
        Set<String> below = new TreeSet<>();
        List<String> todo = new ArrayList<>(List.of("scorer"));
        while (!todo.isEmpty()) {
            String pom = Files.readString(ROOT.resolve(todo.remove(0)).resolve("pom.xml"), StandardCharsets.UTF_8);
            Matcher m = LADDER_DEPENDENCY.matcher(pom);
            while (m.find()) {
                if (m.group(2) != null) continue; // a test-scoped dependency is not below the scorer's users
                if (below.add(m.group(1))) todo.add(m.group(1));
            }
            Matcher engine = ENGINE_LIBRARY.matcher(pom);
            if (engine.find()) throw new AssertionError("an engine library in the scorer's build: " + engine.group(1));
        }
        assertThat(below).containsExactlyInAnyOrder("sql", "common");
    }

    private static final Pattern LADDER_DEPENDENCY = Pattern.compile(
            "<dependency><groupId>dev\\.ladder</groupId><artifactId>ladder-([a-z]+)</artifactId>(?:<type>[^<]*</type>)?(<scope>test</scope>)?</dependency>");
    private static final Pattern ENGINE_LIBRARY = Pattern.compile("<groupId>(ai\\.djl[^<]*|com\\.microsoft\\.onnxruntime)</groupId>");

    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.ladder(?:\\.[a-z_][a-z0-9_]*)+)\\.[A-Z]");
    private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);

    /** package -> packages it uses; and package -> the module that holds it. */
    private record Graph(Map<String, Set<String>> uses, Map<String, String> moduleOf) {}

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static Graph read() {
        return read(ROOT, MODULE_MAY_USE.keySet());
    }

    /** The graph of these modules' main sources under {@code root} (a checkout, or a source set a test makes). */
    private static Graph read(Path root, Collection<String> modules) {
        Map<String, Set<String>> uses = new TreeMap<>();
        Map<String, String> moduleOf = new HashMap<>();
        for (String module : modules) {
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

    /** A package of docs/design.md's drawing: the module whose line draws it, its full name, its layer (0 lowest). */
    record Drawn(String module, String pkg, int layer) {}

    /** The sentence that introduces the drawing; the code block after it is the drawing. */
    private static final String ORDER_CUE = "Inside a module the packages are layered too";
    private static final Pattern PACKAGE_NAME = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*");

    /**
     * Reads the package order docs/design.md draws: a line a module ({@code pipeline   kit, oracle -> judge -> ...}),
     * lowest layer first; {@code ->} separates layers, a comma the packages of one layer (which do not use each
     * other); parentheses hold words for the reader; an indented line continues the one above. A name is relative to
     * {@code dev.ladder.<module>} unless it starts with the module's own name ({@code sql.read}). A drawn package
     * stands for its sub-packages too unless they are drawn themselves.
     */
    static List<Drawn> drawnOrder(String designMd) {
        int cue = designMd.indexOf(ORDER_CUE);
        int open = cue < 0 ? -1 : designMd.indexOf("```", cue);
        if (open < 0) {
            throw new AssertionError("docs/design.md: no package order (a code block after '" + ORDER_CUE + "')");
        }
        int start = designMd.indexOf('\n', open) + 1;
        String block = designMd.substring(start, designMd.indexOf("```", start));
        List<String> lines = new ArrayList<>();
        for (String line : block.split("\n")) {
            if (line.isBlank()) continue;
            if (Character.isWhitespace(line.charAt(0)) && !lines.isEmpty()) {
                lines.set(lines.size() - 1, lines.get(lines.size() - 1) + " " + line.strip());
            } else {
                lines.add(line.strip());
            }
        }
        List<Drawn> out = new ArrayList<>();
        for (String line : lines) {
            String[] head = line.replaceAll("\\([^)]*\\)", " ").strip().split("\\s+", 2);
            String module = head[0];
            String[] layers = head.length < 2 ? new String[0] : head[1].split("->");
            for (int layer = 0; layer < layers.length; layer++) {
                for (String name : layers[layer].split(",")) {
                    String n = name.strip();
                    if (!PACKAGE_NAME.matcher(n).matches()) {
                        throw new AssertionError("docs/design.md, package order '" + line + "': '" + n
                                + "' is not a package name");
                    }
                    boolean full = n.equals(module) || n.startsWith(module + ".");
                    out.add(new Drawn(module, "dev.ladder." + (full ? n : module + "." + n), layer));
                }
            }
        }
        if (out.isEmpty()) throw new AssertionError("docs/design.md: the package order draws no package");
        return out;
    }

    /** The drawn package that stands for {@code pkg}: itself, else its nearest drawn parent; null when none. */
    private static Drawn drawnAs(String pkg, List<Drawn> order) {
        Drawn best = null;
        for (Drawn d : order) {
            boolean covers = pkg.equals(d.pkg()) || pkg.startsWith(d.pkg() + ".");
            if (covers && (best == null || d.pkg().length() > best.pkg().length())) best = d;
        }
        return best;
    }

    /**
     * Where {@code g} goes against the drawing: a package of a drawn module that the drawing leaves out, or a use of a
     * package of the same module drawn in the same layer or above. Uses across modules are the module order's.
     */
    static List<String> againstTheDrawnOrder(Graph g, List<Drawn> order) {
        Set<String> drawnModules = order.stream().map(Drawn::module).collect(Collectors.toSet());
        List<String> wrong = new ArrayList<>();
        g.uses().forEach((pkg, targets) -> {
            Drawn from = drawnAs(pkg, order);
            if (from == null) {
                if (drawnModules.contains(g.moduleOf().get(pkg))) wrong.add(pkg + ": not in the drawing; draw it");
                return;
            }
            for (String t : targets) {
                Drawn to = drawnAs(t, order);
                if (to == null || to.equals(from) || !to.module().equals(from.module()) || to.layer() < from.layer()) {
                    continue;
                }
                wrong.add(pkg + " -> " + t + (to.layer() == from.layer() ? " (the same layer)" : " (a layer above)"));
            }
        });
        return wrong;
    }

    /** Where a pipeline's registrations are: the {@link Pipeline} service file of a module's main resources. */
    private static final String PIPELINE_SERVICES = "src/main/resources/META-INF/services/" + Pipeline.class.getName();

    /** The packages of the pipelines these modules register (each class named in a service file, its package). */
    static Set<String> pipelinePackages(Path root, Collection<String> modules) {
        Set<String> out = new TreeSet<>();
        for (String module : modules) {
            Path services = root.resolve(module).resolve(PIPELINE_SERVICES);
            if (!Files.exists(services)) continue;
            try {
                for (String line : Files.readAllLines(services, StandardCharsets.UTF_8)) {
                    String name = line.replaceAll("#.*", "").strip();
                    if (!name.isEmpty()) out.add(name.substring(0, name.lastIndexOf('.')));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** Uses of one pipeline's package (or a sub-package of it) by another's. */
    static List<String> pipelinesUsingPipelines(Graph g, Set<String> pipelines) {
        List<String> wrong = new ArrayList<>();
        g.uses().forEach((pkg, targets) -> {
            String from = pipelineOf(pkg, pipelines);
            if (from == null) return;
            for (String t : targets) {
                String to = pipelineOf(t, pipelines);
                if (to != null && !to.equals(from)) wrong.add(pkg + " -> " + t);
            }
        });
        return wrong;
    }

    private static String pipelineOf(String pkg, Set<String> pipelines) {
        for (String p : pipelines) if (pkg.equals(p) || pkg.startsWith(p + ".")) return p;
        return null;
    }

    private static List<Drawn> drawnOrder() throws IOException {
        return drawnOrder(Files.readString(ROOT.resolve("docs/design.md"), StandardCharsets.UTF_8));
    }

    @Test
    void packagesFollowTheOrderDocsDesignDraws() throws IOException {
        List<Drawn> order = drawnOrder();
        assertThat(order).extracting(Drawn::module).contains("sql", "pipeline", "scorer", "eval", "cli");
        assertThat(againstTheDrawnOrder(read(), order))
                .as("dependencies against the package order docs/design.md draws (lowest first)").isEmpty();
    }

    @Test
    void noPipelineUsesAnother() {
        Set<String> pipelines = pipelinePackages(ROOT, MODULE_MAY_USE.keySet());
        assertThat(pipelines).contains("dev.ladder.pipeline.agent", "dev.ladder.pipeline.gsr");
        assertThat(pipelinesUsingPipelines(read(), pipelines))
                .as("a pipeline using another's package (what they share belongs in dev.ladder.pipeline.kit)")
                .isEmpty();
    }

    /** The two checks fail on a pipeline that uses another, either way round, and pass a clean source set. */
    @Test
    void theChecksRejectAPipelineUsingAnotherEitherWay(@TempDir Path dir) throws IOException {
        List<Drawn> order = drawnOrder();
        String kit = "dev.ladder.pipeline.kit.Names";
        Map<String, String[]> cases = new TreeMap<>(Map.of(
                "clean", new String[] {kit, kit},
                "agent-uses-gsr", new String[] {"dev.ladder.pipeline.gsr.GsrPipeline", kit},
                "gsr-uses-agent", new String[] {kit, "dev.ladder.pipeline.agent.LadderPipeline"}));
        for (Map.Entry<String, String[]> c : cases.entrySet()) {
            Path root = sourceSet(dir.resolve(c.getKey()), c.getValue()[0], c.getValue()[1]);
            Graph g = read(root, List.of("pipeline"));
            Set<String> pipelines = pipelinePackages(root, List.of("pipeline"));
            assertThat(pipelines).containsExactly("dev.ladder.pipeline.agent", "dev.ladder.pipeline.gsr");
            List<String> crossings = pipelinesUsingPipelines(g, pipelines);
            List<String> againstOrder = againstTheDrawnOrder(g, order);
            switch (c.getKey()) {
                case "clean" -> {
                    assertThat(crossings).as(c.getKey()).isEmpty();
                    assertThat(againstOrder).as(c.getKey()).isEmpty();
                }
                case "agent-uses-gsr" -> {
                    assertThat(crossings).containsExactly("dev.ladder.pipeline.agent -> dev.ladder.pipeline.gsr");
                    assertThat(againstOrder).containsExactly(
                            "dev.ladder.pipeline.agent -> dev.ladder.pipeline.gsr (the same layer)");
                }
                default -> {
                    assertThat(crossings).containsExactly("dev.ladder.pipeline.gsr -> dev.ladder.pipeline.agent");
                    assertThat(againstOrder).containsExactly(
                            "dev.ladder.pipeline.gsr -> dev.ladder.pipeline.agent (the same layer)");
                }
            }
        }
    }

    @Test
    void theDrawingRejectsAUseUpwardAndAPackageLeftOut() {
        List<Drawn> order = drawnOrder("Inside a module the packages are layered too:\n\n```\n"
                + "pipeline   kit, prompt -> strategy (the API,\n           Work) -> agent, gsr\n```\n");
        assertThat(order).containsExactly(
                new Drawn("pipeline", "dev.ladder.pipeline.kit", 0),
                new Drawn("pipeline", "dev.ladder.pipeline.prompt", 0),
                new Drawn("pipeline", "dev.ladder.pipeline.strategy", 1),
                new Drawn("pipeline", "dev.ladder.pipeline.agent", 2),
                new Drawn("pipeline", "dev.ladder.pipeline.gsr", 2));
        Graph g = new Graph(
                Map.of("dev.ladder.pipeline.kit", Set.of("dev.ladder.pipeline.strategy"),
                        "dev.ladder.pipeline.strategy", Set.of("dev.ladder.pipeline.kit", "dev.ladder.sql.read"),
                        "dev.ladder.pipeline.agent.words", Set.of("dev.ladder.pipeline.agent"),
                        "dev.ladder.pipeline.judge", Set.of()),
                Map.of("dev.ladder.pipeline.kit", "pipeline", "dev.ladder.pipeline.strategy", "pipeline",
                        "dev.ladder.pipeline.agent.words", "pipeline", "dev.ladder.pipeline.judge", "pipeline"));
        assertThat(againstTheDrawnOrder(g, order)).containsExactlyInAnyOrder(
                "dev.ladder.pipeline.kit -> dev.ladder.pipeline.strategy (a layer above)",
                "dev.ladder.pipeline.judge: not in the drawing; draw it");
    }

    /**
     * A pipeline module's main sources: the API, the kit, two registered pipelines ({@code agent}, {@code gsr}), each
     * importing the API and the one type given.
     */
    private static Path sourceSet(Path root, String agentImports, String gsrImports) throws IOException {
        Path java = root.resolve("pipeline/src/main/java/dev/ladder/pipeline");
        write(java.resolve("strategy/Work.java"),
                "package dev.ladder.pipeline.strategy;\n\npublic final class Work {}\n");
        write(java.resolve("kit/Names.java"), "package dev.ladder.pipeline.kit;\n\npublic final class Names {}\n");
        write(java.resolve("agent/LadderPipeline.java"), "package dev.ladder.pipeline.agent;\n\n"
                + "import dev.ladder.pipeline.strategy.Work;\nimport " + agentImports + ";\n\n"
                + "public final class LadderPipeline {}\n");
        write(java.resolve("gsr/GsrPipeline.java"), "package dev.ladder.pipeline.gsr;\n\n"
                + "import dev.ladder.pipeline.strategy.Work;\nimport " + gsrImports + ";\n\n"
                + "public final class GsrPipeline {}\n");
        write(root.resolve("pipeline").resolve(PIPELINE_SERVICES),
                "# two pipelines\ndev.ladder.pipeline.agent.LadderPipeline\ndev.ladder.pipeline.gsr.GsrPipeline\n");
        return root;
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
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
