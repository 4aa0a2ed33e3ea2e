package dev.ladder.scorer.bench;

import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Structural size of a gold SQL query, stored with every result row so that accuracy can be broken down by it.
 *
 * @param tables     distinct base tables used anywhere (CTE names excluded)
 * @param joins      JOIN clauses plus comma-joined FROM items beyond the first, at every query level
 * @param aggregates aggregate calls anywhere ({@link SqlVocabulary#AGGREGATES}; window aggregates too)
 * @param nesting    deepest subquery level: 0 without subqueries; a subquery, derived table or CTE body adds one
 */
public record GoldFeatures(int tables, int joins, int aggregates, int nesting) {

    /** The features of {@code sql}, read from its tokens (so SQL the parser rejects has them too); never throws. */
    public static GoldFeatures of(String sql) {
        Query q = Query.read(sql);
        List<SqlToken> t = q.tokens();
        int aggregates = 0;
        for (int i = 0; i + 1 < t.size(); i++) {
            if (SqlVocabulary.isAggregate(t.get(i)) && t.get(i + 1).isSymbol("(")) aggregates++;
        }
        return new GoldFeatures(q.tables().names().size(), q.joins(), aggregates, nesting(t));
    }

    /**
     * A parenthesis that opens a SELECT or WITH is one level deeper, unless it wraps the whole statement or a
     * set-operation branch.
     */
    private static int nesting(List<SqlToken> t) {
        Deque<Boolean> open = new ArrayDeque<>(); // per open parenthesis: whether it added a level
        int level = 0;
        int deepest = 0;
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i).isSymbol("(")) {
                boolean deeper = i + 1 < t.size() && Query.startsQuery(t.get(i + 1)) && !wrapsQuery(t, i);
                open.push(deeper);
                if (deeper) deepest = Math.max(deepest, ++level);
            } else if (t.get(i).isSymbol(")") && !open.isEmpty() && open.pop()) {
                level--;
            }
        }
        return deepest;
    }

    /** The parenthesis at {@code i} opens the statement or follows UNION [ALL | DISTINCT], INTERSECT, EXCEPT, MINUS. */
    private static boolean wrapsQuery(List<SqlToken> t, int i) {
        int before = i - 1;
        if (before >= 1 && (t.get(before).isWord("ALL") || t.get(before).isWord("DISTINCT"))) before--;
        return i == 0 || SqlVocabulary.is(t.get(before), SqlVocabulary.SET_OPERATIONS);
    }
}
