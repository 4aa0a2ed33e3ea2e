package dev.ladder.sql;

import static dev.ladder.sql.SqlToken.Type.COMMENT;
import static dev.ladder.sql.SqlToken.Type.EXECUTABLE_COMMENT;
import static dev.ladder.sql.SqlToken.Type.NUMBER;
import static dev.ladder.sql.SqlToken.Type.QUOTED_IDENTIFIER;
import static dev.ladder.sql.SqlToken.Type.STRING;
import static dev.ladder.sql.SqlToken.Type.SYMBOL;
import static dev.ladder.sql.SqlToken.Type.VARIABLE;
import static dev.ladder.sql.SqlToken.Type.WHITESPACE;
import static dev.ladder.sql.SqlToken.Type.WORD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.ladder.sql.Dialect;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SqlLexerTest {

    /** A token as "TYPE:text", which makes lists easy to compare and failures easy to read. */
    private static String show(SqlToken t) {
        return t.type() + ":" + t.text();
    }

    private static List<String> all(String sql, Dialect dialect) throws SqlLexer.LexException {
        return SqlLexer.tokenize(sql, dialect).stream().map(SqlLexerTest::show).toList();
    }

    private static List<String> significant(String sql, Dialect dialect) throws SqlLexer.LexException {
        return SqlLexer.significant(sql, dialect).stream().map(SqlLexerTest::show).toList();
    }

    private static SqlToken only(String sql, Dialect dialect) throws SqlLexer.LexException {
        List<SqlToken> tokens = SqlLexer.tokenize(sql, dialect);
        assertThat(tokens).as("tokens of %s", sql).hasSize(1);
        return tokens.get(0);
    }

    // ---------------------------------------------------------------- round trip

    static Stream<String> samples() {
        return Stream.of(
                "",
                "SELECT 1",
                "  SELECT\t*\r\nFROM customers ;  ",
                "SELECT c.customerName AS `name`, 'it''s' FROM customers c WHERE c.creditLimit >= 1e3 -- big\nORDER BY 1",
                "/* lead */ SELECT @@version, 0x1F, .5, 2.5e-3 FROM t # trailing",
                "SELECT \"x\" || 'y', a<=>b, a != b, a <> b, a->>'$.k' FROM t; DELETE FROM t",
                "SELECT /*! 1, */ /*M!100000 2, */ 3",
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT * FROM n",
                "SELECT 1--1",
                "SELECT 'a\\\\' , '\\n' FROM [t] WHERE x = :y",
                "SELECT 'ünïcødé', 名前 FROM テーブル");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("samples")
    void tokensReproduceTheInputExactly(String sql) throws SqlLexer.LexException {
        for (Dialect d : Dialect.values()) {
            List<SqlToken> tokens = SqlLexer.tokenize(sql, d);
            assertThat(tokens.stream().map(SqlToken::text).collect(Collectors.joining())).isEqualTo(sql);
            int offset = 0;
            for (SqlToken t : tokens) {
                assertThat(t.start()).as("start of %s in %s", t, d).isEqualTo(offset);
                assertThat(t.text()).isNotEmpty();
                assertThat(sql.substring(t.start(), t.end())).isEqualTo(t.text());
                offset = t.end();
            }
        }
    }

    @Test
    void emptyInputHasNoTokens() throws SqlLexer.LexException {
        assertThat(SqlLexer.tokenize("", Dialect.MYSQL)).isEmpty();
        assertThat(SqlLexer.tokenize("", Dialect.SQLITE)).isEmpty();
    }

    @Test
    void significantDropsWhitespaceAndCommentsOnly() throws SqlLexer.LexException {
        assertThat(significant(" SELECT /* c */ a -- d\n FROM /*! x */ t ", Dialect.MYSQL)).containsExactly(
                "WORD:SELECT", "WORD:a", "WORD:FROM", "EXECUTABLE_COMMENT:/*! x */", "WORD:t");
    }

    @Test
    void aSimpleStatement() throws SqlLexer.LexException {
        assertThat(all("SELECT a, 1 FROM t;", Dialect.MYSQL)).containsExactly(
                "WORD:SELECT", "WHITESPACE: ", "WORD:a", "SYMBOL:,", "WHITESPACE: ", "NUMBER:1",
                "WHITESPACE: ", "WORD:FROM", "WHITESPACE: ", "WORD:t", "SYMBOL:;");
    }

    // ---------------------------------------------------------------- strings

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void doubledQuoteStaysInsideTheString(Dialect dialect) throws SqlLexer.LexException {
        SqlToken t = only("'it''s; DELETE'", dialect);
        assertThat(t.type()).isEqualTo(STRING);
        assertThat(significant("SELECT 'a''' , ''", dialect)).containsExactly("WORD:SELECT", "STRING:'a'''", "SYMBOL:,", "STRING:''");
    }

    @Test
    void backslashEscapesAQuoteInMySql() throws SqlLexer.LexException {
        assertThat(only("'a\\'b'", Dialect.MYSQL).type()).isEqualTo(STRING);
        assertThat(significant("SELECT 'a\\'; DELETE FROM t; -- '", Dialect.MYSQL))
                .containsExactly("WORD:SELECT", "STRING:'a\\'; DELETE FROM t; -- '");
        assertThat(significant("'a\\\\' , 'b'", Dialect.MYSQL)).containsExactly("STRING:'a\\\\'", "SYMBOL:,", "STRING:'b'");
        assertThat(only("'\\n\\t\\\\\\''", Dialect.MYSQL).type()).isEqualTo(STRING);
    }

    @Test
    void backslashIsAnOrdinaryCharacterInSqlite() throws SqlLexer.LexException {
        assertThat(significant("SELECT 'a\\'; DELETE FROM t; -- '", Dialect.SQLITE))
                .containsExactly("WORD:SELECT", "STRING:'a\\'", "SYMBOL:;", "WORD:DELETE", "WORD:FROM", "WORD:t", "SYMBOL:;");
        assertThat(significant("'C:\\' , 'x'", Dialect.SQLITE)).containsExactly("STRING:'C:\\'", "SYMBOL:,", "STRING:'x'");
    }

    @Test
    void doubleQuotesAreStringsInMySql() throws SqlLexer.LexException {
        assertThat(significant("SELECT \"a\"\"b\", \"c\\\"d\"", Dialect.MYSQL))
                .containsExactly("WORD:SELECT", "STRING:\"a\"\"b\"", "SYMBOL:,", "STRING:\"c\\\"d\"");
    }

    @Test
    void doubleQuotesAreIdentifiersInSqlite() throws SqlLexer.LexException {
        assertThat(significant("SELECT \"a\"\"b\", \"c\\\" FROM t", Dialect.SQLITE))
                .containsExactly("WORD:SELECT", "QUOTED_IDENTIFIER:\"a\"\"b\"", "SYMBOL:,", "QUOTED_IDENTIFIER:\"c\\\"",
                        "WORD:FROM", "WORD:t");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void backticksQuoteIdentifiers(Dialect dialect) throws SqlLexer.LexException {
        assertThat(significant("SELECT `update`, `a``b`, `c\\` FROM `delete`", dialect)).containsExactly(
                "WORD:SELECT", "QUOTED_IDENTIFIER:`update`", "SYMBOL:,", "QUOTED_IDENTIFIER:`a``b`", "SYMBOL:,",
                "QUOTED_IDENTIFIER:`c\\`", "WORD:FROM", "QUOTED_IDENTIFIER:`delete`");
    }

    @Test
    void bracketsQuoteIdentifiersOnlyInSqlite() throws SqlLexer.LexException {
        assertThat(significant("SELECT [order] FROM t", Dialect.SQLITE))
                .containsExactly("WORD:SELECT", "QUOTED_IDENTIFIER:[order]", "WORD:FROM", "WORD:t");
        assertThat(significant("SELECT [order] FROM t", Dialect.MYSQL))
                .containsExactly("WORD:SELECT", "SYMBOL:[", "WORD:order", "SYMBOL:]", "WORD:FROM", "WORD:t");
    }

    @Test
    void stringsAndIdentifiersHideCommentsAndSemicolons() throws SqlLexer.LexException {
        for (Dialect d : Dialect.values()) {
            assertThat(significant("SELECT '-- ; /* #', `/* ; */` FROM t", d)).containsExactly(
                    "WORD:SELECT", "STRING:'-- ; /* #'", "SYMBOL:,", "QUOTED_IDENTIFIER:`/* ; */`", "WORD:FROM", "WORD:t");
        }
    }

    // ---------------------------------------------------------------- unterminated

    static Stream<Arguments> unterminated() {
        return Stream.of(
                arguments(Dialect.MYSQL, "SELECT 'abc", 7, "string literal"),
                arguments(Dialect.SQLITE, "SELECT 'abc", 7, "string literal"),
                arguments(Dialect.MYSQL, "SELECT 'abc\\'", 7, "string literal"),
                arguments(Dialect.MYSQL, "SELECT 'abc\\", 7, "string literal"),
                arguments(Dialect.MYSQL, "SELECT 'it''", 7, "string literal"),
                arguments(Dialect.MYSQL, "SELECT \"abc", 7, "string literal"),
                arguments(Dialect.SQLITE, "SELECT \"abc", 7, "quoted identifier"),
                arguments(Dialect.MYSQL, "SELECT `abc", 7, "quoted identifier"),
                arguments(Dialect.SQLITE, "SELECT `abc", 7, "quoted identifier"),
                arguments(Dialect.SQLITE, "SELECT [abc", 7, "quoted identifier"),
                arguments(Dialect.MYSQL, "SELECT 1 /* abc", 9, "comment"),
                arguments(Dialect.SQLITE, "SELECT 1 /* abc", 9, "comment"),
                arguments(Dialect.MYSQL, "SELECT 1 /*! abc *", 9, "comment"),
                arguments(Dialect.MYSQL, "SELECT @'abc", 8, "variable name"),
                arguments(Dialect.MYSQL, "SELECT 'ok', 'x", 13, "string literal"));
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @MethodSource("unterminated")
    void unterminatedTokensThrow(Dialect dialect, String sql, int offset, String what) {
        assertThatThrownBy(() -> SqlLexer.tokenize(sql, dialect))
                .isInstanceOfSatisfying(SqlLexer.LexException.class, e -> {
                    assertThat(e.offset()).isEqualTo(offset);
                    assertThat(e.getMessage()).isEqualTo("unterminated " + what + " at offset " + offset);
                });
    }

    @Test
    void aBackslashQuoteTerminatesInSqliteButNotInMySql() throws SqlLexer.LexException {
        assertThat(only("'abc\\'", Dialect.SQLITE).type()).isEqualTo(STRING);
        assertThatThrownBy(() -> SqlLexer.tokenize("'abc\\'", Dialect.MYSQL)).isInstanceOf(SqlLexer.LexException.class);
    }

    // ---------------------------------------------------------------- comments

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void doubleDashCommentRunsToTheEndOfTheLine(Dialect dialect) throws SqlLexer.LexException {
        assertThat(all("SELECT 1 -- one; two\nFROM t", dialect)).containsExactly(
                "WORD:SELECT", "WHITESPACE: ", "NUMBER:1", "WHITESPACE: ", "COMMENT:-- one; two", "WHITESPACE:\n",
                "WORD:FROM", "WHITESPACE: ", "WORD:t");
        assertThat(all("-- x\r\nSELECT", dialect)).containsExactly("COMMENT:-- x", "WHITESPACE:\r\n", "WORD:SELECT");
        assertThat(all("SELECT 1 --", dialect)).endsWith("COMMENT:--");
        assertThat(all("SELECT 1 --\tx", dialect)).endsWith("COMMENT:--\tx");
    }

    @Test
    void mySqlNeedsWhitespaceAfterDoubleDash() throws SqlLexer.LexException {
        assertThat(all("1--1", Dialect.MYSQL)).containsExactly("NUMBER:1", "SYMBOL:-", "SYMBOL:-", "NUMBER:1");
        assertThat(significant("SELECT a--b FROM t", Dialect.MYSQL))
                .containsExactly("WORD:SELECT", "WORD:a", "SYMBOL:-", "SYMBOL:-", "WORD:b", "WORD:FROM", "WORD:t");
        assertThat(all("1--1", Dialect.SQLITE)).containsExactly("NUMBER:1", "COMMENT:--1");
        assertThat(significant("SELECT a--b FROM t", Dialect.SQLITE)).containsExactly("WORD:SELECT", "WORD:a");
    }

    @ParameterizedTest
    @ValueSource(chars = {' ', '\t', '\n', '\r', '\u000B', '\f', '\u0000', '\u0001', '\u001C', '\u001F', '\u007F'})
    void mySqlDoubleDashBeforeAsciiSpaceOrControlIsAComment(char c) throws SqlLexer.LexException {
        List<SqlToken> tokens = SqlLexer.tokenize("1 --" + c + "x", Dialect.MYSQL);
        assertThat(tokens.get(2).type()).isEqualTo(COMMENT);
        assertThat(tokens.get(2).text()).startsWith("--");
    }

    @ParameterizedTest
    @ValueSource(chars = {'\u00A0', '\u0085', '\u2003', '\u2028', '\u3000', 'x', '-', '1'})
    void mySqlDoubleDashBeforeAnythingElseIsNoComment(char c) throws SqlLexer.LexException {
        // the server classifies the next byte with an ASCII table: U+2003 is an identifier byte to it
        List<SqlToken> tokens = SqlLexer.tokenize("1 --" + c + "x", Dialect.MYSQL);
        assertThat(tokens).extracting(SqlToken::type).doesNotContain(COMMENT);
        assertThat(tokens.get(2)).isEqualTo(new SqlToken(SYMBOL, "-", 2));
        assertThat(tokens.get(3)).isEqualTo(new SqlToken(SYMBOL, "-", 3));
        // in SQLite the same text is a comment
        assertThat(SqlLexer.tokenize("1 --" + c + "x", Dialect.SQLITE).get(2).type()).isEqualTo(COMMENT);
    }

    @Test
    void hashCommentsOnlyInMySql() throws SqlLexer.LexException {
        assertThat(all("SELECT 1 # c; d\nFROM t", Dialect.MYSQL)).containsExactly(
                "WORD:SELECT", "WHITESPACE: ", "NUMBER:1", "WHITESPACE: ", "COMMENT:# c; d", "WHITESPACE:\n",
                "WORD:FROM", "WHITESPACE: ", "WORD:t");
        assertThat(significant("SELECT 1 # c; d", Dialect.SQLITE))
                .containsExactly("WORD:SELECT", "NUMBER:1", "SYMBOL:#", "WORD:c", "SYMBOL:;", "WORD:d");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void blockComments(Dialect dialect) throws SqlLexer.LexException {
        assertThat(all("SELECT/* a; -- b\n */1", dialect))
                .containsExactly("WORD:SELECT", "COMMENT:/* a; -- b\n */", "NUMBER:1");
        assertThat(all("/**/", dialect)).containsExactly("COMMENT:/**/");
        assertThat(all("/* ! */", dialect)).containsExactly("COMMENT:/* ! */");
        assertThat(all("/*+ MAX_EXECUTION_TIME(1) */", dialect)).containsExactly("COMMENT:/*+ MAX_EXECUTION_TIME(1) */");
        // comments do not nest: the first */ closes
        assertThat(all("/* /* */ */", dialect))
                .containsExactly("COMMENT:/* /* */", "WHITESPACE: ", "SYMBOL:*", "SYMBOL:/");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void executableComments(Dialect dialect) throws SqlLexer.LexException {
        assertThat(only("/*! DROP TABLE t */", dialect).type()).isEqualTo(EXECUTABLE_COMMENT);
        assertThat(only("/*!50000 SELECT */", dialect).type()).isEqualTo(EXECUTABLE_COMMENT);
        assertThat(only("/*M! SLEEP(1) */", dialect).type()).isEqualTo(EXECUTABLE_COMMENT);
        assertThat(only("/*M!100000 x */", dialect).type()).isEqualTo(EXECUTABLE_COMMENT);
        assertThat(only("/*!*/", dialect).type()).isEqualTo(EXECUTABLE_COMMENT);
        assertThat(only("/*M*/", dialect).type()).isEqualTo(COMMENT);
        assertThat(significant("SELECT 1 /*! ; DROP TABLE t */", dialect))
                .containsExactly("WORD:SELECT", "NUMBER:1", "EXECUTABLE_COMMENT:/*! ; DROP TABLE t */");
    }

    @Test
    void triviaIsWhitespaceAndOrdinaryCommentsOnly() {
        assertThat(new SqlToken(WHITESPACE, " ", 0).isTrivia()).isTrue();
        assertThat(new SqlToken(COMMENT, "-- x", 0).isTrivia()).isTrue();
        assertThat(new SqlToken(EXECUTABLE_COMMENT, "/*! x */", 0).isTrivia()).isFalse();
        assertThat(new SqlToken(STRING, "''", 0).isTrivia()).isFalse();
    }

    // ---------------------------------------------------------------- numbers

    @ParameterizedTest
    @ValueSource(strings = {"0", "42", "3.14", ".5", "5.", "1e3", "1E3", "1e+3", "1e-3", "2.5e-3", ".5e1", "1.e2",
        "0x1F", "0X1f", "0b101", "0xdeadBEEF"})
    void numbers(String number) throws SqlLexer.LexException {
        for (Dialect d : Dialect.values()) {
            assertThat(only(number, d)).isEqualTo(new SqlToken(NUMBER, number, 0));
        }
    }

    @Test
    void numbersInContext() throws SqlLexer.LexException {
        assertThat(significant("SELECT 1e3+0x1F-2.5*.5", Dialect.MYSQL)).containsExactly(
                "WORD:SELECT", "NUMBER:1e3", "SYMBOL:+", "NUMBER:0x1F", "SYMBOL:-", "NUMBER:2.5", "SYMBOL:*", "NUMBER:.5");
        assertThat(significant("t1.c2", Dialect.MYSQL)).containsExactly("WORD:t1", "SYMBOL:.", "WORD:c2");
        assertThat(significant("1 - -1", Dialect.MYSQL)).containsExactly("NUMBER:1", "SYMBOL:-", "SYMBOL:-", "NUMBER:1");
    }

    @Test
    void anIdentifierMayStartWithDigits() throws SqlLexer.LexException {
        // MySQL reads 1abc and 1e (no exponent digits) as identifiers: one token either way
        assertThat(only("1abc", Dialect.MYSQL).text()).isEqualTo("1abc");
        assertThat(only("1e", Dialect.MYSQL).text()).isEqualTo("1e");
        assertThat(only("0x1Fg", Dialect.MYSQL).text()).isEqualTo("0x1Fg");
        assertThat(significant("1e+x", Dialect.MYSQL)).containsExactly("NUMBER:1e", "SYMBOL:+", "WORD:x");
    }

    @Test
    void aDecimalOrExponentNumberEndsWhereItsDigitsEnd() throws SqlLexer.LexException {
        // MySQL/MariaDB: SELECT 1.5abc is 1.5 AS abc, and 2e0LOCK IN SHARE MODE is a locking read
        assertThat(significant("1.5abc", Dialect.MYSQL)).containsExactly("NUMBER:1.5", "WORD:abc");
        assertThat(significant("1e3abc", Dialect.MYSQL)).containsExactly("NUMBER:1e3", "WORD:abc");
        assertThat(significant("2e0LOCK IN SHARE MODE", Dialect.MYSQL))
                .containsExactly("NUMBER:2e0", "WORD:LOCK", "WORD:IN", "WORD:SHARE", "WORD:MODE");
        assertThat(significant(".5FOR SHARE", Dialect.MYSQL)).containsExactly("NUMBER:.5", "WORD:FOR", "WORD:SHARE");
        assertThat(significant("1.2.3", Dialect.MYSQL)).containsExactly("NUMBER:1.2", "NUMBER:.3");
    }

    // ---------------------------------------------------------------- symbols and variables

    @ParameterizedTest
    @ValueSource(strings = {":=", "<=>", "!=", "<>", "<=", ">=", "||", "&&", "<<", ">>", "->", "->>", "::"})
    void multiCharacterSymbols(String symbol) throws SqlLexer.LexException {
        assertThat(significant("a" + symbol + "b", Dialect.MYSQL)).containsExactly("WORD:a", "SYMBOL:" + symbol, "WORD:b");
        assertThat(significant("a " + symbol + " b", Dialect.SQLITE)).containsExactly("WORD:a", "SYMBOL:" + symbol, "WORD:b");
    }

    @ParameterizedTest
    @ValueSource(strings = {"(", ")", ",", ";", "=", "<", ">", "+", "*", "/", "%", ".", "!", "~", "^", "&", "|", "?", ":"})
    void singleCharacterSymbols(String symbol) throws SqlLexer.LexException {
        assertThat(only(symbol, Dialect.MYSQL)).isEqualTo(new SqlToken(SYMBOL, symbol, 0));
    }

    @Test
    void symbolsAreSplitGreedily() throws SqlLexer.LexException {
        assertThat(significant("a<=>=b", Dialect.MYSQL)).containsExactly("WORD:a", "SYMBOL:<=>", "SYMBOL:=", "WORD:b");
        assertThat(significant("@a:=1", Dialect.MYSQL)).containsExactly("VARIABLE:@a", "SYMBOL::=", "NUMBER:1");
        assertThat(significant("(()", Dialect.MYSQL)).containsExactly("SYMBOL:(", "SYMBOL:(", "SYMBOL:)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"@a", "@name_1", "@@version", "@@session.sql_mode", "@@GLOBAL.max_connections", "@`my var`",
        "@'x'", "@\"x\"", "@"})
    void variables(String variable) throws SqlLexer.LexException {
        assertThat(only(variable, Dialect.MYSQL)).isEqualTo(new SqlToken(VARIABLE, variable, 0));
    }

    @Test
    void wordsAndQuotedNames() throws SqlLexer.LexException {
        assertThat(significant("SELECT _utf8mb4'x', $x, a_b1, N'y'", Dialect.MYSQL)).containsExactly(
                "WORD:SELECT", "WORD:_utf8mb4", "STRING:'x'", "SYMBOL:,", "WORD:$x", "SYMBOL:,", "WORD:a_b1", "SYMBOL:,",
                "WORD:N", "STRING:'y'");
        SqlToken word = only("Select", Dialect.MYSQL);
        assertThat(word.type()).isEqualTo(WORD);
        assertThat(word.isWord("SELECT")).isTrue();
        assertThat(word.isSymbol("SELECT")).isFalse();
        assertThat(only("`select`", Dialect.MYSQL).isWord("select")).isFalse();
        assertThat(only("`select`", Dialect.MYSQL).type()).isEqualTo(QUOTED_IDENTIFIER);
    }
}
