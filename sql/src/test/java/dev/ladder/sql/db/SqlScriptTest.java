package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlScriptTest {

    @Test
    void splitsOnSemicolonsOutsideStringsAndComments() {
        String script = "/* header; with semicolon */\r\nCREATE TABLE t (a varchar(10));\r"
                + "INSERT INTO t VALUES ('x;y'),('it\\'s; fine'),('two''quotes;');\n"
                + "-- comment; here\n# another; one\n/*!40101 SET SQL_MODE=''*/;\n\n";
        List<String> statements = SqlScript.split(script, "test");
        assertThat(statements).containsExactly(
                "/* header; with semicolon */\r\nCREATE TABLE t (a varchar(10))",
                "INSERT INTO t VALUES ('x;y'),('it\\'s; fine'),('two''quotes;')",
                "-- comment; here\n# another; one\n/*!40101 SET SQL_MODE=''*/");
    }

    @Test
    void keepsAFinalStatementWithoutSemicolon() {
        assertThat(SqlScript.split("SELECT 1; SELECT 2", "t")).containsExactly("SELECT 1", "SELECT 2");
    }

    @Test
    void recognisesSetNamesInsideExecutableComments() {
        assertThat(SqlScript.isSetNames("/*!40101 SET NAMES utf8 */")).isTrue();
        assertThat(SqlScript.isSetNames("SET NAMES latin1")).isTrue();
        assertThat(SqlScript.isSetNames("/* header\n comment */\r\n/*!40101 SET NAMES utf8 */")).isTrue();
        assertThat(SqlScript.isSetNames("/*!40101 SET SQL_MODE=''*/")).isFalse();
        assertThat(SqlScript.isDatabaseSwitch("CREATE DATABASE /*!32312 IF NOT EXISTS*/`classicmodels`")).isTrue();
        assertThat(SqlScript.isDatabaseSwitch("USE `classicmodels`")).isTrue();
        assertThat(SqlScript.isDatabaseSwitch("/*Table structure */\nCREATE TABLE `t` (a int)")).isFalse();
    }

    @Test
    void unterminatedStringIsAUserErrorNamingTheOrigin() {
        assertThatThrownBy(() -> SqlScript.split("INSERT INTO t VALUES ('oops);", "dump.sql"))
                .isInstanceOf(UserError.class).hasMessageStartingWith("dump.sql: ").hasMessageContaining("unterminated");
    }

    @Test
    void delimiterIsRefused() {
        assertThatThrownBy(() -> SqlScript.split("DELIMITER //\nCREATE PROCEDURE p() BEGIN END //", "x.sql"))
                .isInstanceOf(UserError.class).hasMessageContaining("DELIMITER");
    }
}
