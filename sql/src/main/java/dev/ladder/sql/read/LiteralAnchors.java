package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which column a literal is compared with, read lexically: the test-suite generator's way of seeding each column with
 * the values the golds compare it to. It differs on purpose from {@link SchemaBinding}'s value conditions, the parsed
 * reading: it needs no parse and no scope, and it also anchors a literal compared with a function of a column
 * ({@code YEAR(orderDate) = 2004}), a {@code BETWEEN} range or a {@code CASE} in the SELECT list, which the binding's
 * conditions (a column compared with a literal in WHERE, ON or HAVING) leave out; the generator wants every such
 * value, and its stored suites were built from this reading.
 */
public final class LiteralAnchors {

    private LiteralAnchors() {}

    /**
     * The column the literal at {@code toks[i]} is compared with: walking left over operators, parentheses, literals
     * and the words of a condition (AND, NOT, IN, BETWEEN, LIKE, IS, NULL) to the nearest name in {@code columnNames}
     * (upper case) that is not a function call; null when another word comes first. Returns the name upper-cased.
     */
    public static String comparedColumn(List<SqlToken> toks, int i, Set<String> columnNames) {
        Set<String> skipWords = Set.of("AND", "NOT", "IN", "BETWEEN", "LIKE", "IS", "NULL");
        for (int k = i - 1; k >= 0 && k >= i - 40; k--) {
            SqlToken t = toks.get(k);
            switch (t.type()) {
                case WORD, QUOTED_IDENTIFIER -> {
                    String w = t.type() == SqlToken.Type.WORD ? t.text() : Identifiers.unquote(t.text());
                    String u = w.toUpperCase(Locale.ROOT);
                    if (columnNames.contains(u) && !(k + 1 < toks.size() && toks.get(k + 1).isSymbol("("))) return u;
                    if (!skipWords.contains(u)) return null;
                }
                case NUMBER, STRING -> { }
                case SYMBOL -> {
                    if (t.isSymbol(";")) return null;
                }
                default -> { }
            }
        }
        return null;
    }
}
