package dev.ladder.sql.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LiteralAnchorsTest {

    private static final Set<String> COLUMNS = Set.of("STATUS", "ORDERDATE", "AMOUNT", "CITY");

    /** Each literal of {@code sql} with the column it is anchored to ("-" for none), in order. */
    private static List<String> anchors(String sql) throws SqlLexer.LexException {
        List<SqlToken> toks = SqlLexer.significant(sql, Dialect.MYSQL);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < toks.size(); i++) {
            SqlToken t = toks.get(i);
            if (t.type() != SqlToken.Type.NUMBER && t.type() != SqlToken.Type.STRING) continue;
            String c = LiteralAnchors.comparedColumn(toks, i, COLUMNS);
            out.add(t.text() + "=" + (c == null ? "-" : c));
        }
        return out;
    }

    @Test
    void anchorsWhatTheParsedBindingLeavesOut() throws SqlLexer.LexException {
        // a function of a column, a BETWEEN range, an IN list, a CASE in the SELECT list
        assertThat(anchors("SELECT CASE WHEN status = 'Open' THEN 1 ELSE 0 END FROM orders "
                + "WHERE YEAR(orderDate) = 2005 AND amount BETWEEN 10 AND 20 AND city IN ('Lyon', \"Nantes\")"))
                .containsExactly("'Open'=STATUS", "1=-", "0=-", "2005=ORDERDATE", "10=AMOUNT", "20=AMOUNT",
                        "'Lyon'=CITY", "\"Nantes\"=CITY");
    }

    @Test
    void aFunctionNameOrAnotherWordIsNoAnchor() throws SqlLexer.LexException {
        // CITY( is a call, not the column; LIMIT's number follows a word that is no condition word
        assertThat(anchors("SELECT city(amount) FROM t WHERE `status` LIKE 'A%' LIMIT 5"))
                .containsExactly("'A%'=STATUS", "5=-");
    }
}
