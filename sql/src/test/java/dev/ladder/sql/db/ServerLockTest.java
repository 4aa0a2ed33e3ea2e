package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wait for the start/stop lock that runs out names its cause: a server that lives but is stopped or silent (the
 * process holding the lock is waiting for it), else another process starting or stopping the server.
 */
class ServerLockTest {

    @TempDir Path root;
    private Process server;

    @AfterEach
    void end() {
        if (server != null) server.destroyForcibly();
    }

    @Test
    void aStoppedServerIsNamedWithHowToResumeIt() throws Exception {
        long pid = fakeServer();
        run("kill", "-STOP", Long.toString(pid));
        assertThatThrownBy(() -> timeOutWhileHeld())
                .isInstanceOf(InfrastructureError.class)
                .hasMessageContaining("the embedded MariaDB under " + root + " (pid " + pid + ") is stopped")
                .hasMessageContaining("kill -CONT " + pid)
                .hasMessageNotContaining("starting or stopping");
        run("kill", "-CONT", Long.toString(pid));
        // running again but with no port it answers on: silent, not stopped
        assertThatThrownBy(() -> timeOutWhileHeld())
                .isInstanceOf(InfrastructureError.class)
                .hasMessageContaining("(pid " + pid + ") is running but does not answer");
    }

    @Test
    void withoutALiveServerTheWaitIsForAnotherProcess() throws Exception {
        assertThatThrownBy(() -> timeOutWhileHeld())
                .isInstanceOf(UserError.class)
                .hasMessageContaining("another Ladder process has been starting or stopping the embedded database");
        // a pid file whose number now belongs to a process that is no server: not named, not to be killed
        server = new ProcessBuilder("sleep", "300").start();
        Files.writeString(root.resolve("mysqld.pid"), server.pid() + "\n");
        run("kill", "-STOP", Long.toString(server.pid()));
        assertThatThrownBy(() -> timeOutWhileHeld())
                .isInstanceOf(UserError.class)
                .hasMessageContaining("starting or stopping");
    }

    /** A process named like the server (a copy of sleep), recorded in the pid file as the server's. */
    private long fakeServer() throws Exception {
        Path exe = root.resolve("bin").resolve("mariadbd");
        Files.createDirectories(exe.getParent());
        Files.copy(Path.of("/bin/sleep"), exe, StandardCopyOption.COPY_ATTRIBUTES);
        server = new ProcessBuilder(exe.toString(), "300").start();
        Files.writeString(root.resolve("mysqld.pid"), server.pid() + "\n");
        assertThat(EmbeddedMariaDb.processAlive(server.pid())).isTrue();
        return server.pid();
    }

    /** Another thread holds the lock; this one waits briefly for it. */
    private void timeOutWhileHeld() throws Exception {
        Path lockFile = root.resolve("server.lock");
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try (ServerLock lock = ServerLock.acquire(lockFile)) {
                held.countDown();
                done.await();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        holder.start();
        try {
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            ServerLock.acquire(lockFile, Duration.ofMillis(200)).close();
        } finally {
            done.countDown();
            holder.join();
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        Thread.sleep(100); // the state in /proc follows the signal
    }
}
