package dev.ladder.eval.check;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.scorer.io.TextFiles;
import dev.ladder.pipeline.kit.QuestionWords;
import dev.ladder.pipeline.kit.QuestionWords.Word;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The research-hygiene check (docs/agent.md, "Generality and leak check"). What the agent knows must come from the
 * development set (ClassicModels train plus any benchmark given), general English or an independent benchmark, never
 * from the test split. An entry of the agent's word lists, or a phrase quoted in its code, tests or docs, leaks when
 * it occurs in some test question but in no development question, unless the provenance list justifies it.
 *
 * <p>Matching follows the rules' own reading ({@link QuestionWords#words}): a word-list entry occurs in a question
 * when a word's lower-case or singular form equals it; a phrase when its singular forms occur as a run of the
 * question's.
 */
public final class LeakCheck {

    /** The agent's code, tests and docs, relative to a checkout (its question reading lives in the shared kit). */
    public static final List<String> SOURCES = List.of(
            "pipeline/src/main/java/dev/ladder/pipeline/agent",
            "pipeline/src/main/java/dev/ladder/pipeline/kit",
            "pipeline/src/main/java/dev/ladder/pipeline/strategy",
            "pipeline/src/test/java/dev/ladder/pipeline/agent",
            "pipeline/src/test/java/dev/ladder/pipeline/kit",
            "pipeline/src/test/java/dev/ladder/pipeline/strategy",
            "docs/agent.md");

    /** Words in a run that a longer phrase must not share with a test question alone. */
    public static final int RUN = 5;

    /** Entries that occur in test questions and in no ClassicModels train question, with their justification. */
    public static final String PROVENANCE = "dev/ladder/pipeline/kit/lexicon-provenance.txt";

    /** Something the agent knows, as written, and where: a word-list entry (one word) or a quoted phrase. */
    public record Entry(String text, String where, boolean word) {}

    /**
     * Why a test-only entry may stay: {@code source} is a development item's id ({@code train_spider-17}) or
     * {@code english: <reason>}.
     */
    public record Provenance(String entry, String source) {
        boolean english() {
            return source.startsWith("english:");
        }
    }

    /**
     * One entry's finding (entries written alike are one row).
     *
     * @param places        how many places write it
     * @param test          test questions it occurs in
     * @param dev           development questions it occurs in
     * @param justification for a test-only entry: the provenance that allows it, else empty
     * @param leaks         test-only and not justified
     */
    public record Row(Entry entry, int places, int test, int dev, String justification, boolean leaks) {
        public boolean testOnly() {
            return test > 0 && dev == 0;
        }
    }

    /**
     * @param rows     every entry, in reading order
     * @param problems provenance lines that do not hold against the loaded development set
     */
    public record Report(List<Row> rows, List<String> problems) {
        public List<Row> leaks() {
            return rows.stream().filter(Row::leaks).toList();
        }

        public boolean clean() {
            return problems.isEmpty() && leaks().isEmpty();
        }
    }

    private LeakCheck() {}

    /** The development questions a leak check counts, and how they read in one line. */
    public record DevelopmentSet(List<BenchmarkItem> items, String description) {}

    /**
     * ClassicModels' train split plus every split of each further benchmark. A bundled benchmark is refused: its
     * train split is in the set already, and its test split must not be.
     */
    public static DevelopmentSet developmentSet(Benchmark classicModels, List<String> more) {
        List<BenchmarkItem> items = new ArrayList<>(classicModels.split("train"));
        StringBuilder description = new StringBuilder("classicmodels train (" + items.size() + ")");
        for (String d : more) {
            if (Benchmarks.BUNDLED.containsKey(d.strip().toLowerCase(Locale.ROOT))) {
                throw new UserError("--dev " + d + ": its train split is in the development set already, its test split must not be");
            }
            for (Map.Entry<String, List<BenchmarkItem>> split : Benchmarks.load(d).splits().entrySet()) {
                items.addAll(split.getValue());
                description.append(" + ").append(split.getKey()).append(" (").append(split.getValue().size()).append(')');
            }
        }
        return new DevelopmentSet(items, description.toString());
    }

    /**
     * @param dev        the development questions; a provenance id is verified when items of its kind (the id up to
     *                   its last '-': {@code train_spider}, {@code cm-train}) are among them, else trusted
     * @param provenance the justifications of test-only entries
     */
    public static Report check(List<Entry> entries, List<BenchmarkItem> test, List<BenchmarkItem> dev,
                               List<Provenance> provenance) {
        Questions testQ = new Questions(test);
        Questions devQ = new Questions(dev);
        Map<String, BenchmarkItem> devById = new HashMap<>();
        Set<String> kinds = new HashSet<>();
        for (BenchmarkItem item : dev) {
            devById.putIfAbsent(item.id(), item);
            kinds.add(kind(item.id()));
        }

        Map<String, String> justified = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Provenance p : provenance) {
            String why = p.english() ? "general English (" + p.source().substring("english:".length()).strip() + ")"
                    : verify(p, devById, kinds, problems);
            justified.putIfAbsent(key(p.entry(), true), why);
        }

        Map<String, Integer> index = new LinkedHashMap<>();
        List<Entry> firsts = new ArrayList<>();
        List<Integer> places = new ArrayList<>();
        for (Entry e : withRuns(entries)) {
            String k = key(e.text(), e.word());
            if (k.isEmpty()) continue;
            k = (e.word() ? "w " : "p ") + k;   // the two match differently
            Integer at = index.get(k);
            if (at == null) {
                index.put(k, firsts.size());
                firsts.add(e);
                places.add(1);
            } else {
                places.set(at, places.get(at) + 1);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < firsts.size(); i++) {
            Entry e = firsts.get(i);
            int t = testQ.count(e);
            int d = t == 0 ? 0 : devQ.count(e);   // only test occurrences can leak
            String why = t > 0 && d == 0 ? justified.getOrDefault(key(e.text(), e.word()), "") : "";
            rows.add(new Row(e, places.get(i), t, d, why, t > 0 && d == 0 && why.isEmpty()));
        }
        return new Report(rows, problems);
    }

    /**
     * Phrases and, for a longer phrase, each run of {@link #RUN} of its words: a quote that changed a word or two of
     * a test question still shares a run with it.
     */
    private static List<Entry> withRuns(List<Entry> entries) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            out.add(e);
            if (e.word()) continue;
            List<String> w = QuestionWords.words(e.text()).stream().map(Word::norm).toList();
            for (int i = 0; w.size() > RUN && i + RUN <= w.size(); i++) {
                out.add(new Entry(String.join(" ", w.subList(i, i + RUN)), e.where(), false));
            }
        }
        return out;
    }

    private static String verify(Provenance p, Map<String, BenchmarkItem> devById, Set<String> kinds,
                                 List<String> problems) {
        BenchmarkItem item = devById.get(p.source());
        String kind = kind(p.source());
        if (item == null) {
            if (!kinds.contains(kind)) return p.source() + " (trusted: no " + kind + " loaded)";
            problems.add("provenance of '" + p.entry() + "': no item " + p.source() + " among the " + kind + " items");
            return "";
        }
        if (new Questions(List.of(item)).count(new Entry(p.entry(), "", true)) == 0) {
            problems.add("provenance of '" + p.entry() + "': item " + p.source() + " does not contain it");
            return "";
        }
        return p.source() + " (checked)";
    }

    private static String kind(String id) {
        int dash = id.lastIndexOf('-');
        return dash > 0 ? id.substring(0, dash) : id;
    }

    /** How an entry is compared: a word as written (lower case), a phrase as its singular forms. */
    private static String key(String text, boolean word) {
        if (word) return text.strip().toLowerCase(Locale.ROOT);
        return String.join(" ", QuestionWords.words(text).stream().map(Word::norm).toList());
    }

    /** Questions indexed by word, so that each entry is compared with the few questions that can contain it. */
    private static final class Questions {
        private final List<List<Word>> words = new ArrayList<>();
        private final Map<String, Set<Integer>> byForm = new HashMap<>();

        Questions(List<BenchmarkItem> items) {
            for (BenchmarkItem item : items) {
                List<Word> w = QuestionWords.words(item.question());
                int q = words.size();
                words.add(w);
                for (Word x : w) {
                    byForm.computeIfAbsent(x.lower(), k -> new TreeSet<>()).add(q);
                    byForm.computeIfAbsent(x.norm(), k -> new TreeSet<>()).add(q);
                }
            }
        }

        /** How many questions contain the entry. */
        int count(Entry e) {
            if (e.word()) return byForm.getOrDefault(e.text().strip().toLowerCase(Locale.ROOT), Set.of()).size();
            List<String> phrase = QuestionWords.words(e.text()).stream().map(Word::norm).toList();
            if (phrase.isEmpty()) return 0;
            int n = 0;
            for (int q : byForm.getOrDefault(phrase.get(0), Set.of())) {
                if (containsRun(words.get(q), phrase)) n++;
            }
            return n;
        }

        private static boolean containsRun(List<Word> question, List<String> phrase) {
            outer:
            for (int i = 0; i + phrase.size() <= question.size(); i++) {
                for (int j = 0; j < phrase.size(); j++) {
                    if (!question.get(i + j).norm().equals(phrase.get(j))) continue outer;
                }
                return true;
            }
            return false;
        }
    }

    // ------------------------------------------------------------------ what the agent knows

    /** Every entry of the intent rules' word lists (from the class path). */
    public static List<Entry> lexiconEntries() {
        return entries(QuestionWords.lexicon(), Path.of(QuestionWords.lexiconResource()).getFileName().toString());
    }

    /** Every entry of word lists in the lexicon's format in {@code file} (an extra list to check). */
    public static List<Entry> lexiconEntries(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return entries(QuestionWords.readLexicon(in, file.toString()), file.toString());
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    private static List<Entry> entries(Map<String, Set<String>> lists, String where) {
        List<Entry> out = new ArrayList<>();
        lists.forEach((name, words) -> words.forEach(w -> out.add(new Entry(w, where + " " + name, true))));
        return out;
    }

    /** The quoted phrases of {@link #SOURCES} under {@code checkout}. */
    public static List<Entry> sourcePhrases(Path checkout) {
        List<Entry> out = new ArrayList<>();
        for (String source : SOURCES) {
            Path p = checkout.resolve(source);
            if (!Files.exists(p)) throw new UserError(checkout + " is not a Ladder checkout: no " + source);
            List<Path> files;
            try (Stream<Path> walk = Files.walk(p)) {
                files = walk.filter(Files::isRegularFile)
                        .filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".md")).sorted().toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Path f : files) {
                String where = checkout.relativize(f).toString().replace('\\', '/');
                String text = TextFiles.read(f);
                out.addAll(f.toString().endsWith(".java") ? javaPhrases(text, where) : markdownPhrases(text, where));
            }
        }
        return out;
    }

    /** The checkout that holds the working directory, for runs from a source tree. */
    public static Path findCheckout(Path from) {
        for (Path p = from.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve(SOURCES.get(0))) && Files.isRegularFile(p.resolve("docs/agent.md"))) return p;
        }
        throw new UserError("no Ladder checkout at or above " + from.toAbsolutePath()
                + ": run from the source tree or give --source DIR");
    }

    /** String literals and text blocks, and "quoted" text inside comments. */
    static List<Entry> javaPhrases(String src, String where) {
        List<Entry> out = new ArrayList<>();
        int n = src.length();
        int i = 0;
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && (src.charAt(i + 1) == '/' || src.charAt(i + 1) == '*')) {
                boolean line = src.charAt(i + 1) == '/';
                int end = line ? src.indexOf('\n', i) : src.indexOf("*/", i + 2);
                end = end < 0 ? n : end;
                // block comments lose their leading '*' so a quote can run across lines
                String comment = src.substring(i + 2, end).replaceAll("\n\\s*\\*", "\n");
                quotes(comment, where, lineOf(src, i), QUOTE, out);
                i = line ? end : Math.min(n, end + 2);
            } else if (src.startsWith("\"\"\"", i)) {
                int start = src.indexOf('\n', i) + 1;
                int end = closing(src, start, "\"\"\"");
                pieces(unescape(src.substring(start, end)), where, lineOf(src, start), out);
                i = Math.min(n, end + 3);
            } else if (c == '"') {
                int end = closing(src, i + 1, "\"");
                pieces(unescape(src.substring(i + 1, end)), where, lineOf(src, i), out);
                i = Math.min(n, end + 1);
            } else if (c == '\'') {
                i = Math.min(n, closing(src, i + 1, "'") + 1);
            } else {
                i++;
            }
        }
        return out;
    }

    /** "Quoted" text (straight or curly quotes) within each paragraph of a Markdown file. */
    static List<Entry> markdownPhrases(String md, String where) {
        List<Entry> out = new ArrayList<>();
        String[] lines = md.split("\n", -1);
        int start = 0;
        for (int i = 0; i <= lines.length; i++) {
            if (i == lines.length || lines[i].isBlank()) {
                if (i > start) quotes(String.join("\n", List.of(lines).subList(start, i)), where, start + 1, MD_QUOTE, out);
                start = i + 1;
            }
        }
        return out;
    }

    private static final Pattern QUOTE = Pattern.compile("\"([^\"]+)\"");
    private static final Pattern MD_QUOTE = Pattern.compile("\"([^\"]+)\"|\u201c([^\u201d]+)\u201d");
    /** A phrase is cut where a question or line would end, and at table bars: one question never spans them. */
    private static final Pattern PIECE = Pattern.compile("[?!|\\t\\n]|[.;:](?=\\s|$)|\\\\n");

    private static void quotes(String text, String where, int firstLine, Pattern quote, List<Entry> out) {
        Matcher m = quote.matcher(text);
        while (m.find()) {
            String q = m.group(1) != null ? m.group(1) : m.group(2);
            pieces(q, where, firstLine + count(text, m.start()), out);
        }
    }

    /** Pieces in capitals only are SQL keywords or constants' names: SQL's vocabulary, not the questions'. */
    private static void pieces(String text, String where, int line, List<Entry> out) {
        Matcher m = PIECE.matcher(text);
        int start = 0;
        while (start <= text.length()) {
            int end = m.find(start) ? m.start() : text.length();
            String piece = text.substring(start, end);
            if (!piece.isBlank() && !piece.equals(piece.toUpperCase(Locale.ROOT))) {
                out.add(new Entry(piece.strip(), where + ":" + (line + count(text, start)), false));
            }
            start = end == text.length() ? end + 1 : m.end();
        }
    }

    private static int closing(String src, int from, String quote) {
        for (int i = from; i < src.length(); i++) {
            if (src.charAt(i) == '\\') i++;
            else if (src.startsWith(quote, i)) return i;
            else if (quote.length() == 1 && src.charAt(i) == '\n') return i;   // unterminated: stop at the line
        }
        return src.length();
    }

    private static String unescape(String s) {
        return s.replace("\\n", "\n").replace("\\t", "\t").replace("\\\"", "\"").replace("\\'", "'").replace("\\\\", "\\");
    }

    private static int lineOf(String src, int at) {
        return 1 + count(src, at);
    }

    private static int count(String s, int upTo) {
        int n = 0;
        for (int i = 0; i < upTo; i++) if (s.charAt(i) == '\n') n++;
        return n;
    }

    // ------------------------------------------------------------------ provenance

    /** The committed provenance list (class path). */
    public static List<Provenance> provenance() {
        try (InputStream in = LeakCheck.class.getClassLoader().getResourceAsStream(PROVENANCE)) {
            if (in == null) throw new IllegalStateException("missing resource " + PROVENANCE);
            return parseProvenance(new String(in.readAllBytes(), StandardCharsets.UTF_8), PROVENANCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lines {@code entry source}; blank lines and {@code #} comments are skipped. */
    static List<Provenance> parseProvenance(String text, String where) {
        List<Provenance> out = new ArrayList<>();
        int n = 0;
        for (String line : text.split("\n")) {
            n++;
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] parts = line.split("\\s+", 2);
            if (parts.length < 2) throw new IllegalStateException(where + ":" + n + ": expected 'entry source', got " + line);
            out.add(new Provenance(parts[0].toLowerCase(Locale.ROOT), parts[1].strip()));
        }
        return out;
    }
}
