package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.kit.Names;
import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.sql.db.ColumnValues;
import dev.ladder.sql.db.Database;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values stored in a database's text columns, searchable by a question's keywords: the value condition checker's
 * source of value examples. A column is read on first use (its first {@code maxValues} distinct values in sort order;
 * {@link Column#truncated} says when there are more) and embedded on first embedding search; both stay for the life
 * of the index, which {@link ValueIndexes} keeps per database.
 *
 * <p>A value's similarity to a keyword is the best of: exact (1.0), equal ignoring case (0.95), the keyword a whole
 * word of the value ignoring case (0.8), edit distance (0.9 × (1 − distance / longer length), counted from 0.75 up,
 * keywords of 4 characters or more), and the cosine of their MiniLM embeddings (0.8 × cosine, counted from 0.5 up).
 */
public final class ValueIndex {

    /** A stored value, how similar it is to the closest keyword, and which rule found it. */
    public record Match(String value, double score, String how, String keyword) {}

    /** One column's values as indexed. */
    public record Column(List<String> values, boolean truncated) {}

    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}'&.-]*");
    private static final Pattern QUOTED = Pattern.compile("[\"'‘’“”]([^\"'‘’“”]{2,60})[\"'‘’“”]");

    private final Database db;
    private final int maxValues;
    private final SentenceEmbedder embedder;
    private final Map<String, Column> columns = new ConcurrentHashMap<>();
    private final Map<String, float[][]> embeddings = new ConcurrentHashMap<>();

    /** @param embedder null: no embedding similarity */
    public ValueIndex(Database db, int maxValues, SentenceEmbedder embedder) {
        this.db = db;
        this.maxValues = maxValues;
        this.embedder = embedder;
    }

    public int maxValues() {
        return maxValues;
    }

    /** The column's indexed values (read once). */
    public Column column(String table, String column) {
        return columns.computeIfAbsent(key(table, column), k -> {
            List<String> v = ColumnValues.distinct(db, table, column, maxValues + 1);
            boolean more = v.size() > maxValues;
            return new Column(List.copyOf(more ? v.subList(0, maxValues) : v), more);
        });
    }

    /** The {@code k} stored values most similar to any keyword, best first (ties by value); none below the floors. */
    public List<Match> similar(String table, String column, List<String> keywords, int k) {
        Column c = column(table, column);
        if (c.values().isEmpty() || keywords.isEmpty()) return List.of();
        float[][] valueVectors = null;
        List<float[]> keywordVectors = null;
        if (embedder != null) {
            valueVectors = embeddings.computeIfAbsent(key(table, column),
                    x -> c.values().stream().map(embedder::embed).toArray(float[][]::new));
            keywordVectors = keywords.stream().map(embedder::embed).toList();
        }
        List<Match> out = new ArrayList<>();
        for (int i = 0; i < c.values().size(); i++) {
            String value = c.values().get(i);
            Match best = null;
            for (int j = 0; j < keywords.size(); j++) {
                Match m = lexical(value, keywords.get(j));
                if (valueVectors != null) {
                    double cos = SentenceEmbedder.cosine(valueVectors[i], keywordVectors.get(j));
                    if (cos >= 0.5 && (m == null || 0.8 * cos > m.score())) {
                        m = new Match(value, 0.8 * cos, "embedding", keywords.get(j));
                    }
                }
                if (m != null && (best == null || m.score() > best.score())) best = m;
            }
            if (best != null) out.add(new Match(value, Math.round(best.score() * 1000) / 1000.0, best.how(), best.keyword()));
        }
        out.sort(Comparator.comparingDouble(Match::score).reversed().thenComparing(Match::value));
        return out.size() > k ? List.copyOf(out.subList(0, k)) : out;
    }

    /** The lexical rules' best match of a value and a keyword, or null. */
    static Match lexical(String value, String keyword) {
        if (value.equals(keyword)) return new Match(value, 1.0, "exact", keyword);
        String v = value.toLowerCase(Locale.ROOT).strip();
        String w = keyword.toLowerCase(Locale.ROOT).strip();
        if (v.equals(w)) return new Match(value, 0.95, "case", keyword);
        if (w.length() >= 3 && (" " + v.replaceAll("[^\\p{L}\\p{N}]+", " ") + " ")
                .contains(" " + w.replaceAll("[^\\p{L}\\p{N}]+", " ").strip() + " ")) {
            return new Match(value, 0.8, "word", keyword);
        }
        if (w.length() >= 4 && Math.abs(v.length() - w.length()) <= Math.max(v.length(), w.length()) / 4) {
            double sim = 1.0 - (double) editDistance(v, w) / Math.max(v.length(), w.length());
            if (sim >= 0.75) return new Match(value, 0.9 * sim, "edit", keyword);
        }
        return null;
    }

    /**
     * The question's keywords: quoted phrases, numbers, and runs of up to three content words (general English
     * function words removed, {@link Names#STOPWORDS}), each as written. A value of several words ("Land of Toys")
     * can match a run.
     */
    public static List<String> keywords(String question) {
        Set<String> out = new LinkedHashSet<>();
        Matcher q = QUOTED.matcher(question);
        while (q.find()) out.add(q.group(1).strip());
        List<String> words = new ArrayList<>();
        Matcher m = WORD.matcher(question);
        List<List<String>> runs = new ArrayList<>();
        while (m.find()) {
            String w = m.group().replaceAll("[.'-]+$", "");
            if (w.isEmpty() || Names.STOPWORDS.contains(w.toLowerCase(Locale.ROOT))) {
                if (!words.isEmpty()) runs.add(words);
                words = new ArrayList<>();
                continue;
            }
            words.add(w);
        }
        if (!words.isEmpty()) runs.add(words);
        for (List<String> run : runs) {
            for (int n = 1; n <= 3; n++) {
                for (int i = 0; i + n <= run.size(); i++) out.add(String.join(" ", run.subList(i, i + n)));
            }
        }
        return List.copyOf(out);
    }

    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static String key(String table, String column) {
        return (table + "." + column).toLowerCase(Locale.ROOT);
    }
}
