package dev.ladder.pipeline.soft;

import dev.ladder.pipeline.kit.Names;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Stage 2: soft relevance weights over the whole schema (nothing is filtered out). A table the question's entities
 * match weighs {@code 1.0 + hits}, an unmatched one 0.5; a column {@code 1.0 + hits}, unmatched 0.3; either gains 0.5
 * when a side of a relation matches it; then every weight is divided by the largest, so the most relevant element
 * weighs 1. Weights are keyed by {@code (table, column)}: two tables' same-named columns are weighed apart.
 *
 * <p>Matching: an entity and an identifier are folded alike (identifiers split by {@link Names#parts}, every word
 * through the project's one stemmer {@link Names#stem}, general function words dropped). An entity matches a table
 * when it holds every word of the table's name, or when its words written together make a name written as one
 * lower-case word ({@code orderdetails}); it matches a column when it holds every word of the column's name
 * that is not a word of its table's name (so {@code customerName} is matched by "name" only in the context of
 * customers: the entity must hold the table's words too, or the column's own words must be more than the table's),
 * and when the entity names a table it raises only that table's columns ({@link #qualifiedFor}).
 */
public final class AttentionWeights {

    public static final double TABLE_MATCHED = 1.0;
    public static final double TABLE_UNMATCHED = 0.5;
    public static final double COLUMN_MATCHED = 1.0;
    public static final double COLUMN_UNMATCHED = 0.3;
    public static final double RELATION_BONUS = 0.5;

    /** A schema element: a table ({@code column} null) or one table's column. */
    public record Key(String table, String column) {
        @Override
        public String toString() {
            return column == null ? table : table + "." + column;
        }
    }

    /**
     * @param weights normalised weights, tables then each table's columns, in schema order
     * @param hits    how many entities matched each element (elements without a hit left out)
     */
    public record Weights(Map<Key, Double> weights, Map<Key, Integer> hits) {
        public Weights {
            weights = Collections.unmodifiableMap(new LinkedHashMap<>(weights));
            hits = Collections.unmodifiableMap(new LinkedHashMap<>(hits));
        }

        public double of(String table, String column) {
            for (var e : weights.entrySet()) {
                if (e.getKey().table().equalsIgnoreCase(table) && (column == null ? e.getKey().column() == null
                        : column.equalsIgnoreCase(e.getKey().column()))) {
                    return e.getValue();
                }
            }
            return 0;
        }
    }

    private AttentionWeights() {}

    /**
     * The weights' inputs: every table's and column's folded words. Folded again for each question: a few dozen short
     * names take microseconds, so no cache (and no static state) is worth keeping.
     */
    static Map<Key, Set<String>> folded(Schema schema) {
        Map<Key, Set<String>> out = new LinkedHashMap<>();
        for (Table t : schema.tables()) {
            out.put(new Key(t.name(), null), words(t.name()));
            for (Column c : t.columns()) out.put(new Key(t.name(), c.name()), words(c.name()));
        }
        return out;
    }

    public static Weights compute(Schema schema, QuestionMiner.Mined mined) {
        Map<Key, Set<String>> folded = folded(schema);
        List<Set<String>> entities = mined.entities().stream().map(AttentionWeights::words).toList();
        List<Set<String>> relationSides = new ArrayList<>();
        for (QuestionMiner.Relation r : mined.relations()) {
            relationSides.add(words(r.left()));
            relationSides.add(words(r.right()));
        }
        Map<Key, Double> raw = new LinkedHashMap<>();
        Map<Key, Integer> hits = new LinkedHashMap<>();
        for (Table t : schema.tables()) {
            Key k = new Key(t.name(), null);
            Set<String> tw = folded.get(k);
            int h = count(entities, e -> matchesTable(e, tw));
            double w = h > 0 ? TABLE_MATCHED + h : TABLE_UNMATCHED;
            if (relationSides.stream().anyMatch(s -> matchesTable(s, tw))) w += RELATION_BONUS;
            raw.put(k, w);
            if (h > 0) hits.put(k, h);
        }
        for (Table t : schema.tables()) {
            Set<String> tw = folded.get(new Key(t.name(), null));
            for (Column c : t.columns()) {
                Key k = new Key(t.name(), c.name());
                Set<String> cw = folded.get(k);
                int h = count(entities, e -> matchesColumn(e, tw, cw) && qualifiedFor(e, t.name(), folded));
                double w = h > 0 ? COLUMN_MATCHED + h : COLUMN_UNMATCHED;
                if (relationSides.stream().anyMatch(s -> matchesColumn(s, tw, cw) && qualifiedFor(s, t.name(), folded))) {
                    w += RELATION_BONUS;
                }
                raw.put(k, w);
                if (h > 0) hits.put(k, h);
            }
        }
        double max = raw.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        Map<Key, Double> norm = new LinkedHashMap<>();
        raw.forEach((k, v) -> norm.put(k, Math.round(v / max * 100) / 100.0));
        return new Weights(norm, hits);
    }

    /**
     * Whether an entity may name a column of {@code table}: it names no table at all, or it names this one. "author
     * name" names the authors table, so it raises {@code authors.name} and not {@code books.name}.
     */
    static boolean qualifiedFor(Set<String> entity, String table, Map<Key, Set<String>> folded) {
        boolean namesAny = false;
        for (var e : folded.entrySet()) {
            if (e.getKey().column() != null || !matchesTable(entity, e.getValue())) continue;
            if (e.getKey().table().equals(table)) return true;
            namesAny = true;
        }
        return !namesAny;
    }

    static boolean matchesTable(Set<String> entity, Set<String> table) {
        if (table.isEmpty()) return false;
        if (entity.containsAll(table)) return true;
        // a name written as one lower-case word of several (orderdetails, productlines): the entity's words make it
        return table.size() == 1 && compound(table.iterator().next(), entity);
    }

    /**
     * Whether {@code word} (folded) is the entity's words written together: split after three letters or more, each
     * piece (three letters or more) is a word of the entity as written or folded, or again such a compound.
     */
    static boolean compound(String word, Set<String> entity) {
        for (int i = 3; i <= word.length() - 3; i++) {
            String first = word.substring(0, i);
            if (!entity.contains(first) && !entity.contains(Names.stem(first))) continue;
            String rest = word.substring(i);
            if (entity.contains(rest) || entity.contains(Names.stem(rest)) || compound(rest, entity)) return true;
        }
        return false;
    }

    static boolean matchesColumn(Set<String> entity, Set<String> table, Set<String> column) {
        Set<String> own = new HashSet<>(column);
        own.removeAll(table);
        // a column named only by its table's words (customers.customerNumber -> {number}) needs its own word
        if (own.isEmpty()) return false;
        if (!entity.containsAll(own)) return false;
        // the column's words beyond the table's: enough on their own when they are more than one word, or when the
        // column repeats none of the table's words; otherwise the entity must hold the table's words too
        return own.size() > 1 || own.size() == column.size() || entity.containsAll(table);
    }

    /** Folded content words of a phrase or identifier. */
    static Set<String> words(String text) {
        Set<String> out = new HashSet<>();
        for (String part : text.split("\\s+")) {
            for (String p : Names.parts(part)) {
                String w = p.toLowerCase(Locale.ROOT);
                if (w.isEmpty() || Names.STOPWORDS.contains(w)) continue;
                out.add(Names.stem(w));
            }
        }
        return out;
    }

    private static int count(List<Set<String>> items, Predicate<Set<String>> p) {
        int n = 0;
        for (Set<String> s : items) if (p.test(s)) n++;
        return n;
    }
}
