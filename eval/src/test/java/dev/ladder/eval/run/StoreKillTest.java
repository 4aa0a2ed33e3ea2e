package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.sql.db.UserError;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;

/**
 * A results store any process can reopen after any kill: writers in child JVMs killed with SIGKILL in the middle of
 * their commits, and a real hot journal (a transaction that has written to the file, killed before its commit),
 * which a read-only connection cannot roll back by itself.
 */
class StoreKillTest {

    static final Cell CELL = new Cell(0, "w", "m", "", "prompt-k0", 0);

    @TempDir Path tmp;

    /** Item {@code i}'s row: every field derived from {@code i}, so a torn row cannot pass for a whole one. */
    static ItemResult row(int i) {
        Map<String, MetricValue> scores = new LinkedHashMap<>();
        scores.put("VA", MetricValue.ofNullable(true, null));
        scores.put("EX", MetricValue.ofNullable(i % 2 == 0, null));
        scores.put("EM", MetricValue.ofNullable(i % 3 == 0, "em " + i));
        return new ItemResult(CELL.name(), id(i), "join", "easy", "question " + i, "SELECT " + i, "SELECT " + i + " AS x",
                null, null, null, i, 2 * i, 10L * i, 1, 0, 0, 0, 1, 0, null, scores, 1);
    }

    static String id(int i) {
        return String.format("item-%05d", i);
    }

    /** Several pages of trace per row, so that a commit writes more than one page. */
    static String trace(int i, int size) {
        return "{\"questionId\":\"" + id(i) + "\",\"pad\":\"" + Integer.toString(i, 36).repeat(size) + "\"}";
    }

    /** Writes rows into the store named by its argument until it is killed, printing each one stored. */
    public static final class Writer {
        public static void main(String[] args) {
            try (ResultsStore store = ResultsStore.open(Path.of(args[0]))) {
                store.putCell(CELL);
                int next = store.finishedItems(CELL.name()).size();
                System.out.println("ready " + next);
                System.out.flush();
                for (int i = next; ; i++) {
                    store.put(row(i), i, trace(i, 1500));
                    System.out.println("stored " + i);
                    System.out.flush();
                }
            }
        }
    }

    @Test
    void aWriterKilledAtRandomMomentsOfItsCommitsResumesEveryTime() throws Exception {
        Path file = tmp.resolve("run").resolve(RunDirectory.RESULTS);
        Random random = new Random(49);
        int kills = 30;
        int rows = 0;
        int journals = 0;
        long start = System.nanoTime();
        for (int k = 0; k < kills; k++) {
            Process writer = HotJournals.child(Writer.class, file.toString()).start();
            AtomicInteger stored = new AtomicInteger(-1);
            BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8));
            // the writer opens the store for writing and finds every row the earlier ones committed
            assertThat(firstLine(out, "ready ")).as("kill %d", k).isEqualTo("ready " + rows);
            Thread reader = new Thread(() -> out.lines().filter(l -> l.startsWith("stored "))
                    .forEach(l -> stored.set(Integer.parseInt(l.substring(7)))));
            reader.start();
            Thread.sleep(40 + random.nextInt(160));
            // SIGKILL, through the handle: Process.destroyForcibly would also close the pipe the reader drains
            writer.toHandle().destroyForcibly();
            assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(TimeUnit.SECONDS.toMillis(30));
            if (Files.exists(SqliteFiles.journal(file))) journals++;
            // read-only first, as a resumed run checks its directory (RunIdentity) and as report and view read it
            int found;
            try (ResultsStore store = ResultsStore.openReadOnly(file)) {
                found = checkWhole(store);
            }
            assertThat(found).as("kill %d: every row the writer reported stored is there", k)
                    .isGreaterThan(stored.get()).isGreaterThanOrEqualTo(rows);
            rows = found;
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        System.out.printf("%d kills, %d with a journal left (killed in a transaction), %d rows, %d s%n", kills, journals,
                rows, seconds);
        assertThat(journals).as("kills that caught a commit under way").isPositive();
        assertThat(rows).isPositive();
        // and for writing, in this process as well
        try (ResultsStore store = ResultsStore.open(file)) {
            store.put(row(rows), rows, trace(rows, 10));
            assertThat(checkWhole(store)).isEqualTo(rows + 1);
        }
    }

    /** The child's first line that starts so (a logging library may print before it), or null at its end. */
    private static String firstLine(BufferedReader out, String prefix) throws IOException {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith(prefix)) return line;
        }
        return null;
    }

    /** Rows 0..n-1, each whole (every field, its scores and its trace as written); returns n. */
    private static int checkWhole(ResultsStore store) {
        List<ItemResult> results = store.results(CELL.name());
        List<String> traces = store.traces(CELL.name());
        assertThat(traces).hasSameSizeAs(results);
        for (int i = 0; i < results.size(); i++) {
            assertThat(results.get(i)).as("row %d", i).isEqualTo(row(i));
            assertThat(traces.get(i)).startsWith("{\"questionId\":\"" + id(i) + "\"");
            assertThat(traces.get(i)).isIn(trace(i, 1500), trace(i, 10));
        }
        return results.size();
    }

    @Test
    void aHotJournalIsRolledBackByReadOnlyAndWritingOpensAlike() throws Exception {
        Path file = tmp.resolve("a").resolve(RunDirectory.RESULTS);
        HotJournals.make("store", file);
        assertThat(HotJournals.readOnlyPlain(file)).isEqualTo(SQLiteErrorCode.SQLITE_READONLY_ROLLBACK);
        Path copy = tmp.resolve("b").resolve(RunDirectory.RESULTS);
        copyWithJournal(file, copy);
        assertThat(HotJournals.readOnlyPlain(copy)).isEqualTo(SQLiteErrorCode.SQLITE_READONLY_ROLLBACK);

        try (ResultsStore store = ResultsStore.openReadOnly(file)) {
            assertThat(store.results(CELL.name())).hasSize(5); // the committed rows, none of the killed transaction
        }
        assertThat(SqliteFiles.journal(file)).doesNotExist();
        assertThat(HotJournals.readOnlyPlain(file)).isEqualTo(SQLiteErrorCode.SQLITE_OK);
        try (ResultsStore store = ResultsStore.open(copy)) {
            assertThat(store.results(CELL.name())).extracting(ItemResult::itemId)
                    .containsExactly(id(0), id(1), id(2), id(3), id(4));
            store.put(row(5), 5, trace(5, 10));
            assertThat(store.results(CELL.name())).hasSize(6).last().isEqualTo(row(5));
        }
    }

    @Test
    void theGenerationCacheOpensOverAHotJournal() throws Exception {
        Path file = tmp.resolve("cache").resolve(GenerationCache.FILE_NAME);
        GenerationCache.open(file).close();
        HotJournals.make("raw", file);
        assertThat(HotJournals.readOnlyPlain(file)).isEqualTo(SQLiteErrorCode.SQLITE_READONLY_ROLLBACK);
        try (GenerationCache cache = GenerationCache.open(file)) {
            assertThat(cache.size()).isZero();
        }
        assertThat(SqliteFiles.journal(file)).doesNotExist();
    }

    @Test
    void onReadOnlyMediaAStoreIsReadAndAHotJournalIsOneLine() throws Exception {
        Path file = tmp.resolve("a").resolve(RunDirectory.RESULTS);
        HotJournals.make("store", file);
        Path clean = tmp.resolve("clean").resolve(RunDirectory.RESULTS);
        try (ResultsStore store = ResultsStore.open(clean)) {
            store.putCell(CELL);
            store.put(row(0), 0, trace(0, 10));
        }
        var mounted = TestMounts.tmpfs(tmp.resolve("media"), "16m");
        assumeThat(mounted).as("a tmpfs can be mounted (root)").isPresent();
        try (TestMounts media = mounted.get()) {
            Path hot = media.dir().resolve("hot").resolve(RunDirectory.RESULTS);
            copyWithJournal(file, hot);
            Path readable = media.dir().resolve("clean").resolve(RunDirectory.RESULTS);
            copyWithJournal(clean, readable);
            media.readOnly();
            try (ResultsStore store = ResultsStore.openReadOnly(readable)) {
                assertThat(store.results()).containsExactly(row(0));
            }
            assertThatThrownBy(() -> ResultsStore.openReadOnly(hot)).isInstanceOf(UserError.class)
                    .hasMessage(hot + " was left mid-write by a killed process, and its journal results.sqlite-journal "
                            + "must be rolled back before the results store can be read, which needs " + hot.getParent()
                            + " writable: make it writable, or copy the folder to writable storage, and run again");
        }
    }

    private static void copyWithJournal(Path file, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        Files.copy(file, to);
        if (Files.exists(SqliteFiles.journal(file))) Files.copy(SqliteFiles.journal(file), SqliteFiles.journal(to));
    }
}
