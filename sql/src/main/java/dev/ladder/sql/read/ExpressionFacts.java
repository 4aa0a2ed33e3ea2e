package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import java.util.List;

/**
 * What a scan of one expression finds outside subqueries.
 *
 * @param aggregate  an aggregate call that is not a window function
 * @param column     a column reference outside every aggregate call
 * @param subquery   a parenthesised SELECT
 * @param onlyMinMax every aggregate call found is MIN or MAX
 */
public record ExpressionFacts(boolean aggregate, boolean column, boolean subquery, boolean onlyMinMax) {

    /** The facts of an expression's tokens ({@link Query#facts(String)} reads the text). */
    public static ExpressionFacts of(List<SqlToken> t) {
        boolean aggregate = false;
        boolean column = false;
        boolean subquery = false;
        boolean onlyMinMax = true;
        int i = 0;
        while (i < t.size()) {
            SqlToken tok = t.get(i);
            boolean call = i + 1 < t.size() && t.get(i + 1).isSymbol("(");
            if (tok.isSymbol("(") && i + 1 < t.size() && Query.startsQuery(t.get(i + 1))) {
                subquery = true;
                i = Query.close(t, i) + 1;
                continue;
            }
            if (call && SqlVocabulary.isAggregate(tok)) {
                int end = Query.close(t, i + 1);
                if (!(end + 1 < t.size() && t.get(end + 1).isWord("OVER"))) {
                    aggregate = true;
                    onlyMinMax &= tok.isWord("MIN") || tok.isWord("MAX");
                    i = end + 1;
                    continue;
                }
            }
            if (Identifiers.reference(t, i) != null) column = true;
            i++;
        }
        return new ExpressionFacts(aggregate, column, subquery, aggregate && onlyMinMax);
    }
}
