package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * A full disk, a read-only file system, a folder without permission and a file where a folder should be are the
 * user's to fix: one line naming the path (and the free space), and what was written before stays whole.
 */
class WriteFailuresTest {

    @TempDir Path tmp;

    /** A real SQLITE_FULL from the driver: a file not allowed to grow (max_page_count) behaves as a full disk. */
    private SQLiteException realFull() throws SQLException {
        try (Connection db = SqliteFiles.connect(tmp.resolve("small.sqlite"), false); Statement s = db.createStatement()) {
            s.execute("CREATE TABLE t (x TEXT)");
            s.execute("PRAGMA max_page_count = 4");
            s.execute("INSERT INTO t VALUES (randomblob(100000))");
        } catch (SQLiteException e) {
            return e;
        }
        throw new AssertionError("the insert should not fit");
    }

    @Test
    void sqliteCodesAreReadByTheirMeaning() throws SQLException {
        Path file = tmp.resolve("results.sqlite");
        SQLiteException full = realFull();
        assertThat(full.getResultCode()).isEqualTo(SQLiteErrorCode.SQLITE_FULL);
        // found under the wrapping a store adds
        assertThat(WriteFailures.userError(file, new IllegalStateException("cannot write", full))).get()
                .extracting(Throwable::getMessage).asString()
                .matches("cannot write " + file + ": disk full \\(\\d+(\\.\\d)? [KMG]B free\\); free some space and "
                        + "run the command again \\(what was written before is kept whole\\)");
        // where this process may write, a read-only refusal is a write through a connection opened read-only: a bug
        assertThat(WriteFailures.cause(file, sqlite(SQLiteErrorCode.SQLITE_READONLY))).isEmpty();
        // not about space or permission: a bug, a moved file, a hot journal (SqliteFiles says that one itself)
        for (SQLiteErrorCode other : List.of(SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY, SQLiteErrorCode.SQLITE_CORRUPT,
                SQLiteErrorCode.SQLITE_READONLY_DBMOVED, SQLiteErrorCode.SQLITE_READONLY_ROLLBACK,
                SQLiteErrorCode.SQLITE_BUSY)) {
            assertThat(WriteFailures.cause(file, sqlite(other))).as(other.name()).isEmpty();
        }
        // an I/O error is a full disk only when the disk is (nearly) full; this one is not
        assertThat(WriteFailures.cause(file, sqlite(SQLiteErrorCode.SQLITE_IOERR_WRITE))).isEmpty();
        // a folder we may write in: cannot open is something else
        assertThat(WriteFailures.cause(file, sqlite(SQLiteErrorCode.SQLITE_CANTOPEN))).isEmpty();
    }

    private static SQLiteException sqlite(SQLiteErrorCode code) {
        return new SQLiteException("[" + code.name() + "]", code);
    }

    @Test
    void ioExceptionsAreReadAsTheJdkReportsThem() {
        Path file = tmp.resolve("out/predictions/x.sql");
        // FileChannel.write and Files.write on ENOSPC, EROFS, EACCES
        assertThat(WriteFailures.cause(file, new IOException("No space left on device"))).get().asString()
                .startsWith("disk full (");
        assertThat(WriteFailures.cause(file, new IOException("Disk quota exceeded"))).get().asString()
                .startsWith("disk quota exceeded (");
        assertThat(WriteFailures.cause(file, new AccessDeniedException(file.toString()))).get().asString()
                .isEqualTo("no permission to write in " + tmp + ": write elsewhere, or change its permissions");
        assertThat(WriteFailures.cause(file, new IOException("Input/output error"))).isEmpty();
        assertThat(WriteFailures.cause(file, new IllegalStateException("a bug"))).isEmpty();
        assertThat(WriteFailures.free(tmp)).matches("\\d+(\\.\\d)? [KMG]B free");
    }

    @Test
    void aFileWhereTheRunFolderShouldBeIsOneLineForEveryWriter() throws IOException {
        Path blocker = Files.writeString(tmp.resolve("out"), "not a folder");
        String line = blocker + " is a file where a folder should be: move it, or write elsewhere";
        assertThatThrownBy(() -> RunDirectory.create(blocker.resolve("run"))).isInstanceOf(UserError.class)
                .hasMessage("cannot write " + blocker.resolve("run") + ": " + line);
        Path store = blocker.resolve("run").resolve(RunDirectory.RESULTS);
        assertThatThrownBy(() -> ResultsStore.open(store)).isInstanceOf(UserError.class)
                .hasMessage("cannot write " + store + ": " + line);
        Path file = blocker.resolve("predictions").resolve("x.sql");
        assertThatThrownBy(() -> RunDirectory.writeAtomically(file, "SELECT 1\n")).isInstanceOf(UserError.class)
                .hasMessage("cannot write " + file + ": " + line);
        assertThat(Files.readString(blocker)).isEqualTo("not a folder");
    }

    @Test
    void aFullDiskStopsTheStoreWithOneLineAndTheStoreResumesWhenThereIsRoom() throws Exception {
        Optional<TestMounts> mounted = TestMounts.tmpfs(tmp.resolve("disk"), "96k");
        assumeThat(mounted).as("a tmpfs can be mounted (root)").isPresent();
        try (TestMounts disk = mounted.get()) {
            Path file = disk.dir().resolve("run").resolve(RunDirectory.RESULTS);
            Path predictions = disk.dir().resolve("run").resolve("x.sql");
            RunDirectory.writeAtomically(predictions, "SELECT 1\n");
            int stored = 0;
            UserError full = null;
            try (ResultsStore store = ResultsStore.open(file)) {
                store.putCell(StoreKillTest.CELL);
                while (full == null && stored < 1000) {
                    try {
                        store.put(StoreKillTest.row(stored), stored, StoreKillTest.trace(stored, 2000));
                        stored++;
                    } catch (UserError e) {
                        full = e;
                    }
                }
            }
            assertThat(full).isNotNull();
            assertThat(full.getMessage()).matches("cannot write " + file + ": disk full \\(\\d+ KB free\\); free some "
                    + "space and run the command again \\(what was written before is kept whole\\)");
            try (ResultsStore store = ResultsStore.openReadOnly(file)) {
                assertThat(store.results()).hasSize(stored).containsExactlyElementsOf(
                        Stream.iterate(0, i -> i + 1).limit(stored).map(StoreKillTest::row).toList());
            }
            // a file written whole stays the old one; nothing half-written is left beside it
            assertThatThrownBy(() -> RunDirectory.writeAtomically(predictions, "SELECT 2\n".repeat(100_000)))
                    .isInstanceOf(UserError.class).hasMessageStartingWith("cannot write " + predictions + ": disk full (");
            assertThat(Files.readString(predictions)).isEqualTo("SELECT 1\n");
            try (Stream<Path> files = Files.list(predictions.getParent())) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
            }
            disk.resize("4m");
            try (ResultsStore store = ResultsStore.open(file)) {
                store.put(StoreKillTest.row(stored), stored, StoreKillTest.trace(stored, 2000));
                assertThat(store.results()).hasSize(stored + 1);
            }
        }
    }

    @Test
    void aReadOnlyFileSystemIsOneLineAndItsStoreStillReads() throws Exception {
        Path run = tmp.resolve("run");
        try (ResultsStore store = ResultsStore.open(run.resolve(RunDirectory.RESULTS))) {
            store.putCell(StoreKillTest.CELL);
            store.put(StoreKillTest.row(0), 0, "{}");
        }
        Optional<TestMounts> mounted = TestMounts.tmpfs(tmp.resolve("media"), "4m");
        assumeThat(mounted).as("a tmpfs can be mounted (root)").isPresent();
        try (TestMounts media = mounted.get()) {
            Path copy = media.dir().resolve("run");
            Files.createDirectories(copy);
            Files.copy(run.resolve(RunDirectory.RESULTS), copy.resolve(RunDirectory.RESULTS));
            media.readOnly();
            String readOnly = "the file system of " + copy + " is read-only: write elsewhere";
            assertThatThrownBy(() -> ResultsStore.open(copy.resolve(RunDirectory.RESULTS))).isInstanceOf(UserError.class)
                    .hasMessage("cannot write " + copy.resolve(RunDirectory.RESULTS) + ": " + readOnly);
            assertThatThrownBy(() -> RunDirectory.writeAtomically(copy.resolve("x.sql"), "SELECT 1\n"))
                    .isInstanceOf(UserError.class).hasMessage("cannot write " + copy.resolve("x.sql") + ": " + readOnly);
            try (ResultsStore store = ResultsStore.openReadOnly(copy.resolve(RunDirectory.RESULTS))) {
                assertThat(store.results()).containsExactly(StoreKillTest.row(0));
            }
            for (SQLiteErrorCode code : List.of(SQLiteErrorCode.SQLITE_READONLY, SQLiteErrorCode.SQLITE_READONLY_DIRECTORY,
                    SQLiteErrorCode.SQLITE_CANTOPEN)) {
                assertThat(WriteFailures.cause(copy.resolve(RunDirectory.RESULTS), sqlite(code))).as(code.name())
                        .contains(readOnly);
            }
        }
    }
}
