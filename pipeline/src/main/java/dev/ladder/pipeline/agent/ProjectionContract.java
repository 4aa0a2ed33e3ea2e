package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.kit.Lexicon;
import dev.ladder.pipeline.kit.Names;
import dev.ladder.pipeline.kit.QuestionText;
import dev.ladder.pipeline.kit.QuestionText.Kind;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.OuterClauses.Clause;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Makes the outermost SELECT list follow the fields the question names (docs/agent.md, "Projection contract"):
 * plain column items the question names are put in the question's order, and plain column items it does not name
 * are dropped when that is safe. Aggregates and other expressions are never dropped or moved, nor are items that
 * GROUP BY or HAVING use or that ORDER BY uses by alias; {@code SELECT *}, set operations and positional
 * references (ORDER BY 2) leave the query as it is.
 */
public final class ProjectionContract {
    /** @param applied what was changed, in order; empty when the SQL is unchanged */
    public record Projected(String sql, List<String> applied) {
        public Projected {
            applied = List.copyOf(applied);
        }
    }

    public static final String REORDER = "reorder";
    public static final String DROP_PREFIX = "drop:";

    private static final Set<String> NOT_COLUMNS = Set.of(
            "null", "true", "false", "unknown", "default", "current_date", "current_time", "current_timestamp",
            "localtime", "localtimestamp", "current_user", "case", "not", "exists", "interval", "distinct", "binary");

    /** A SELECT item that is a column reference, optionally qualified and aliased. */
    private record PlainItem(int index, String qualifier, String column, String alias) {}

    private ProjectionContract() {}

    /**
     * As {@link #enforce(String, IntentProfile, Schema, String)} without the question: an unnamed column is then
     * dropped only when the WHERE clause fixes its value.
     */
    public static Projected enforce(String sql, IntentProfile intent, Schema schema) {
        return enforce(sql, intent, schema, null);
    }

    /**
     * @param question the question, when known: an unnamed column that the WHERE clause does not fix is then also
     *                 dropped when it is descriptive (not a key or name column) and none of its own words (not its
     *                 table's noun, not number/code/id) occur in the question ("quantity" keeps quantityOrdered);
     *                 null to drop only WHERE-fixed columns
     */
    public static Projected enforce(String sql, IntentProfile intent, Schema schema, String question) {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(intent, "intent");
        Objects.requireNonNull(schema, "schema");
        Projected unchanged = new Projected(sql, List.of());
        if (intent.namedFields().isEmpty()) return unchanged;
        Optional<OuterClauses> parsed = OuterClauses.parse(sql, Dialect.MYSQL).or(() -> OuterClauses.parse(sql, Dialect.SQLITE));
        if (parsed.isEmpty() || parsed.get().setOperation) return unchanged;
        OuterClauses q = parsed.get();

        List<PlainItem> plain = new ArrayList<>();
        for (int i = 0; i < q.items.size(); i++) {
            Clause item = q.items.get(i);
            if (star(q, item)) return unchanged;
            PlainItem p = plainItem(q, item, i);
            if (p != null) plain.add(p);
        }
        if (positional(q, q.orderBy) || positional(q, q.groupBy)) return unchanged;

        Map<String, Integer> order = new HashMap<>();
        for (String f : intent.namedFields()) order.putIfAbsent(f.toLowerCase(Locale.ROOT), order.size());
        if (plain.stream().noneMatch(p -> order.containsKey(lower(p.column())))) return unchanged;

        Set<String> groupRefs = identifiers(q, q.groupBy);
        groupRefs.addAll(identifiers(q, q.having));
        Set<String> orderRefs = identifiers(q, q.orderBy);
        Sources sources = Sources.of(q, schema);
        Set<String> constrained = equalityConstrained(q);
        Set<String> questionWords = question == null ? Set.of() : questionWords(question);

        List<String> applied = new ArrayList<>();
        Set<Integer> dropped = new HashSet<>();
        for (PlainItem p : plain) {
            if (order.containsKey(lower(p.column()))) continue;
            if (p.alias() != null && (groupRefs.contains(lower(p.alias())) || orderRefs.contains(lower(p.alias())))) continue;
            if (groupRefs.contains(lower(p.column()))) continue;
            if (q.distinct >= 0 && orderRefs.contains(lower(p.column()))) continue; // ORDER BY must be selected
            List<Table> owners = sources.owners(p.qualifier(), p.column());
            if (owners.isEmpty()) continue; // a derived table's column or unknown: a computed value, keep it
            boolean known = constrained.contains(lower(p.column()))
                    || constrained.contains(lower((p.qualifier() == null ? "*" : p.qualifier()) + "." + p.column()));
            // without the question only a column the WHERE clause fixes is safe to drop; with it, also a
            // descriptive column none of whose own words the question uses
            if (!known && (question == null || identifying(p.column(), owners)
                    || supported(p.column(), owners, questionWords))) {
                continue;
            }
            dropped.add(p.index());
            applied.add(DROP_PREFIX + p.column());
        }

        // the kept items, with the named plain items moved into the question's order among their own slots
        List<Integer> kept = new ArrayList<>();
        for (int i = 0; i < q.items.size(); i++) if (!dropped.contains(i)) kept.add(i);
        List<PlainItem> named = plain.stream()
                .filter(p -> !dropped.contains(p.index()) && order.containsKey(lower(p.column()))).toList();
        boolean duplicates = named.stream().map(p -> lower(p.column())).distinct().count() < named.size();
        List<Integer> arranged = new ArrayList<>(kept);
        if (!duplicates) {
            List<PlainItem> sorted = named.stream()
                    .sorted((a, b) -> Integer.compare(order.get(lower(a.column())), order.get(lower(b.column())))).toList();
            Set<Integer> namedSlots = new HashSet<>();
            for (PlainItem p : named) namedSlots.add(p.index());
            int next = 0;
            for (int s = 0; s < arranged.size(); s++) {
                if (namedSlots.contains(arranged.get(s))) arranged.set(s, sorted.get(next++).index());
            }
            if (!arranged.equals(kept)) applied.add(REORDER);
        }
        if (applied.isEmpty()) return unchanged;

        String separator = q.items.size() >= 2
                ? sql.substring(q.tokens.get(q.items.get(0).end() - 1).end(), q.tokens.get(q.items.get(1).start()).start())
                : ", ";
        List<String> texts = new ArrayList<>();
        for (int i : arranged) texts.add(q.text(q.items.get(i)));
        int from = q.tokens.get(q.items.get(0).start()).start();
        int to = q.tokens.get(q.items.get(q.items.size() - 1).end() - 1).end();
        String out = sql.substring(0, from) + String.join(separator, texts) + sql.substring(to);
        return new Projected(out, applied);
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    private static boolean star(OuterClauses q, Clause item) {
        SqlToken last = q.tokens.get(item.end() - 1);
        return last.isSymbol("*") && (item.end() - item.start() == 1 || q.tokens.get(item.end() - 2).isSymbol("."));
    }

    /** {@code col}, {@code t.col}, {@code db.t.col}, each optionally with {@code [AS] alias}; else null. */
    private static PlainItem plainItem(OuterClauses q, Clause item, int index) {
        List<SqlToken> t = q.tokens;
        int k = item.start();
        int end = item.end();
        List<String> parts = new ArrayList<>();
        if (!columnWord(t.get(k))) return null;
        parts.add(Identifiers.unquote(t.get(k).text()));
        k++;
        while (k + 1 < end && t.get(k).isSymbol(".") && columnWord(t.get(k + 1))) {
            parts.add(Identifiers.unquote(t.get(k + 1).text()));
            k += 2;
        }
        if (parts.size() > 3) return null;
        String alias = null;
        if (k < end && t.get(k).isWord("as")) k++;
        if (k == end - 1 && Identifiers.isIdentifier(t.get(k)) && !OuterClauses.keyword(t.get(k))) {
            alias = Identifiers.unquote(t.get(k).text());
            k++;
        }
        if (k != end) return null;
        String column = parts.get(parts.size() - 1);
        String qualifier = parts.size() >= 2 ? parts.get(parts.size() - 2) : null;
        return new PlainItem(index, qualifier, column, alias);
    }

    private static boolean columnWord(SqlToken t) {
        if (t.type() == SqlToken.Type.QUOTED_IDENTIFIER) return true;
        return t.type() == SqlToken.Type.WORD && !NOT_COLUMNS.contains(lower(t.text()));
    }

    /** ORDER BY 2 / GROUP BY 1: positions would shift when items move, so such queries are left alone. */
    private static boolean positional(OuterClauses q, Clause clause) {
        if (clause == null) return false;
        for (Clause e : q.elements(clause)) {
            if (q.tokens.get(e.start()).type() == SqlToken.Type.NUMBER) return true;
        }
        return false;
    }

    /** Lower-case identifiers (each part of a qualified name) used in a clause. */
    private static Set<String> identifiers(OuterClauses q, Clause clause) {
        Set<String> out = new HashSet<>();
        if (clause == null) return out;
        for (int k = clause.start(); k < clause.end(); k++) {
            SqlToken t = q.tokens.get(k);
            if (t.type() == SqlToken.Type.WORD || t.type() == SqlToken.Type.QUOTED_IDENTIFIER) {
                out.add(lower(Identifiers.unquote(t.text())));
            }
        }
        return out;
    }

    /**
     * Columns the outermost WHERE fixes to literals ({@code col = 'x'}, {@code 'x' = col}, {@code col IN ('a', 'b')})
     * in a conjunction without OR: their values are given by the question, so showing them adds nothing. Entries
     * are "column" and "qualifier.column", lower case.
     */
    private static Set<String> equalityConstrained(OuterClauses q) {
        Set<String> out = new HashSet<>();
        if (q.where == null) return out;
        List<SqlToken> t = q.tokens;
        List<Integer> ands = new ArrayList<>();
        int depth = 0;
        boolean between = false;
        for (int k = q.where.start() + 1; k < q.where.end(); k++) {
            if (t.get(k).isSymbol("(")) depth++;
            else if (t.get(k).isSymbol(")")) depth--;
            else if (depth == 0 && (t.get(k).isWord("or") || t.get(k).isSymbol("||") || t.get(k).isWord("xor"))) {
                return out;
            } else if (depth == 0 && t.get(k).isWord("between")) {
                between = true; // its AND is not a conjunction
            } else if (depth == 0 && (t.get(k).isWord("and") || t.get(k).isSymbol("&&"))) {
                if (between) between = false;
                else ands.add(k);
            }
        }
        int from = q.where.start() + 1;
        ands.add(q.where.end());
        for (int a : ands) {
            constrainedColumn(t, from, a, out);
            from = a + 1;
        }
        return out;
    }

    /** Adds "col" for an unqualified constraint, "q.col" and "*.col" for a qualified one (an unqualified item is unambiguous). */
    private static void addConstrained(String qualifier, String column, Set<String> out) {
        if (qualifier == null) {
            out.add(lower(column));
        } else {
            out.add(lower(qualifier + "." + column));
            out.add(lower("*." + column));
        }
    }

    private static void constrainedColumn(List<SqlToken> t, int start, int end, Set<String> out) {
        int n = end - start;
        if (n == 3 && t.get(start + 1).isSymbol("=")) {
            if (literal(t.get(start + 2)) && columnWord(t.get(start))) addConstrained(null, unq(t, start), out);
            if (literal(t.get(start)) && columnWord(t.get(start + 2))) addConstrained(null, unq(t, start + 2), out);
            return;
        }
        if (n == 5 && t.get(start + 1).isSymbol(".") && t.get(start + 3).isSymbol("=") && literal(t.get(start + 4))) {
            addConstrained(unq(t, start), unq(t, start + 2), out);
            return;
        }
        if (n == 5 && t.get(start + 1).isSymbol("=") && literal(t.get(start)) && t.get(start + 3).isSymbol(".")) {
            addConstrained(unq(t, start + 2), unq(t, start + 4), out);
            return;
        }
        // col IN (literal, ...) and t.col IN (literal, ...)
        int k = start;
        String qualifier = null;
        if (k + 2 < end && t.get(k + 1).isSymbol(".")) {
            qualifier = Identifiers.unquote(t.get(k).text());
            k += 2;
        }
        if (k + 2 < end && columnWord(t.get(k)) && t.get(k + 1).isWord("in") && t.get(k + 2).isSymbol("(")
                && t.get(end - 1).isSymbol(")")) {
            for (int j = k + 3; j < end - 1; j++) {
                boolean ok = (j - k - 3) % 2 == 0 ? literal(t.get(j)) : t.get(j).isSymbol(",");
                if (!ok) return;
            }
            addConstrained(qualifier, unq(t, k), out);
        }
    }

    private static String unq(List<SqlToken> t, int k) {
        return Identifiers.unquote(t.get(k).text());
    }

    private static boolean literal(SqlToken t) {
        return t.type() == SqlToken.Type.STRING || t.type() == SqlToken.Type.NUMBER;
    }

    /** A column word (not a word of its table's noun, not number/code/id/...) occurring in the question. */
    private static boolean supported(String column, List<Table> owners, Set<String> questionWords) {
        if (questionWords.isEmpty()) return false;
        Lexicon lx = Lexicon.get();
        Set<String> tableWords = new HashSet<>();
        for (Table t : owners) tableWords.addAll(Names.identifierWords(t.name()));
        for (String w : Names.identifierWords(column)) {
            if (!tableWords.contains(w) && !lx.in("generic-column-word", w) && questionWords.contains(w)) return true;
        }
        return false;
    }

    /** Part of its table's primary key, or a name ("customerName", "lastName"): it may be what identifies an answer. */
    private static boolean identifying(String column, List<Table> owners) {
        if (Names.identifierWords(column).contains("name")) return true;
        for (Table t : owners) {
            for (String pk : t.primaryKey()) if (pk.equalsIgnoreCase(column)) return true;
        }
        return false;
    }

    private static Set<String> questionWords(String question) {
        Set<String> out = new HashSet<>();
        for (QuestionText.Token t : QuestionText.of(question).tokens()) {
            if (t.kind() == Kind.WORD) out.add(t.norm());
        }
        return out;
    }

    /** The outermost FROM clause's sources: alias (or table name) -> schema table, or no table for derived ones. */
    private record Sources(Map<String, Table> byAlias, boolean opaque) {
        static Sources of(OuterClauses q, Schema schema) {
            Map<String, Table> byAlias = new HashMap<>();
            if (q.from == null) return new Sources(byAlias, true);
            boolean opaque = false;
            for (OuterClauses.Source source : q.sources()) {
                if (source.name() == null) {
                    // a derived table or a parenthesised join: its columns are not resolved here
                    opaque = true;
                    if (source.alias() != null) byAlias.put(lower(source.alias()), null);
                    continue;
                }
                Table table = q.cteNames.contains(lower(source.name())) ? null : schema.table(source.name()).orElse(null);
                if (table == null) opaque = true;
                byAlias.put(lower(source.alias()), table);
            }
            return new Sources(byAlias, opaque);
        }

        /** Schema tables the column reference can come from; empty when it may come from a derived source. */
        List<Table> owners(String qualifier, String column) {
            List<Table> out = new ArrayList<>();
            if (qualifier != null) {
                Table t = byAlias.get(lower(qualifier));
                if (t != null && t.column(column).isPresent()) out.add(t);
                return out;
            }
            if (opaque) return out;
            for (Table t : byAlias.values()) if (t != null && t.column(column).isPresent() && !out.contains(t)) out.add(t);
            return out;
        }
    }
}
