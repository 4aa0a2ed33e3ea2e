package dev.ladder.sql.read;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The clauses of the outermost query of one SELECT statement, found from lexer tokens at parenthesis depth 0 (so
 * subqueries, CTE bodies, OVER (...) and GROUP_CONCAT(... ORDER BY ...) are never mistaken for them). Edits made
 * from these spans leave every other character of the statement as it was.
 */
public final class OuterClauses {

    /** Significant tokens [start, end) of one clause, its keyword(s) included. */
    public record Clause(int start, int end) {}


    public final String sql;
    public final List<SqlToken> tokens;
    /** Names defined by a leading WITH clause (lower case). */
    public final Set<String> cteNames;
    public final boolean setOperation;
    /** The outermost SELECT ... list; null for a set operation (its branches are not the outermost query). */
    public final Clause select;
    /** The DISTINCT / DISTINCTROW keyword of the outermost SELECT, or -1. */
    public final int distinct;
    /** Outermost SELECT items (token ranges, commas excluded); empty for a set operation. */
    public final List<Clause> items;
    public final Clause from;
    public final Clause where;
    public final Clause groupBy;
    public final Clause having;
    public final Clause orderBy;
    public final Clause limit;

    private OuterClauses(String sql, List<SqlToken> tokens, Set<String> cteNames, boolean setOperation, Clause select,
                       int distinct, List<Clause> items, Clause from, Clause where, Clause groupBy, Clause having,
                       Clause orderBy, Clause limit) {
        this.sql = sql;
        this.tokens = tokens;
        this.cteNames = cteNames;
        this.setOperation = setOperation;
        this.select = select;
        this.distinct = distinct;
        this.items = items;
        this.from = from;
        this.where = where;
        this.groupBy = groupBy;
        this.having = having;
        this.orderBy = orderBy;
        this.limit = limit;
    }

    /** The outer clauses of a read query (its dialect's lexical rules; MySQL's when it has none). */
    static Optional<OuterClauses> of(Query q) {
        return parse(q.text(), q.dialect() == null ? Dialect.MYSQL : q.dialect());
    }

    /**
     * The structure of {@code sql} as written (token offsets index {@code sql} itself, so edits keep every other
     * character), or empty when the text is not one plain SELECT statement this reader understands.
     */
    public static Optional<OuterClauses> parse(String sql, Dialect dialect) {
        List<SqlToken> toks;
        try {
            toks = new ArrayList<>(SqlLexer.significant(sql, dialect));
        } catch (SqlLexer.LexException e) {
            return Optional.empty();
        }
        while (!toks.isEmpty() && toks.get(toks.size() - 1).isSymbol(";")) toks.remove(toks.size() - 1);
        for (SqlToken t : toks) {
            // a second statement, or server-executed comment text, is beyond a clause-level edit
            if (t.isSymbol(";") || t.type() == SqlToken.Type.EXECUTABLE_COMMENT) return Optional.empty();
        }
        if (toks.isEmpty()) return Optional.empty();

        int i = 0;
        Set<String> ctes = new HashSet<>();
        if (toks.get(0).isWord("with")) {
            i = 1;
            if (i < toks.size() && toks.get(i).isWord("recursive")) i++;
            while (true) {
                if (i >= toks.size() || !Identifiers.isIdentifier(toks.get(i))) return Optional.empty();
                ctes.add(Identifiers.unquote(toks.get(i).text()).toLowerCase(Locale.ROOT));
                i++;
                if (i < toks.size() && toks.get(i).isSymbol("(")) i = Query.close(toks, i) + 1;
                if (i >= toks.size() || !toks.get(i).isWord("as")) return Optional.empty();
                i++;
                if (i < toks.size() && toks.get(i).isWord("not")) i++;
                if (i < toks.size() && toks.get(i).isWord("materialized")) i++;
                if (i >= toks.size() || !toks.get(i).isSymbol("(")) return Optional.empty();
                i = Query.close(toks, i) + 1;
                if (i <= 0 || i > toks.size()) return Optional.empty();
                if (i < toks.size() && toks.get(i).isSymbol(",")) {
                    i++;
                    continue;
                }
                break;
            }
        }
        if (i >= toks.size() || !toks.get(i).isWord("select")) return Optional.empty();

        // clause keywords at depth 0, in order of appearance
        List<int[]> marks = new ArrayList<>(); // {kind, token}
        int depth = 0;
        int lastSetOp = -1;
        for (int k = i; k < toks.size(); k++) {
            SqlToken t = toks.get(k);
            if (t.isSymbol("(")) depth++;
            else if (t.isSymbol(")")) {
                if (--depth < 0) return Optional.empty();
            }
            if (depth != 0 || t.type() != SqlToken.Type.WORD) continue;
            String w = t.text().toLowerCase(Locale.ROOT);
            boolean by = k + 1 < toks.size() && toks.get(k + 1).isWord("by");
            int kind = switch (w) {
                case "select" -> SELECT;
                case "from" -> FROM;
                case "where" -> WHERE;
                case "group" -> by ? GROUP : -1;
                case "having" -> HAVING;
                case "window" -> WINDOW;
                case "order" -> by ? ORDER : -1;
                case "limit" -> LIMIT;
                case "for", "lock", "into", "procedure" -> TAIL;
                default -> SqlVocabulary.SET_OPERATIONS.contains(SqlVocabulary.upper(w)) ? SET_OP : -1;
            };
            if (kind == SET_OP) lastSetOp = k;
            if (kind >= 0) marks.add(new int[] {kind, k});
        }
        if (depth != 0) return Optional.empty();

        boolean setOp = lastSetOp >= 0;
        Clause[] clauses = new Clause[TAIL + 1];
        for (int m = 0; m < marks.size(); m++) {
            int kind = marks.get(m)[0];
            int start = marks.get(m)[1];
            int end = m + 1 < marks.size() ? marks.get(m + 1)[1] : toks.size();
            if (kind == SET_OP) continue;
            if (setOp && start < lastSetOp) continue; // inside a branch
            if (setOp && kind != ORDER && kind != LIMIT && kind != TAIL) continue; // the last branch's own clauses
            if (clauses[kind] == null) clauses[kind] = new Clause(start, end);
            else if (kind == SELECT) return Optional.empty(); // a second SELECT at depth 0 without a set operator
        }
        if (!setOp && clauses[SELECT] == null) return Optional.empty();

        int distinct = -1;
        List<Clause> items = new ArrayList<>();
        if (!setOp) {
            Clause sel = clauses[SELECT];
            int k = sel.start() + 1;
            while (k < sel.end()) {
                SqlToken t = toks.get(k);
                if (t.isWord("distinct") || t.isWord("distinctrow")) distinct = k;
                else if (!SqlVocabulary.is(t, SqlVocabulary.SELECT_MODIFIERS)) {
                    break;
                }
                k++;
            }
            items = split(toks, k, sel.end());
            if (items.isEmpty()) return Optional.empty();
        }
        return Optional.of(new OuterClauses(sql, List.copyOf(toks), Set.copyOf(ctes), setOp, setOp ? null : clauses[SELECT],
                distinct, List.copyOf(items), clauses[FROM], clauses[WHERE], clauses[GROUP], clauses[HAVING],
                clauses[ORDER], clauses[LIMIT]));
    }

    private static final int SELECT = 0, FROM = 1, WHERE = 2, GROUP = 3, HAVING = 4, WINDOW = 5, ORDER = 6,
            LIMIT = 7, SET_OP = 8, TAIL = 9;

    /** Comma-separated elements of tokens [start, end) at depth 0 relative to start. */
    public static List<Clause> split(List<SqlToken> toks, int start, int end) {
        List<Clause> out = new ArrayList<>();
        int depth = 0;
        int from = start;
        for (int k = start; k < end; k++) {
            SqlToken t = toks.get(k);
            if (t.isSymbol("(")) depth++;
            else if (t.isSymbol(")")) depth--;
            else if (depth == 0 && t.isSymbol(",")) {
                if (k > from) out.add(new Clause(from, k));
                from = k + 1;
            }
        }
        if (end > from) out.add(new Clause(from, end));
        return out;
    }

    /** The elements of a clause after its keyword(s): GROUP BY / ORDER BY lists. */
    public List<Clause> elements(Clause clause) {
        int k = clause.start() + 1;
        if (k < clause.end() && tokens.get(k).isWord("by")) k++;
        return split(tokens, k, clause.end());
    }

    public String text(Clause c) {
        return sql.substring(tokens.get(c.start()).start(), tokens.get(c.end() - 1).end());
    }

    /** Character offset where the text removed with a clause starts: the end of the token before it. */
    public int removalStart(int token) {
        return token == 0 ? 0 : tokens.get(token - 1).end();
    }

    /** Whether tokens [start, end) contain an aggregate call of this query level (not in a subquery, not windowed). */
    public boolean hasAggregate(int start, int end) {
        for (int k = start; k < end; k++) {
            SqlToken t = tokens.get(k);
            if (t.isSymbol("(") && k + 1 < end && tokens.get(k + 1).isWord("select")) {
                k = Query.close(tokens, k); // a subquery aggregates at its own level
                continue;
            }
            if (SqlVocabulary.isAggregate(t)
                    && k + 1 < end && tokens.get(k + 1).isSymbol("(")) {
                int closing = Query.close(tokens, k + 1);
                if (closing + 1 < tokens.size() && tokens.get(closing + 1).isWord("over")) continue;
                return true;
            }
        }
        return false;
    }

    public boolean contains(int start, int end, String word) {
        for (int k = start; k < end; k++) if (tokens.get(k).isWord(word)) return true;
        return false;
    }

    /**
     * A FROM clause of exactly one base table: {@code t}, {@code t alias}, {@code t AS alias}, {@code db.t ...}.
     * Joins, comma lists, derived tables, CTE references and index hints are not.
     */
    public boolean singleTable() {
        if (from == null) return false;
        int k = from.start() + 1;
        int end = from.end();
        if (k >= end || !Identifiers.isIdentifier(tokens.get(k))) return false;
        if (cteNames.contains(Identifiers.unquote(tokens.get(k).text()).toLowerCase(Locale.ROOT))) return false; // may hide a join
        k++;
        if (k + 1 < end && tokens.get(k).isSymbol(".") && Identifiers.isIdentifier(tokens.get(k + 1))) k += 2;
        if (k < end && tokens.get(k).isWord("as")) k++;
        if (k < end && Identifiers.isIdentifier(tokens.get(k)) && !keyword(tokens.get(k))) k++;
        return k == end;
    }
    /**
     * One source of the outermost FROM clause: a named table ({@code name}, without a database prefix; {@code alias}
     * the alias or else the name) or a derived table or parenthesised join ({@code name} null, {@code alias} its
     * alias or null).
     */
    public record Source(String name, String alias) {}

    /** The outermost FROM clause's sources in order (joined, comma-separated); empty without a FROM. */
    public List<Source> sources() {
        List<Source> out = new ArrayList<>();
        if (from == null) return out;
        List<SqlToken> t = tokens;
        int k = from.start() + 1;
        int end = from.end();
        boolean expectTable = true;
        while (k < end) {
            SqlToken tok = t.get(k);
            if (expectTable) {
                if (tok.isSymbol("(")) {
                    k = Query.close(t, k) + 1;
                    if (k < end && t.get(k).isWord("as")) k++;
                    String alias = null;
                    if (k < end && Identifiers.isIdentifier(t.get(k)) && !keyword(t.get(k))) {
                        alias = Identifiers.unquote(t.get(k).text());
                        k++;
                    }
                    out.add(new Source(null, alias));
                    expectTable = false;
                    continue;
                }
                if (Identifiers.isIdentifier(tok) && !keyword(tok)) {
                    String name = Identifiers.unquote(tok.text());
                    k++;
                    if (k + 1 < end && t.get(k).isSymbol(".") && Identifiers.isIdentifier(t.get(k + 1))) {
                        name = Identifiers.unquote(t.get(k + 1).text());
                        k += 2;
                    }
                    String alias = name;
                    if (k < end && t.get(k).isWord("as")) k++;
                    if (k < end && Identifiers.isIdentifier(t.get(k)) && !keyword(t.get(k))) {
                        alias = Identifiers.unquote(t.get(k).text());
                        k++;
                    }
                    out.add(new Source(name, alias));
                    expectTable = false;
                    continue;
                }
                k++;
                continue;
            }
            if (tok.isSymbol(",") || tok.isWord("join") || tok.isWord("straight_join")) expectTable = true;
            else if (tok.isSymbol("(")) k = Query.close(t, k); // ON (...) / USING (...)
            k++;
        }
        return out;
    }


    /** Words that end a table reference rather than alias it. */
    public static boolean keyword(SqlToken t) {
        return SqlVocabulary.is(t, SqlVocabulary.TABLE_REFERENCE_ENDS);
    }
}
