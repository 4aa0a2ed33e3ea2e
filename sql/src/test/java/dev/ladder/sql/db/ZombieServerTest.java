package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A killed server that its owning process has not reaped yet is a zombie: {@code ProcessHandle.isAlive()} still says
 * true, so nobody restarted it. The liveness check sees through it. The zombie here is a real one: a shell's child
 * that exits while the shell (now {@code sleep}) never waits for it.
 */
class ZombieServerTest {

    @Test
    void aZombieIsNotAlive() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs Linux /proc");
        Process parent = new ProcessBuilder("sh", "-c", "sleep 2 & echo $!; exec sleep 60").start();
        try {
            long child;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))) {
                child = Long.parseLong(r.readLine().strip());
                assertThat(EmbeddedMariaDb.processAlive(child)).as("running").isTrue();
                // the child exits and stays a zombie: its parent sleeps and never reaps it
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (EmbeddedMariaDb.processAlive(child) && System.nanoTime() < deadline) Thread.sleep(50);
                assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false)).as("the JDK's view").isTrue();
                assertThat(EmbeddedMariaDb.processAlive(child)).as("ours").isFalse();
            }
            assertThat(EmbeddedMariaDb.processAlive(parent.pid())).isTrue();
        } finally {
            parent.destroyForcibly();
        }
    }
}
