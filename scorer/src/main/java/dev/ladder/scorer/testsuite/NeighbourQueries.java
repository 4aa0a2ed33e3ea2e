package dev.ladder.scorer.testsuite;

import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.ExecutionMatch;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.SqlVocabulary;
import dev.ladder.sql.read.TableReferences;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Neighbour queries of a gold query (Zhong, Yu and Klein 2020, section 3): small edits of the gold
 * that usually change its meaning. A test suite is good when it tells every neighbour from its gold.
 *
 * <p>Edits work on the token stream of the gold (so literals and comments are never cut in half):
 * drop a token or a structured span (a condition, a whole clause, a select/group/order item, an
 * IN-list item); swap a token for another of its family (aggregates, comparisons, ASC/DESC,
 * arithmetic, AND/OR, LIKE/NOT LIKE, IN/NOT IN, EXISTS/NOT EXISTS, IS NULL/IS NOT NULL, LEFT
 * JOIN to JOIN, set operators, a column for another column of its table); perturb a literal (numbers
 * &plusmn;1, &plusmn;2 and a random nearby value; strings: prefixes, suffixes, LIKE wildcard edits;
 * dates &plusmn;1 day).
 *
 * <p>Edits known to keep the meaning are not made: dropping {@code AS}, {@code ASC}, an alias, a
 * table qualifier, {@code DISTINCT} (the evaluator drops it anyway), swapping a NOT NULL column for
 * another inside {@code COUNT(...)}, and editing a GROUP BY item that a primary key in the same
 * GROUP BY already determines. Output is deterministic: same gold, schema and seed, same list.
 * Whether a neighbour runs at all is the caller's check (on an empty copy of the schema).
 */
public final class NeighbourQueries {

    /** The kinds of edit, recorded with each neighbour. */
    public enum Edit {
        DROP_TOKEN, DROP_SPAN, SWAP_AGGREGATE, SWAP_COMPARISON, SWAP_ORDER, SWAP_ARITHMETIC, SWAP_CONNECTIVE,
        SWAP_LIKE, SWAP_IN, SWAP_EXISTS, SWAP_NULL_TEST, SWAP_JOIN, SWAP_SET_OPERATOR, SWAP_COLUMN,
        NUMBER, STRING, DATE
    }

    /** One neighbour: its SQL and the edit that made it. */
    public record Neighbour(String sql, Edit edit) {}

    private static final List<String> AGGREGATES = SqlVocabulary.SPIDER_AGGREGATES;
    private static final List<String> COMPARISONS = List.of("=", "<>", "<", ">", "<=", ">=");
    private static final List<String> ARITHMETIC = List.of("+", "-", "*", "/");
    private static final List<String> SET_OPERATORS = List.of("UNION", "UNION ALL", "INTERSECT", "EXCEPT");
    /** Words whose removal never changes the meaning (or only the column labels). */
    private static final Set<String> KEEP = Set.of("AS", "ASC", "INNER", "OUTER", "DISTINCT");
    /** Words that start a clause: a word before an operator that is one of them is no operand. */
    private static final Set<String> CLAUSE_START = Set.of("SELECT", "FROM", "WHERE", "GROUP", "HAVING", "ORDER",
            "LIMIT", "UNION", "INTERSECT", "EXCEPT", "WINDOW", "JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "ON",
            "STRAIGHT_JOIN", "NATURAL", "WITH");
    private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    /** Column swaps tried per column occurrence (chosen at random among the table's other columns). */
    private static final int COLUMN_SWAPS = 3;

    private final Schema schema;

    public NeighbourQueries(Schema schema) {
        this.schema = schema;
    }

    /**
     * The neighbours of {@code gold}, without duplicates and without any that normalises to the
     * gold itself; empty when the gold cannot be tokenised.
     */
    public List<Neighbour> generate(String gold, long seed) {
        List<SqlToken> toks;
        try {
            toks = SqlLexer.significant(gold, Dialect.MYSQL);
        } catch (SqlLexer.LexException e) {
            return List.of();
        }
        Random random = new Random(seed ^ (long) gold.hashCode() * 0x9E3779B97F4A7C15L);
        Generation g = new Generation(gold, toks, random);
        g.run();
        String goldKey = normalize(gold);
        Map<String, Neighbour> unique = new LinkedHashMap<>();
        for (Neighbour n : g.out) {
            String key = normalize(n.sql());
            if (key.equals(goldKey)) continue;
            unique.putIfAbsent(key, n);
        }
        return List.copyOf(unique.values());
    }

    /**
     * The comparison key of a query: the text the evaluator runs ({@link ExecutionMatch#prepare}),
     * as significant tokens with words upper-cased, single spaces, no trailing semicolon.
     */
    public static String normalize(String sql) {
        String prepared = ExecutionMatch.prepare(sql, ExOptions.DEFAULT, Dialect.MYSQL);
        List<SqlToken> toks;
        try {
            toks = new ArrayList<>(SqlLexer.significant(prepared, Dialect.MYSQL));
        } catch (SqlLexer.LexException e) {
            return prepared.strip().replaceAll("\\s+", " ");
        }
        while (!toks.isEmpty() && toks.get(toks.size() - 1).isSymbol(";")) toks.remove(toks.size() - 1);
        StringBuilder sb = new StringBuilder();
        for (SqlToken t : toks) {
            if (sb.length() > 0) sb.append(' ');
            sb.append(t.type() == SqlToken.Type.WORD ? t.text().toUpperCase(Locale.ROOT) : t.text());
        }
        return sb.toString();
    }

    /** One gold's worth of edits. */
    private final class Generation {
        final String src;
        final List<SqlToken> t;
        final Random random;
        final int[] depth;
        final int[] match;
        final List<Neighbour> out = new ArrayList<>();
        final Map<String, String> aliases = new HashMap<>(); // alias or table name (upper) -> table name
        final boolean[] frozen; // GROUP BY items determined by a primary key in the same GROUP BY

        Generation(String src, List<SqlToken> tokens, Random random) {
            this.src = src;
            this.t = tokens;
            this.random = random;
            this.depth = new int[tokens.size()];
            this.match = new int[tokens.size()];
            this.frozen = new boolean[tokens.size()];
            Arrays.fill(match, -1);
            ArrayDeque<Integer> open = new ArrayDeque<>();
            int d = 0;
            for (int i = 0; i < tokens.size(); i++) {
                SqlToken tok = tokens.get(i);
                if (tok.isSymbol("(")) {
                    depth[i] = d++;
                    open.push(i);
                } else if (tok.isSymbol(")")) {
                    d = Math.max(0, d - 1);
                    depth[i] = d;
                    if (!open.isEmpty()) {
                        int o = open.pop();
                        match[o] = i;
                        match[i] = o;
                    }
                } else {
                    depth[i] = d;
                }
            }
        }

        void run() {
            readTables();
            freezeDependentGroupItems();
            for (int i = 0; i < t.size(); i++) dropToken(i);
            spans();
            for (int i = 0; i < t.size(); i++) swaps(i);
            for (int i = 0; i < t.size(); i++) literals(i);
        }

        // ---- rendering ----

        /** The gold with tokens [from, to) replaced by {@code text}. */
        void emit(int from, int to, String text, Edit edit) {
            int a = t.get(from).start();
            int b = to > from ? t.get(to - 1).end() : a;
            String left = src.substring(0, a);
            String right = src.substring(b);
            String mid = text;
            if (!mid.isEmpty()) {
                if (!left.isEmpty() && wordy(left.charAt(left.length() - 1)) && wordy(mid.charAt(0))) mid = " " + mid;
                if (!right.isEmpty() && wordy(right.charAt(0)) && wordy(mid.charAt(mid.length() - 1))) mid = mid + " ";
            } else if (!left.isEmpty() && !right.isEmpty() && wordy(left.charAt(left.length() - 1)) && wordy(right.charAt(0))) {
                mid = " ";
            }
            out.add(new Neighbour((left + mid + right).strip(), edit));
        }

        boolean wordy(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '\'' || c == '`' || c == '"';
        }

        boolean word(int i, String w) {
            return i >= 0 && i < t.size() && t.get(i).isWord(w);
        }

        boolean symbol(int i, String s) {
            return i >= 0 && i < t.size() && t.get(i).isSymbol(s);
        }

        String upper(int i) {
            return t.get(i).text().toUpperCase(Locale.ROOT);
        }

        // ---- context: tables and aliases ----

        void readTables() {
            // the query model's table references and their aliases, kept to the schema's tables
            TableReferences.of(t).qualifiers().forEach((qualifier, table) ->
                    schema.table(table).ifPresent(tb -> aliases.put(qualifier.toUpperCase(Locale.ROOT), tb.name())));
        }

        boolean isKeywordAfterTable(int k) {
            return Set.of("WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "ON", "USING", "JOIN", "LEFT", "RIGHT",
                    "INNER", "CROSS", "NATURAL", "UNION", "INTERSECT", "EXCEPT").contains(upper(k));
        }

        Optional<Table> tableAt(int i) {
            if (i >= t.size()) return Optional.empty();
            SqlToken tok = t.get(i);
            String name = tok.type() == SqlToken.Type.QUOTED_IDENTIFIER ? Identifiers.unquote(tok.text()) : tok.text();
            if (tok.type() != SqlToken.Type.WORD && tok.type() != SqlToken.Type.QUOTED_IDENTIFIER) return Optional.empty();
            if (symbol(i + 1, "(") || symbol(i + 1, ".")) return Optional.empty();
            return schema.table(name);
        }

        /** The table a column token belongs to, if it is a column of a table this query reads. */
        Optional<Table> columnTable(int i) {
            SqlToken tok = t.get(i);
            if (tok.type() != SqlToken.Type.WORD && tok.type() != SqlToken.Type.QUOTED_IDENTIFIER) return Optional.empty();
            if (symbol(i + 1, "(") || symbol(i + 1, ".") || word(i - 1, "AS")) return Optional.empty();
            String name = tok.type() == SqlToken.Type.QUOTED_IDENTIFIER ? Identifiers.unquote(tok.text()) : tok.text();
            if (symbol(i - 1, ".")) {
                if (i < 2) return Optional.empty();
                String table = aliases.get(t.get(i - 2).text().toUpperCase(Locale.ROOT));
                if (table == null) return Optional.empty();
                return schema.table(table).filter(tb -> tb.column(name).isPresent());
            }
            // unqualified: the first table of the query that has it
            for (String table : new TreeSet<>(aliases.values())) {
                Optional<Table> tb = schema.table(table);
                if (tb.isPresent() && tb.get().column(name).isPresent()) {
                    if (tableAt(i).isPresent() && (word(i - 1, "FROM") || word(i - 1, "JOIN"))) return Optional.empty();
                    return tb;
                }
            }
            return Optional.empty();
        }

        /** GROUP BY a, b: when a is the whole primary key of b's table, b is frozen. */
        void freezeDependentGroupItems() {
            for (int i = 0; i + 1 < t.size(); i++) {
                if (!(word(i, "GROUP") && word(i + 1, "BY"))) continue;
                List<int[]> items = items(i + 2, clauseEnd(i + 2, depth[i]));
                Map<String, Integer> pkTables = new HashMap<>();
                for (int[] it : items) {
                    int last = it[1] - 1;
                    Optional<Table> tb = columnTable(last);
                    if (tb.isPresent() && tb.get().primaryKey().size() == 1
                            && tb.get().primaryKey().get(0).equalsIgnoreCase(bareName(last))) {
                        pkTables.put(qualifier(last), last);
                    }
                }
                for (int[] it : items) {
                    int last = it[1] - 1;
                    Integer pk = pkTables.get(qualifier(last));
                    if (pk != null && pk != last && columnTable(last).isPresent()) {
                        for (int k = it[0]; k < it[1]; k++) frozen[k] = true;
                    }
                }
            }
        }

        String bareName(int i) {
            SqlToken tok = t.get(i);
            return tok.type() == SqlToken.Type.QUOTED_IDENTIFIER ? Identifiers.unquote(tok.text()) : tok.text();
        }

        /** The alias a column is qualified with (upper case), or its table for unqualified columns. */
        String qualifier(int i) {
            if (symbol(i - 1, ".") && i >= 2) return t.get(i - 2).text().toUpperCase(Locale.ROOT);
            return columnTable(i).map(tb -> tb.name().toUpperCase(Locale.ROOT)).orElse("?");
        }

        // ---- drops ----

        void dropToken(int i) {
            SqlToken tok = t.get(i);
            if (frozen[i]) return;
            if (tok.type() == SqlToken.Type.WORD && KEEP.contains(upper(i))) return;
            if (tok.isSymbol(";") || tok.isSymbol(".") || symbol(i + 1, ".") || symbol(i - 1, ".")) return;
            if (word(i - 1, "AS")) return; // an alias
            if (i > 0 && tableAt(i - 1).isPresent() && aliases.containsKey(upper(i)) && !isKeywordAfterTable(i)) return;
            emit(i, i + 1, "", Edit.DROP_TOKEN);
        }

        void spans() {
            for (int i = 0; i < t.size(); i++) {
                SqlToken tok = t.get(i);
                int d = depth[i];
                if (word(i, "WHERE") || word(i, "HAVING") || word(i, "ON")) {
                    int end = clauseEnd(i + 1, d);
                    emit(i, end, "", Edit.DROP_SPAN); // the whole clause (ON: a cross join)
                    conditions(i + 1, end);
                } else if ((word(i, "ORDER") || word(i, "GROUP")) && word(i + 1, "BY")) {
                    int end = clauseEnd(i + 2, d);
                    if (!frozenRange(i + 2, end)) emit(i, end, "", Edit.DROP_SPAN);
                    dropItems(items(i + 2, end));
                    if (word(i, "ORDER")) orderDirections(items(i + 2, end));
                } else if (word(i, "LIMIT")) {
                    emit(i, clauseEnd(i + 1, d), "", Edit.DROP_SPAN);
                } else if (word(i, "SELECT")) {
                    int from = i + 1;
                    while (from < t.size() && (word(from, "DISTINCT") || word(from, "ALL"))) from++;
                    int end = from;
                    while (end < t.size() && !(depth[end] == d && (word(end, "FROM") || isClauseAt(end, d)))) {
                        if (depth[end] < d) break;
                        end++;
                    }
                    dropItems(items(from, end));
                } else if (word(i, "IN") && symbol(i + 1, "(") && match[i + 1] > 0 && !word(i + 2, "SELECT")) {
                    dropItems(items(i + 2, match[i + 1]));
                } else if (tok.type() == SqlToken.Type.WORD && upper(i).equals("WITH")) {
                    // CTE bodies are edited token by token like the rest
                }
            }
        }

        boolean frozenRange(int from, int to) {
            for (int k = from; k < to; k++) if (frozen[k]) return true;
            return false;
        }

        boolean isClauseAt(int i, int d) {
            if (depth[i] != d || t.get(i).type() != SqlToken.Type.WORD) return false;
            String w = upper(i);
            return switch (w) {
                case "WHERE", "HAVING", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "WINDOW", "FROM" -> true;
                case "GROUP", "ORDER" -> word(i + 1, "BY");
                default -> false;
            };
        }

        /** First token index at or after {@code from} that ends a clause at depth {@code d}. */
        int clauseEnd(int from, int d) {
            int k = from;
            while (k < t.size()) {
                if (depth[k] < d) return k;
                if (depth[k] == d) {
                    if (symbol(k, ")") || symbol(k, ";") || isClauseAt(k, d)) return k;
                    if (t.get(k).type() == SqlToken.Type.WORD && Set.of("JOIN", "LEFT", "RIGHT", "INNER", "CROSS",
                            "NATURAL", "STRAIGHT_JOIN").contains(upper(k))) return k;
                }
                k++;
            }
            return k;
        }

        /** Comma-separated items of [from, to) at the depth of {@code from}: pairs [start, end). */
        List<int[]> items(int from, int to) {
            List<int[]> res = new ArrayList<>();
            if (from >= to) return res;
            int d = depth[from];
            int start = from;
            for (int k = from; k < to; k++) {
                if (depth[k] == d && symbol(k, ",")) {
                    res.add(new int[] {start, k});
                    start = k + 1;
                }
            }
            res.add(new int[] {start, to});
            return res;
        }

        void dropItems(List<int[]> items) {
            if (items.size() < 2) return;
            for (int n = 0; n < items.size(); n++) {
                int[] it = items.get(n);
                if (frozenRange(it[0], it[1])) continue;
                if (n == 0) emit(it[0], items.get(1)[0], "", Edit.DROP_SPAN);
                else emit(items.get(n - 1)[1], it[1], "", Edit.DROP_SPAN); // with the comma before it
            }
        }

        /** Conditions of a WHERE/HAVING/ON body joined by AND/OR (not BETWEEN's AND): drop each with its connective. */
        void conditions(int from, int to) {
            if (from >= to) return;
            int d = depth[from];
            List<Integer> connectives = new ArrayList<>();
            boolean between = false;
            for (int k = from; k < to; k++) {
                if (depth[k] != d) continue;
                if (word(k, "BETWEEN")) between = true;
                else if (word(k, "AND") && between) between = false;
                else if (word(k, "AND") || word(k, "OR")) connectives.add(k);
            }
            if (connectives.isEmpty()) return;
            List<int[]> parts = new ArrayList<>();
            int start = from;
            for (int c : connectives) {
                parts.add(new int[] {start, c});
                start = c + 1;
            }
            parts.add(new int[] {start, to});
            for (int n = 0; n < parts.size(); n++) {
                int[] p = parts.get(n);
                if (n == 0) emit(p[0], parts.get(1)[0], "", Edit.DROP_SPAN);
                else emit(connectives.get(n - 1), p[1], "", Edit.DROP_SPAN);
            }
        }

        /** ORDER BY items without a direction get DESC. */
        void orderDirections(List<int[]> items) {
            for (int[] it : items) {
                int last = it[1] - 1;
                if (last < it[0] || word(last, "ASC") || word(last, "DESC")) continue;
                emit(last, last + 1, t.get(last).text() + " DESC", Edit.SWAP_ORDER);
            }
        }

        // ---- swaps ----

        void swaps(int i) {
            SqlToken tok = t.get(i);
            if (frozen[i]) return;
            String u = upper(i);
            if (tok.type() == SqlToken.Type.WORD) {
                if (AGGREGATES.contains(u) && symbol(i + 1, "(")) {
                    for (String a : AGGREGATES) if (!a.equals(u)) emit(i, i + 1, a, Edit.SWAP_AGGREGATE);
                }
                if (u.equals("ASC")) emit(i, i + 1, "DESC", Edit.SWAP_ORDER);
                if (u.equals("DESC")) emit(i, i + 1, "ASC", Edit.SWAP_ORDER);
                if ((u.equals("AND") || u.equals("OR")) && !betweenAnd(i)) {
                    emit(i, i + 1, u.equals("AND") ? "OR" : "AND", Edit.SWAP_CONNECTIVE);
                }
                if (u.equals("LIKE")) {
                    if (word(i - 1, "NOT")) emit(i - 1, i + 1, "LIKE", Edit.SWAP_LIKE);
                    else emit(i, i + 1, "NOT LIKE", Edit.SWAP_LIKE);
                }
                if (u.equals("IN") && symbol(i + 1, "(")) {
                    if (word(i - 1, "NOT")) emit(i - 1, i + 1, "IN", Edit.SWAP_IN);
                    else emit(i, i + 1, "NOT IN", Edit.SWAP_IN);
                }
                if (u.equals("EXISTS")) {
                    if (word(i - 1, "NOT")) emit(i - 1, i + 1, "EXISTS", Edit.SWAP_EXISTS);
                    else emit(i, i + 1, "NOT EXISTS", Edit.SWAP_EXISTS);
                }
                if (u.equals("IS")) {
                    if (word(i + 1, "NOT")) emit(i, i + 2, "IS", Edit.SWAP_NULL_TEST);
                    else if (word(i + 1, "NULL")) emit(i, i + 1, "IS NOT", Edit.SWAP_NULL_TEST);
                }
                // JOIN -> LEFT JOIN is not tried: along a NOT NULL foreign key, or under a WHERE on the
                // right table, it means the same, and such joins are most joins of a benchmark
                if (u.equals("JOIN") && (word(i - 1, "LEFT") || word(i - 1, "RIGHT"))) {
                    emit(i - 1, i + 1, "JOIN", Edit.SWAP_JOIN);
                }
                if (u.equals("UNION") || u.equals("INTERSECT") || u.equals("EXCEPT")) {
                    boolean all = word(i + 1, "ALL");
                    String current = all ? "UNION ALL" : u;
                    for (String op : SET_OPERATORS) {
                        if (!op.equals(current)) emit(i, all ? i + 2 : i + 1, op, Edit.SWAP_SET_OPERATOR);
                    }
                }
                columnSwaps(i);
            } else if (tok.type() == SqlToken.Type.QUOTED_IDENTIFIER) {
                columnSwaps(i);
            } else if (tok.type() == SqlToken.Type.SYMBOL) {
                String s = tok.text().equals("!=") ? "<>" : tok.text();
                if (COMPARISONS.contains(s)) {
                    for (String c : COMPARISONS) if (!c.equals(s)) emit(i, i + 1, c, Edit.SWAP_COMPARISON);
                }
                if (ARITHMETIC.contains(s) && binary(i)) {
                    for (String a : ARITHMETIC) if (!a.equals(s)) emit(i, i + 1, a, Edit.SWAP_ARITHMETIC);
                }
            }
        }

        boolean betweenAnd(int i) {
            for (int k = i - 1; k >= 0; k--) {
                if (depth[k] < depth[i]) return false;
                if (depth[k] > depth[i]) continue;
                if (word(k, "BETWEEN")) return true;
                if (word(k, "AND") || word(k, "OR") || word(k, "WHERE") || word(k, "ON") || word(k, "HAVING")) return false;
            }
            return false;
        }

        /** An operator between two operands (not {@code COUNT(*)}, {@code t.*} or a sign). */
        boolean binary(int i) {
            if (i == 0 || i + 1 >= t.size()) return false;
            SqlToken prev = t.get(i - 1);
            SqlToken next = t.get(i + 1);
            boolean prevOperand = prev.type() == SqlToken.Type.NUMBER || prev.type() == SqlToken.Type.STRING
                    || prev.type() == SqlToken.Type.QUOTED_IDENTIFIER || prev.isSymbol(")")
                    || (prev.type() == SqlToken.Type.WORD && !CLAUSE_START.contains(prev.text().toUpperCase(Locale.ROOT))
                        && !Set.of("AND", "OR", "NOT", "BY", "DISTINCT").contains(prev.text().toUpperCase(Locale.ROOT)));
            boolean nextOperand = !next.isSymbol(")") && !next.isSymbol(",") && !next.isWord("FROM");
            return prevOperand && nextOperand;
        }

        void columnSwaps(int i) {
            Optional<Table> table = columnTable(i);
            if (table.isEmpty()) return;
            String name = bareName(i);
            Column col = table.get().column(name).orElseThrow();
            boolean inCount = insideCount(i);
            List<Column> others = new ArrayList<>();
            for (Column c : table.get().columns()) {
                if (c.name().equalsIgnoreCase(name)) continue;
                if (inCount && !col.nullable() && !c.nullable()) continue; // COUNT(x) = COUNT(y) for NOT NULL x, y
                if (c.type().contains("blob")) continue;
                others.add(c);
            }
            Collections.shuffle(others, random);
            for (int n = 0; n < Math.min(COLUMN_SWAPS, others.size()); n++) {
                emit(i, i + 1, others.get(n).name(), Edit.SWAP_COLUMN);
            }
        }

        boolean insideCount(int i) {
            for (int k = i - 1; k >= 1; k--) {
                if (symbol(k, "(") && match[k] > i) return word(k - 1, "COUNT");
                if (depth[k] < depth[i] - 1) return false;
            }
            return false;
        }

        // ---- literals ----

        void literals(int i) {
            SqlToken tok = t.get(i);
            if (tok.type() == SqlToken.Type.NUMBER) {
                // SELECT 1 FROM ... (EXISTS bodies): the value is never looked at
                if (word(i - 1, "SELECT") && (word(i + 1, "FROM") || symbol(i + 1, ","))) return;
                numbers(i, tok.text());
            } else if (tok.type() == SqlToken.Type.STRING) {
                String value = Identifiers.stringValue(tok.text());
                if (DATE.matcher(value).matches()) dates(i, value);
                else if (word(i - 1, "LIKE")) likePatterns(i, value);
                else strings(i, value);
            }
        }

        void numbers(int i, String text) {
            BigDecimal v;
            try {
                v = new BigDecimal(text);
            } catch (NumberFormatException e) {
                return;
            }
            boolean limit = word(i - 1, "LIMIT") || symbol(i - 1, ",") && word(i - 2, "LIMIT");
            List<BigDecimal> deltas = new ArrayList<>(List.of(BigDecimal.ONE, BigDecimal.valueOf(2),
                    BigDecimal.ONE.negate(), BigDecimal.valueOf(-2)));
            long spread = Math.max(5, v.abs().longValue() / 10);
            long r = 3 + (long) (random.nextDouble() * (spread - 2));
            deltas.add(BigDecimal.valueOf(random.nextBoolean() ? r : -r));
            for (BigDecimal delta : deltas) {
                BigDecimal nv = v.add(delta);
                if (limit && nv.signum() <= 0) continue;
                emit(i, i + 1, nv.toPlainString(), Edit.NUMBER);
            }
        }

        void dates(int i, String value) {
            LocalDate d;
            try {
                d = LocalDate.parse(value);
            } catch (DateTimeParseException e) {
                return;
            }
            emit(i, i + 1, quote(d.plusDays(1).toString()), Edit.DATE);
            emit(i, i + 1, quote(d.minusDays(1).toString()), Edit.DATE);
        }

        void strings(int i, String value) {
            String v = value.strip();
            if (v.length() < 2) return;
            emit(i, i + 1, quote(v.substring(0, v.length() - 1).strip()), Edit.STRING);
            String half = v.substring(0, (v.length() + 1) / 2).strip();
            if (!half.isEmpty()) emit(i, i + 1, quote(half), Edit.STRING);
            String suffix = v.substring(1).strip();
            if (!suffix.isEmpty()) emit(i, i + 1, quote(suffix), Edit.STRING);
        }

        void likePatterns(int i, String pattern) {
            boolean lead = pattern.startsWith("%");
            boolean trail = pattern.endsWith("%") && pattern.length() > 1;
            String core = pattern.substring(lead ? 1 : 0, pattern.length() - (trail ? 1 : 0));
            String l = lead ? "%" : "";
            String r = trail ? "%" : "";
            emit(i, i + 1, quote(lead ? core + r : "%" + core + r), Edit.STRING);
            emit(i, i + 1, quote(trail ? l + core : l + core + "%"), Edit.STRING);
            if (core.length() >= 2) {
                emit(i, i + 1, quote(l + core.substring(0, core.length() - 1) + r), Edit.STRING);
                emit(i, i + 1, quote(l + core.substring(1) + r), Edit.STRING);
                emit(i, i + 1, quote(l + core + "_" + r), Edit.STRING);
            }
        }
    }

    // ---- literal text ----

    /** A MySQL string literal for {@code value}. */
    static String quote(String value) {
        StringBuilder sb = new StringBuilder("'");
        for (int k = 0; k < value.length(); k++) {
            char c = value.charAt(k);
            if (c == '\'') sb.append("''");
            else if (c == '\\' && k + 1 < value.length() && (value.charAt(k + 1) == '%' || value.charAt(k + 1) == '_')) {
                sb.append(c);
            } else if (c == '\\') sb.append("\\\\");
            else sb.append(c);
        }
        return sb.append('\'').toString();
    }
}
