package dev.ladder.eval.check;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.SqlFeatures;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Coverage statistics of a list of items over a schema: what the benchmark's targets are checked
 * against (see docs/benchmark.md for the exact rules).
 */
public record Coverage(
        int items,
        Map<String, Integer> byCategory,
        Map<String, Integer> byDifficulty,
        Map<String, Integer> byTable,
        Map<String, Integer> byForeignKey,
        int multiTable,
        int havingOrNested,
        int dateArithmetic,
        int nullHandling,
        int orderedProjection,
        int templateSiblings) {

    private static final Pattern DATE_ARITHMETIC = Pattern.compile(
            "(?i)\\b(DATEDIFF|TIMESTAMPDIFF|DATE_ADD|DATE_SUB|ADDDATE|SUBDATE|PERIOD_DIFF|TO_DAYS)\\s*\\(|\\bINTERVAL\\b");
    private static final Pattern NULL_HANDLING = Pattern.compile(
            "(?i)\\bIS\\s+(NOT\\s+)?NULL\\b|\\b(COALESCE|IFNULL|NULLIF)\\s*\\(|<=>");

    public static Coverage of(List<BenchmarkItem> items, Schema schema) {
        Map<String, Integer> cat = new LinkedHashMap<>();
        BenchmarkItem.CATEGORIES.forEach(c -> cat.put(c, 0));
        Map<String, Integer> diff = new LinkedHashMap<>();
        BenchmarkItem.DIFFICULTIES.forEach(d -> diff.put(d, 0));
        Map<String, Integer> tables = new TreeMap<>();
        schema.tables().forEach(t -> tables.put(t.name().toLowerCase(Locale.ROOT), 0));
        Map<String, Integer> fks = new LinkedHashMap<>();
        schema.foreignKeys().forEach(fk -> fks.put(fkName(fk), 0));
        int multi = 0, havingNested = 0, dates = 0, nulls = 0, ordered = 0;
        Map<String, Integer> skeletons = new HashMap<>();
        for (BenchmarkItem item : items) {
            cat.merge(item.category(), 1, Integer::sum);
            diff.merge(item.difficulty(), 1, Integer::sum);
            SqlFeatures f;
            try {
                f = SqlFeatures.of(item.sql());
            } catch (IllegalArgumentException e) {
                // MySQL syntax JSqlParser cannot read: no structural counts for it (bench check reports it)
                skeletons.merge(skeleton(item.sql()), 1, Integer::sum);
                continue;
            }
            f.tables().forEach(t -> tables.computeIfPresent(t, (k, v) -> v + 1));
            for (ForeignKey fk : schema.foreignKeys()) {
                if (usesForeignKey(item.sql(), f, fk)) fks.merge(fkName(fk), 1, Integer::sum);
            }
            if (f.tables().size() >= 2) multi++;
            if (f.hasHaving() || f.nested() > 0 || hasSubquery(item.sql())) havingNested++;
            if (DATE_ARITHMETIC.matcher(item.sql()).find()) dates++;
            if (NULL_HANDLING.matcher(item.sql()).find()) nulls++;
            if (namesFieldsInOrder(item)) ordered++;
            skeletons.merge(skeleton(item.sql()), 1, Integer::sum);
        }
        int siblings = skeletons.values().stream().filter(n -> n > 1).mapToInt(n -> n - 1).sum();
        return new Coverage(items.size(), cat, diff, tables, fks, multi, havingNested, dates, nulls, ordered, siblings);
    }

    static String fkName(ForeignKey fk) {
        return fk.table() + "." + String.join(",", fk.columns()) + "->" + fk.referencedTable();
    }

    /** Both tables referenced and every FK column named in the SQL (for a self-reference: the column named). */
    static boolean usesForeignKey(String sql, SqlFeatures f, ForeignKey fk) {
        if (!f.tables().contains(fk.table().toLowerCase(Locale.ROOT))
                || !f.tables().contains(fk.referencedTable().toLowerCase(Locale.ROOT))) {
            return false;
        }
        String lower = sql.toLowerCase(Locale.ROOT);
        return fk.columns().stream().allMatch(c -> Pattern.compile("\\b" + Pattern.quote(c.toLowerCase(Locale.ROOT)) + "\\b")
                .matcher(lower).find());
    }

    private static boolean hasSubquery(String sql) {
        return Pattern.compile("(?i)\\(\\s*(SELECT|WITH)\\b").matcher(sql).find()
                || Pattern.compile("(?i)^\\s*WITH\\b").matcher(sql).find();
    }

    /**
     * The question names at least two output columns of the gold, in the gold's SELECT order: each
     * plain column's last camel-case word (customerName: name, creditLimit: limit) appears in the
     * question after the previous one.
     */
    static boolean namesFieldsInOrder(BenchmarkItem item) {
        List<String> words = new ArrayList<>();
        for (String col : SqlProjection.plainColumns(item.sql())) words.add(lastWord(col));
        if (words.size() < 2) return false;
        String q = item.question().toLowerCase(Locale.ROOT);
        int at = -1;
        for (String w : words) {
            Matcher m = Pattern.compile("\\b" + Pattern.quote(w) + "(e?s)?\\b").matcher(q);
            if (!m.find(at + 1)) return false;
            at = m.start();
        }
        return true;
    }

    private static String lastWord(String camel) {
        String[] parts = camel.split("(?<=[a-z0-9])(?=[A-Z])|_");
        return parts[parts.length - 1].toLowerCase(Locale.ROOT);
    }

    /** SQL with literals replaced and whitespace/case normalised: equal skeletons are template siblings. */
    public static String skeleton(String sql) {
        return sql.replaceAll("'(?:[^'\\\\]|\\\\.|'')*'", "?")
                .replaceAll("\\b\\d+(\\.\\d+)?\\b", "?")
                .replaceAll("\\s+", " ")
                .strip()
                .toLowerCase(Locale.ROOT);
    }

    /** Lower case, digits and quoted values masked, punctuation dropped: equal forms are duplicate questions. */
    public static String normalizeQuestion(String q) {
        return q.toLowerCase(Locale.ROOT)
                .replaceAll("'[^']*'|\"[^\"]*\"", "?")
                .replaceAll("\\d+(\\.\\d+)?", "?")
                .replaceAll("[^a-z?]+", " ")
                .strip();
    }
}
