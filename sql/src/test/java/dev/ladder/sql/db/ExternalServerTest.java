package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A MySQL/MariaDB server reached by URL (the embedded server plays the external one). */
class ExternalServerTest {

    private static String serverUrl(String user, String password) {
        TestData.classicModels(); // make sure the server runs and ClassicModels is loaded
        return "jdbc:mysql://127.0.0.1:" + EmbeddedMariaDb.shared().port() + "/?sslMode=DISABLED&user=" + user
                + "&password=" + password;
    }

    @Test
    void opensAKnownDatabaseOnAnExternalServer() {
        try (Database db = Databases.open("classicmodels", Optional.empty(),
                Optional.of(serverUrl(EmbeddedMariaDb.READER_USER, "ladder_reader")))) {
            assertThat(db.kind()).isEqualTo(DatabaseKind.EXTERNAL_MYSQL);
            assertThat(SchemaRenderer.summary(db.schema())).isEqualTo(SchemaRenderer.summary(TestData.classicModels().schema()));
            Execution ex = db.execute("SELECT COUNT(*) AS n FROM orders");
            assertThat(((Execution.Success) ex).result().rows().get(0).get(0)).isEqualTo(326L);
            assertThat(db.execute("DELETE FROM orders").ok()).isFalse();
        }
    }

    @Test
    void loadRefusesToReplaceAnExistingDatabaseUnlessAsked() {
        assertThatThrownBy(() -> ClassicModels.loadExternal(serverUrl("root", ""), TestData.dataDir(), false))
                .isInstanceOf(UserError.class).hasMessageContaining("--replace");
    }

    @Test
    void badUrlsAreUserErrors() {
        assertThatThrownBy(() -> Databases.external("jdbc:mysql://127.0.0.1:1/x?connectTimeout=2000"))
                .isInstanceOf(UserError.class).hasMessageContaining("cannot connect");
        assertThatThrownBy(() -> Databases.external("jdbc:mysql://127.0.0.1:3306/"))
                .isInstanceOf(UserError.class).hasMessageContaining("names no database");
        assertThat(Databases.redact("jdbc:mysql://h/db?user=u&password=secret")).doesNotContain("secret");
    }

    @Test
    void unknownDatabasesAndMissingFilesAreUserErrors() {
        assertThatThrownBy(() -> Databases.open("nosuchdb"))
                .isInstanceOf(UserError.class).hasMessageContaining("unknown database 'nosuchdb'");
        assertThatThrownBy(() -> Databases.open("/nonexistent/x.sqlite"))
                .isInstanceOf(UserError.class).hasMessageContaining("no such SQLite file");
    }
}
