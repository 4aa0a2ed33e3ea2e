package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.kit.Names;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The tables a question needs, found lexically (no database access): tables whose name or columns the question's
 * words name, completed with the tables on shortest foreign-key paths between them so that they can be joined.
 */
public final class SchemaSubset {
    /**
     * @param tables    table names, in schema order
     * @param joinHints one line per foreign key between chosen tables, e.g. {@code orders.customerNumber = customers.customerNumber}
     * @param rendered  a short text listing of the subset (tables with columns, then join hints)
     */
    public record Subset(List<String> tables, List<String> joinHints, String rendered) {
        public Subset {
            tables = List.copyOf(tables);
            joinHints = List.copyOf(joinHints);
        }
    }

    /** A column name found in this many tables or more is too generic to pick a table on its own. */
    static final int GENERIC_COLUMN_TABLES = 3;

    private SchemaSubset() {}

    public static Subset select(String question, Schema schema) {
        List<Table> tables = schema.tables();
        Lexicon lex = Lexicon.of(schema);
        Set<String> words = new HashSet<>(Lexicon.questionWords(question == null ? "" : question));
        boolean[] chosen = new boolean[tables.size()];

        for (int i = 0; i < tables.size(); i++) {
            List<String> parts = lex.parts(tables.get(i).name());
            chosen[i] = !parts.isEmpty() && words.containsAll(parts);
        }
        // column matches, grouped by the question words they use. A group adds its tables only when it explains a
        // question word that the tables chosen so far do not (by name or by a matching column), when no chosen table
        // is among them, and when it is not spread over many tables. Groups using more words go first.
        Map<Set<String>, List<Integer>> byWords = new LinkedHashMap<>();
        List<Set<String>> matchedIn = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) {
            Table t = tables.get(i);
            Set<String> tableParts = new HashSet<>(lex.parts(t.name()));
            Set<String> all = new HashSet<>(tableParts);
            for (Column c : t.columns()) {
                Set<String> matched = columnMatch(lex.parts(c.name()), tableParts, words);
                if (matched.isEmpty()) continue;
                all.addAll(matched);
                List<Integer> owners = byWords.computeIfAbsent(matched, k -> new ArrayList<>());
                if (!owners.contains(i)) owners.add(i);
            }
            matchedIn.add(all);
        }
        Set<String> explained = new HashSet<>();
        for (int i = 0; i < tables.size(); i++) if (chosen[i]) explained.addAll(matchedIn.get(i));
        List<Map.Entry<Set<String>, List<Integer>>> groups = new ArrayList<>(byWords.entrySet());
        groups.sort((a, b) -> Integer.compare(b.getKey().size(), a.getKey().size()));
        for (Map.Entry<Set<String>, List<Integer>> g : groups) {
            List<Integer> owners = g.getValue();
            if (owners.stream().anyMatch(i -> chosen[i]) || owners.size() >= GENERIC_COLUMN_TABLES
                    || explained.containsAll(g.getKey())) continue;
            for (int i : owners) {
                chosen[i] = true;
                explained.addAll(matchedIn.get(i));
            }
        }

        boolean any = false;
        for (boolean b : chosen) any |= b;
        if (!any) Arrays.fill(chosen, true);
        else connect(schema, chosen);

        List<String> names = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) if (chosen[i]) names.add(tables.get(i).name());
        List<String> hints = joinHints(schema, names);
        return new Subset(names, hints, render(schema, names, hints));
    }

    /** Every table with every join hint: what the tabular prompt lists when the schema subset is off. */
    public static Subset whole(Schema schema) {
        List<String> names = schema.tables().stream().map(Table::name).toList();
        List<String> hints = joinHints(schema, names);
        return new Subset(names, hints, render(schema, names, hints));
    }

    /**
     * The schema cut down to a subset's tables and the foreign keys between them, for prompts rendered over the subset
     * (a key to a table left out would name a table the prompt does not show).
     */
    public static Schema restrict(Schema schema, Subset subset) {
        Set<String> in = new HashSet<>();
        for (String n : subset.tables()) in.add(n.toLowerCase(Locale.ROOT));
        List<Table> tables = schema.tables().stream().filter(t -> in.contains(t.name().toLowerCase(Locale.ROOT))).toList();
        List<ForeignKey> keys = schema.foreignKeys().stream()
                .filter(fk -> in.contains(fk.table().toLowerCase(Locale.ROOT))
                        && in.contains(fk.referencedTable().toLowerCase(Locale.ROOT)))
                .toList();
        return new Schema(schema.database(), tables, keys);
    }

    /**
     * The question words a column name matches, or none: all of its parts are question words, or its last part
     * (the head noun: {@code buyPrice} -> price) is and every other part is a question word or a part of the table's
     * own name ({@code productScale} in {@code products} matches "scale").
     */
    private static Set<String> columnMatch(List<String> parts, Set<String> tableParts, Set<String> words) {
        if (parts.isEmpty()) return Set.of();
        if (words.containsAll(parts)) return new TreeSet<>(parts);
        String head = parts.get(parts.size() - 1);
        if (parts.size() < 2 || !words.contains(head)) return Set.of();
        Set<String> matched = new TreeSet<>();
        for (String p : parts) {
            if (words.contains(p)) matched.add(p);
            else if (!tableParts.contains(p)) return Set.of();
        }
        return matched;
    }

    /**
     * Adds the tables on shortest foreign-key paths between the chosen ones (a greedy Steiner tree: from the tree
     * built so far, a breadth-first search finds the nearest chosen table not yet in it and adds the path). Chosen
     * tables with no path to the others stay in, unconnected.
     */
    private static void connect(Schema schema, boolean[] chosen) {
        List<Table> tables = schema.tables();
        int n = tables.size();
        List<TreeSet<Integer>> adjacent = new ArrayList<>();
        for (int i = 0; i < n; i++) adjacent.add(new TreeSet<>());
        for (ForeignKey fk : schema.foreignKeys()) {
            int a = indexOf(tables, fk.table());
            int b = indexOf(tables, fk.referencedTable());
            if (a < 0 || b < 0 || a == b) continue;
            adjacent.get(a).add(b);
            adjacent.get(b).add(a);
        }
        TreeSet<Integer> remaining = new TreeSet<>();
        for (int i = 0; i < n; i++) if (chosen[i]) remaining.add(i);
        boolean[] tree = new boolean[n];
        tree[remaining.pollFirst()] = true;
        while (!remaining.isEmpty()) {
            int[] previous = new int[n];
            Arrays.fill(previous, -2);
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            for (int i = 0; i < n; i++) {
                if (tree[i]) {
                    previous[i] = -1;
                    queue.add(i);
                }
            }
            int reached = -1;
            while (!queue.isEmpty() && reached < 0) {
                int at = queue.poll();
                for (int next : adjacent.get(at)) {
                    if (previous[next] != -2) continue;
                    previous[next] = at;
                    if (remaining.contains(next)) {
                        reached = next;
                        break;
                    }
                    queue.add(next);
                }
            }
            if (reached < 0) {
                // no path from the tree: the next chosen table starts a part of its own
                tree[remaining.pollFirst()] = true;
                continue;
            }
            for (int at = reached; at >= 0 && !tree[at]; at = previous[at]) {
                tree[at] = true;
                remaining.remove(at);
            }
        }
        System.arraycopy(tree, 0, chosen, 0, n);
    }

    private static int indexOf(List<Table> tables, String name) {
        for (int i = 0; i < tables.size(); i++) if (tables.get(i).name().equalsIgnoreCase(name)) return i;
        return -1;
    }

    /** One line per foreign key whose two tables are both chosen (self-references included), in schema order. */
    private static List<String> joinHints(Schema schema, List<String> names) {
        Set<String> in = new HashSet<>();
        for (String n : names) in.add(n.toLowerCase(Locale.ROOT));
        List<String> hints = new ArrayList<>();
        for (ForeignKey fk : schema.foreignKeys()) {
            if (!in.contains(fk.table().toLowerCase(Locale.ROOT))
                    || !in.contains(fk.referencedTable().toLowerCase(Locale.ROOT))) continue;
            List<String> pairs = new ArrayList<>();
            for (int i = 0; i < fk.columns().size(); i++) {
                pairs.add(fk.table() + "." + fk.columns().get(i) + " = "
                        + fk.referencedTable() + "." + fk.referencedColumns().get(i));
            }
            String hint = String.join(" AND ", pairs);
            if (!hints.contains(hint)) hints.add(hint);
        }
        return hints;
    }

    private static String render(Schema schema, List<String> names, List<String> hints) {
        StringBuilder sb = new StringBuilder();
        for (String name : names) {
            Table t = schema.table(name).orElseThrow();
            sb.append(t.name()).append('(')
                    .append(String.join(", ", t.columns().stream().map(Column::name).toList())).append(")\n");
        }
        if (!hints.isEmpty()) {
            sb.append("Joins:\n");
            for (String h : hints) sb.append(h).append('\n');
        }
        return sb.toString();
    }

    /**
     * Lexical matching shared by {@link SchemaSubset} and {@link CandidateScorer}: question words and identifier
     * parts, lower-cased, stop words removed, plurals folded by {@link #stem}.
     */
    static final class Lexicon {

        static final Set<String> STOPWORDS = Names.STOPWORDS;

        private final Set<String> vocabulary;
        /** Stemmed parts of identifiers that have explicit boundaries: words a compound must not be split from. */
        private final Set<String> words;

        private Lexicon(Set<String> vocabulary, Set<String> words) {
            this.vocabulary = vocabulary;
            this.words = words;
        }

        /** The vocabulary is every part of every table and column name, compounds split. */
        static Lexicon of(Schema schema) {
            List<String> identifiers = new ArrayList<>();
            for (Table t : schema.tables()) {
                identifiers.add(t.name());
                for (Column c : t.columns()) identifiers.add(c.name());
            }
            Set<String> vocab = new HashSet<>();
            Set<String> words = new HashSet<>();
            for (String id : identifiers) {
                List<String> raw = rawParts(id);
                for (String p : raw) {
                    vocab.add(stem(p));
                    if (raw.size() > 1) words.add(stem(p));
                }
            }
            Lexicon plain = new Lexicon(vocab, words);
            // compound splitting adds the remainders (orderdetails -> detail) to the vocabulary
            Set<String> all = new HashSet<>(vocab);
            for (String id : identifiers) all.addAll(plain.parts(id));
            return new Lexicon(Set.copyOf(all), Set.copyOf(words));
        }

        Set<String> vocabulary() {
            return vocabulary;
        }

        /**
         * The content parts of an identifier: split at non-letters, camelCase and letter/digit boundaries
         * ({@code salesRepEmployeeNumber} -> sales, rep, employee, number), an all-lower-case word of 7+ letters split
         * into a known word and a remainder ({@code orderdetails} -> order, detail), stemmed, digits and stop words
         * dropped (stop words are kept when nothing else is left).
         */
        List<String> parts(String identifier) {
            List<String> content = new ArrayList<>();
            List<String> stops = new ArrayList<>();
            for (String raw : rawParts(identifier)) {
                for (String p : splitCompound(raw)) {
                    String s = stem(p);
                    if (s.chars().allMatch(Character::isDigit)) continue;
                    if (STOPWORDS.contains(s)) stops.add(s);
                    else if (!content.contains(s)) content.add(s);
                }
            }
            return content.isEmpty() ? stops : content;
        }

        private List<String> splitCompound(String raw) {
            if (raw.length() < 7 || !raw.chars().allMatch(Character::isLetter) || words.contains(stem(raw))) {
                return List.of(raw);
            }
            for (int cut = raw.length() - 3; cut >= 3; cut--) {
                String head = raw.substring(0, cut);
                String rest = raw.substring(cut);
                if (!vocabulary.contains(stem(head))) continue;
                if (vocabulary.contains(stem(rest)) || (head.length() >= 4 && rest.length() >= 5)) {
                    return List.of(head, rest);
                }
            }
            return List.of(raw);
        }

        static List<String> rawParts(String identifier) {
            return Names.parts(identifier);
        }

        /**
         * The question's content words in order: lower-cased letter runs (numbers and single letters dropped, so
         * "customer's" gives customer), stop words removed, stemmed.
         */
        static List<String> questionWords(String question) {
            List<String> out = new ArrayList<>();
            for (String w : question.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
                if (w.length() < 2 || w.chars().anyMatch(Character::isDigit) || STOPWORDS.contains(w)) continue;
                String s = stem(w);
                if (!STOPWORDS.contains(s)) out.add(s);
            }
            return out;
        }

        static String stem(String word) {
            return Names.stem(word);
        }
    }
}
