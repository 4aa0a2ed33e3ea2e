package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * MySQL 8.0's sql_mode on the embedded MariaDB: queries MariaDB's default accepts and MySQL 8 refuses fail in
 * {@link SqlMode#MYSQL8} sessions; the server's own mode is unchanged.
 */
class SqlModeTest {

    private static final String MIXED = "SELECT customerName, COUNT(*) FROM customers";

    @Test
    void mysql8ModeRefusesANonAggregatedColumnBesideAnAggregate() {
        try (Database mysql8 = Databases.open(ClassicModels.NAME, TestData.dataDir(), Optional.empty(), SqlMode.MYSQL8)) {
            Execution ex = mysql8.execute(MIXED, ExecutionLimits.DEFAULT);
            assertThat(ex).isInstanceOf(Execution.Failure.class);
            assertThat(((Execution.Failure) ex).error().message()).contains("GROUP");
            // a query MySQL 8 accepts still runs
            assertThat(mysql8.execute("SELECT COUNT(*) FROM customers", ExecutionLimits.DEFAULT).ok()).isTrue();
        }
        assertThat(TestData.classicModels().execute(MIXED, ExecutionLimits.DEFAULT).ok()).isTrue();
    }

    @Test
    void modesParseByName() {
        assertThat(SqlMode.parse(" MySQL8 ", "--sql-mode")).isEqualTo(SqlMode.MYSQL8);
        assertThat(SqlMode.parse("server", "--sql-mode")).isEqualTo(SqlMode.SERVER);
        assertThat(SqlMode.SERVER.sessionValue()).isNull();
        assertThat(SqlMode.MYSQL8.sessionValue()).startsWith("ONLY_FULL_GROUP_BY,").contains("NO_ZERO_DATE");
        assertThatThrownBy(() -> SqlMode.parse("ansi", "--sql-mode")).isInstanceOf(UserError.class)
                .hasMessage("--sql-mode must be server or mysql8, got 'ansi'");
    }
}
