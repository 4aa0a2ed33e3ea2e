package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the ClassicModels dump comes from, and what a bad one does (nothing left behind). */
class ClassicModelsSourceTest {

    @TempDir Path tmp;
    private HttpServer http;
    private final AtomicInteger requests = new AtomicInteger();
    private volatile byte[] served;
    private volatile int status = 200;

    @BeforeEach
    void startServer() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/mysqlsampledatabase.sql", ex -> {
            requests.incrementAndGet();
            ex.sendResponseHeaders(status, status == 200 ? served.length : -1);
            if (status == 200) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(served);
                }
            }
            ex.close();
        });
        http.start();
    }

    @AfterEach
    void stopServer() {
        http.stop(0);
    }

    private URI url() {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/mysqlsampledatabase.sql");
    }

    private static Path realDump() {
        return ClassicModels.resolveDump(TestData.dataDir());
    }

    @Test
    void prefersTheDataDirectory() throws IOException {
        Path data = tmp.resolve("data");
        Files.createDirectories(data.resolve("classicmodels"));
        Path dump = Files.copy(realDump(), data.resolve("classicmodels").resolve(ClassicModels.DUMP_FILE));
        assertThat(ClassicModels.resolveDump(Optional.of(data), tmp.resolve("cache"), url())).isEqualTo(dump);
        assertThat(requests).hasValue(0);
    }

    @Test
    void downloadsIntoTheCacheOnceAndVerifiesTheHash() throws IOException {
        served = Files.readAllBytes(realDump());
        Path cache = tmp.resolve("cache");
        Path first = ClassicModels.resolveDump(Optional.of(tmp.resolve("empty-data-dir")), cache, url());
        assertThat(first).startsWith(cache).hasSameBinaryContentAs(realDump());
        assertThat(first.resolveSibling(ClassicModels.DUMP_FILE + ".part")).doesNotExist();
        Path second = ClassicModels.resolveDump(Optional.empty(), cache, url());
        assertThat(second).isEqualTo(first);
        assertThat(requests).hasValue(1);
    }

    @Test
    void aCorruptDownloadIsRefusedAndNothingIsKept() {
        served = "DROP DATABASE everything;".getBytes(StandardCharsets.UTF_8);
        Path cache = tmp.resolve("cache");
        assertThatThrownBy(() -> ClassicModels.resolveDump(Optional.empty(), cache, url()))
                .isInstanceOf(UserError.class).hasMessageContaining("SHA-256");
        Path target = cache.resolve("data/classicmodels").resolve(ClassicModels.DUMP_FILE);
        assertThat(target).doesNotExist();
        assertThat(target.resolveSibling(ClassicModels.DUMP_FILE + ".part")).doesNotExist();
    }

    @Test
    void httpErrorsAreOneClearLine() {
        status = 404;
        assertThatThrownBy(() -> ClassicModels.resolveDump(Optional.empty(), tmp.resolve("cache"), url()))
                .isInstanceOf(UserError.class).hasMessageContaining("HTTP 404").hasMessageNotContaining("\n");
    }

    @Test
    void aDumpWithMissingRowsIsRejectedAndDroppedAgain() throws IOException, SQLException {
        // remove one product row from the dump: the load must fail verification and leave no database
        String text = Files.readString(realDump(), StandardCharsets.UTF_8);
        int at = text.indexOf("('S10_1949'");
        int next = text.indexOf("('S10_2016'", at);
        Path bad = tmp.resolve("short.sql");
        Files.writeString(bad, text.substring(0, at) + text.substring(next), StandardCharsets.UTF_8);
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        try (Connection admin = server.adminConnection()) {
            assertThatThrownBy(() -> ClassicModels.load(admin, bad, "ladder_short_test"))
                    .isInstanceOf(UserError.class).hasMessageContaining("products=109");
        }
        assertThat(server.hasDatabase("ladder_short_test")).isFalse();
    }

    @Test
    void loadsUnderAnotherNameWithTheSameData() throws SQLException {
        EmbeddedMariaDb server = EmbeddedMariaDb.shared();
        try (Connection admin = server.adminConnection()) {
            ClassicModels.load(admin, realDump(), "ladder_copy_test");
            assertThat(ClassicModels.rowCounts(admin, "ladder_copy_test")).containsAllEntriesOf(ClassicModels.EXPECTED_ROWS);
        } finally {
            try (Connection admin = server.adminConnection(); var st = admin.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS ladder_copy_test");
            }
        }
    }
}
