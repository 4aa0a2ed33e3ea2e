package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the post-processor (and the error taxonomy and gold features, for the tables read) need to know about a
 * statement's structure, read from its significant tokens without a parser (the statement may not parse): which words
 * name tables, which qualify columns, which names are CTEs or aliases, and whether any query reads a table.
 *
 * <p>A parenthesis opens a query when its first token is SELECT or WITH; FROM counts only in a query, so the FROM of
 * {@code EXTRACT(YEAR FROM orderDate)} names no table. Table positions: the word after FROM or JOIN, and after a comma
 * while a FROM list is open (it closes at WHERE, GROUP, HAVING, ORDER, LIMIT, a set operator, WINDOW or SELECT); the
 * last part of a dotted name there is the table ({@code db.table}).
 */
public final class TableReferences {

    private final List<SqlToken> sig;
    private final boolean[] tableName;
    private final boolean[] qualifier;
    private final boolean[] inTableRef;
    private final Set<String> cteNames = new HashSet<>();
    private final Set<String> aliases = new HashSet<>();
    /** What qualifies a table reference's columns (its alias, and its own name), lower case -> the table as written. */
    private final Map<String, String> qualifiers = new LinkedHashMap<>();
    private boolean readsTable;
    private boolean withHasSelect;

    private static final class Frame {
        final boolean query;
        boolean inFrom;

        Frame(boolean query) {
            this.query = query;
        }
    }

    private TableReferences(List<SqlToken> sig) {
        this.sig = sig;
        this.tableName = new boolean[sig.size()];
        this.qualifier = new boolean[sig.size()];
        this.inTableRef = new boolean[sig.size()];
    }

    /** {@code sig}: the statement's tokens without whitespace and comments. */
    public static TableReferences of(List<SqlToken> sig) {
        TableReferences shape = new TableReferences(sig);
        shape.walk();
        shape.findQualifiers();
        shape.findCteNames();
        return shape;
    }

    public boolean isTableName(int i) {
        return tableName[i];
    }

    public boolean isQualifier(int i) {
        return qualifier[i];
    }

    public boolean isCteName(String name) {
        return cteNames.contains(lower(name));
    }

    public boolean isAlias(String name) {
        return aliases.contains(lower(name));
    }

    /**
     * The names of the tables read anywhere, in the order they are first written: lower case, unquoted, the last part
     * of a dotted name, CTE names left out.
     */
    public Set<String> names() {
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < sig.size(); i++) {
            if (tableName[i]) out.add(lower(Identifiers.unquote(sig.get(i))));
        }
        out.removeAll(cteNames);
        return out;
    }

    /**
     * The names that qualify columns of a table reference, anywhere in the statement: each table's alias and its own
     * name (lower case), mapped to the table as written (unquoted, the last part of a dotted name). A name that two
     * references use maps to the later alias's table. Derived tables and CTE references are not resolved here.
     */
    public Map<String, String> qualifiers() {
        return Collections.unmodifiableMap(qualifiers);
    }

    /** Whether a FROM inside a query (not inside a function call) is present. */
    public boolean readsTable() {
        return readsTable;
    }

    /** For a WITH statement: whether a SELECT follows at the outer level. */
    public boolean withHasSelect() {
        return withHasSelect;
    }

    private void walk() {
        Deque<Frame> frames = new ArrayDeque<>();
        frames.push(new Frame(true));
        boolean expectTable = false;
        for (int i = 0; i < sig.size(); i++) {
            SqlToken t = sig.get(i);
            Frame f = frames.peek();
            if (expectTable) {
                expectTable = false;
                if (nameToken(t) && !isSymbol(i + 1, "(")) {
                    i = tableReference(i);
                    continue;
                }
                if (t.isSymbol("(") && !Query.startsQuery(at(i + 1))) {
                    // a parenthesised join, "FROM (a JOIN b ON ...)": its own FROM list
                    Frame group = new Frame(true);
                    group.inFrom = true;
                    frames.push(group);
                    expectTable = true;
                    continue;
                }
            }
            if (t.isSymbol("(")) {
                frames.push(new Frame(Query.startsQuery(at(i + 1))));
            } else if (t.isSymbol(")")) {
                if (frames.size() > 1) {
                    Frame closed = frames.pop();
                    if (closed.query && frames.peek().inFrom) alias(i + 1);
                }
            } else if (t.isSymbol(",")) {
                expectTable = f.query && f.inFrom;
            } else if (t.type() == SqlToken.Type.WORD) {
                String u = SqlVocabulary.upper(t.text());
                if (u.equals("FROM") && f.query) {
                    f.inFrom = true;
                    readsTable = true;
                    expectTable = true;
                } else if ((u.equals("JOIN") || u.equals("STRAIGHT_JOIN")) && f.query) {
                    f.inFrom = true;
                    expectTable = true;
                } else if (SqlVocabulary.FROM_LIST_ENDS.contains(u)) {
                    f.inFrom = false;
                    if (u.equals("SELECT") && frames.size() == 1) withHasSelect = true;
                } else if (u.equals("AS")) {
                    alias(i);
                }
            }
        }
    }

    /** Marks the dotted name starting at {@code i} as a table reference; returns the index of its last part. */
    private int tableReference(int i) {
        int end = i;
        while (isSymbol(end + 1, ".") && end + 2 < sig.size() && nameToken(sig.get(end + 2))) end += 2;
        for (int k = i; k <= end; k++) inTableRef[k] = true;
        tableName[end] = true;
        String table = Identifiers.unquote(sig.get(end));
        qualifiers.putIfAbsent(lower(table), table);
        String alias = alias(end + 1);
        if (alias != null) qualifiers.put(alias, table);
        return end;
    }

    /** Records the alias standing at {@code i}, after an optional AS; returns it (lower case), or null. */
    private String alias(int i) {
        int a = at(i) != null && at(i).isWord("AS") ? i + 1 : i;
        SqlToken t = at(a);
        if (t != null && nameToken(t) && !isSymbol(a + 1, ".") && !isSymbol(a + 1, "(")) {
            String alias = lower(Identifiers.unquote(t));
            aliases.add(alias);
            return alias;
        }
        return null;
    }

    /** {@code q.col}: q qualifies; {@code db.q.col}: the middle part does. */
    private void findQualifiers() {
        for (int i = 0; i + 2 < sig.size(); i++) {
            if (inTableRef[i] || !nameToken(sig.get(i)) || !isSymbol(i + 1, ".")) continue;
            if (i > 0 && isSymbol(i - 1, ".")) continue;
            boolean threeParts = isSymbol(i + 3, ".") && nameToken(sig.get(i + 2));
            qualifier[threeParts ? i + 2 : i] = true;
            i += threeParts ? 3 : 1;
        }
    }

    /** {@code WITH [RECURSIVE] name [(cols)] AS (} and {@code , name ... AS (}. */
    private void findCteNames() {
        if (sig.isEmpty() || !sig.get(0).isWord("WITH")) return;
        for (int i = 1; i < sig.size(); i++) {
            SqlToken before = sig.get(i - 1);
            if (!nameToken(sig.get(i))) continue;
            if (!before.isWord("WITH") && !before.isWord("RECURSIVE") && !before.isSymbol(",")) continue;
            int j = i + 1;
            if (isSymbol(j, "(")) j = Query.close(sig, j) + 1;
            if (j > i && at(j) != null && at(j).isWord("AS") && isSymbol(j + 1, "(")) {
                cteNames.add(lower(Identifiers.unquote(sig.get(i))));
            }
        }
    }

    private SqlToken at(int i) {
        return i >= 0 && i < sig.size() ? sig.get(i) : null;
    }

    private boolean isSymbol(int i, String s) {
        SqlToken t = at(i);
        return t != null && t.isSymbol(s);
    }

    /** A name that can stand for a table or alias: a quoted identifier, or a word that is not reserved. */
    private static boolean nameToken(SqlToken t) {
        return (t.type() == SqlToken.Type.WORD && !SqlVocabulary.isReserved(t)) || t.type() == SqlToken.Type.QUOTED_IDENTIFIER;
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
