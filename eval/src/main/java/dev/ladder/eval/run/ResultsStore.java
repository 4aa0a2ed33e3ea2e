package dev.ladder.eval.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The results of one run: a SQLite file ({@code results.sqlite}) with one row per cell ({@code cells}), one row per
 * (cell, item) ({@code results}) and key/value pairs ({@code meta}). A run resumes by skipping what {@link #has} knows.
 *
 * <p>Durability: rollback journal with {@code synchronous=FULL}, auto-commit, so every write method is one
 * transaction that is on disk when it returns; a process killed at any moment leaves each row whole or absent.
 *
 * <p>One writer: {@link #open} holds an OS lock on {@code <file>.lock} until {@link #close()}, so a second process
 * (or a second open in this JVM) that tries to write the same run fails at once with a clear message. SQLite's own
 * locking would merely serialise two writers, not stop them. The lock dies with the process; the empty lock file is
 * left in place on purpose (deleting it would race with the next opener). {@link #openReadOnly} takes no lock.
 */
public final class ResultsStore implements AutoCloseable {

    /** The schema this code writes; a file with another {@code user_version} is refused. */
    public static final int SCHEMA_VERSION = 3;
    /** {@code PRAGMA application_id} of a results store ("LDRR"), so a foreign SQLite file is not mistaken for one. */
    static final int APPLICATION_ID = 0x4C445252;

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String SCHEMA = """
            CREATE TABLE cells (
              name     TEXT    PRIMARY KEY,
              idx      INTEGER NOT NULL UNIQUE,
              model    TEXT    NOT NULL,
              adapter  TEXT    NOT NULL,
              strategy TEXT    NOT NULL,
              seed     INTEGER NOT NULL
            );
            CREATE TABLE results (
              cell             TEXT    NOT NULL REFERENCES cells(name),
              item_id          TEXT    NOT NULL,
              item_order       INTEGER NOT NULL,
              category         TEXT,
              difficulty       TEXT,
              question         TEXT,
              gold             TEXT,
              predicted        TEXT    NOT NULL,
              va               INTEGER NOT NULL,
              ex               INTEGER NOT NULL,
              em               INTEGER NOT NULL,
              ts               INTEGER,
              error            TEXT,
              error_class      TEXT,
              chosen           TEXT,
              prompt_tokens    INTEGER NOT NULL,
              generated_tokens INTEGER NOT NULL,
              millis           INTEGER NOT NULL,
              tables           INTEGER NOT NULL,
              joins            INTEGER NOT NULL,
              aggregates       INTEGER NOT NULL,
              nesting          INTEGER NOT NULL,
              calls            INTEGER NOT NULL DEFAULT 0,
              cached_calls     INTEGER NOT NULL DEFAULT 0,
              ex_alt           INTEGER,
              judge            INTEGER,
              judge_reason     TEXT,
              diagnosis        TEXT,
              trace_json       TEXT    NOT NULL,
              PRIMARY KEY (cell, item_id),
              UNIQUE (cell, item_order)
            );
            CREATE TABLE meta (
              key   TEXT PRIMARY KEY,
              value TEXT NOT NULL
            );
            """;

    /**
     * What takes an older store to this schema, one version at a time (a version-1 run keeps its rows; their call
     * counts read as 0; rows before version 3 are not judged and have no diagnosis).
     */
    private static final Map<Integer, String> UPGRADES = Map.of(1, """
            ALTER TABLE results ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE results ADD COLUMN cached_calls INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE results ADD COLUMN ex_alt INTEGER;
            """, 2, """
            ALTER TABLE results ADD COLUMN judge INTEGER;
            ALTER TABLE results ADD COLUMN judge_reason TEXT;
            ALTER TABLE results ADD COLUMN diagnosis TEXT;
            """);

    private static final List<String> COLUMN_LIST = List.of("cell", "item_id", "item_order", "category", "difficulty",
            "question", "gold", "predicted", "va", "ex", "em", "ts", "error", "error_class", "chosen", "prompt_tokens",
            "generated_tokens", "millis", "tables", "joins", "aggregates", "nesting", "calls", "cached_calls", "ex_alt", "judge", "judge_reason", "diagnosis", "trace_json");
    private static final String COLUMNS = String.join(", ", COLUMN_LIST);
    /** Insert, or replace every column but the key of an existing (cell, item_id) row (a re-score). */
    private static final String UPSERT = "INSERT INTO results (" + COLUMNS + ") VALUES ("
            + String.join(", ", Collections.nCopies(COLUMN_LIST.size(), "?")) + ") ON CONFLICT (cell, item_id) DO UPDATE SET "
            + String.join(", ", COLUMN_LIST.subList(2, COLUMN_LIST.size()).stream().map(c -> c + " = excluded." + c).toList());

    private final Path file;
    private final Connection db;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private ResultsStore(Path file, Connection db, FileChannel lockChannel, FileLock lock) {
        this.file = file;
        this.db = db;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Creates or opens the store for writing.
     *
     * @throws UserError when another writer holds the run, the file is not a Ladder results store, or its schema
     *                   version is not {@link #SCHEMA_VERSION}
     */
    public static ResultsStore open(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        FileChannel channel = null;
        FileLock lock = null;
        Connection db = null;
        try {
            if (abs.getParent() != null) Files.createDirectories(abs.getParent());
            channel = FileChannel.open(abs.resolveSibling(abs.getFileName() + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new UserError(abs + " is open for writing by another process (or another run in this one); "
                        + "one run directory takes one writer at a time");
            }
            db = SqliteFiles.connect(abs, false);
            SqliteFiles.checkOrCreate(db, abs, "results store", APPLICATION_ID, SCHEMA_VERSION, SCHEMA, UPGRADES);
            return new ResultsStore(abs, db, channel, lock);
        } catch (IOException | SQLException | RuntimeException e) {
            SqliteFiles.closeQuietly(db);
            try {
                if (lock != null) lock.release();
                if (channel != null) channel.close();
            } catch (IOException ignored) {
                // already failing; the first error is the one to report
            }
            if (e instanceof UserError u) throw u;
            throw new UserError("cannot open results store " + abs + ": " + e.getMessage(), e);
        }
    }

    /** Opens an existing store for reading (reports); takes no writer lock. */
    public static ResultsStore openReadOnly(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(abs)) throw new UserError("no results store at " + abs);
        Connection db = null;
        try {
            db = SqliteFiles.connect(abs, true);
            if (SqliteFiles.needsUpgrade(db, APPLICATION_ID, SCHEMA_VERSION)) {
                // a store written by an older Ladder: add its new columns once, then read as usual
                SqliteFiles.closeQuietly(db);
                Connection writable = SqliteFiles.connect(abs, false);
                try {
                    SqliteFiles.checkOrCreate(writable, abs, "results store", APPLICATION_ID, SCHEMA_VERSION, null, UPGRADES);
                } finally {
                    SqliteFiles.closeQuietly(writable);
                }
                db = SqliteFiles.connect(abs, true);
            }
            SqliteFiles.checkOrCreate(db, abs, "results store", APPLICATION_ID, SCHEMA_VERSION, null);
            return new ResultsStore(abs, db, null, null);
        } catch (SQLException | RuntimeException e) {
            SqliteFiles.closeQuietly(db);
            if (e instanceof UserError u) throw u;
            throw new UserError("cannot open results store " + abs + ": " + e.getMessage(), e);
        }
    }

    public Path file() {
        return file;
    }

    /**
     * Records a cell; a no-op when the same cell is already there.
     *
     * @throws UserError when the store has a different cell under this name or at this index (the experiment
     *                   changed since the run started)
     */
    public synchronized void putCell(Cell cell) {
        Objects.requireNonNull(cell, "cell");
        Optional<Cell> byName = cells().stream().filter(c -> c.name().equals(cell.name())).findFirst();
        if (byName.isPresent()) {
            if (!byName.get().equals(cell)) {
                throw new UserError("cell '" + cell.name() + "' in " + file + " is " + describe(byName.get())
                        + " but the experiment now defines it as " + describe(cell)
                        + "; the experiment changed since this run started (use a new run directory)");
            }
            return;
        }
        Optional<Cell> byIndex = cells().stream().filter(c -> c.index() == cell.index()).findFirst();
        if (byIndex.isPresent()) {
            throw new UserError("cell index " + cell.index() + " in " + file + " belongs to '" + byIndex.get().name()
                    + "', but the experiment now puts '" + cell.name() + "' there; the experiment changed since this "
                    + "run started (use a new run directory)");
        }
        try (PreparedStatement s = db.prepareStatement(
                "INSERT INTO cells (name, idx, model, adapter, strategy, seed) VALUES (?, ?, ?, ?, ?, ?)")) {
            s.setString(1, cell.name());
            s.setInt(2, cell.index());
            s.setString(3, cell.model());
            s.setString(4, cell.adapter());
            s.setString(5, cell.strategy());
            s.setLong(6, cell.seed());
            s.executeUpdate();
        } catch (SQLException e) {
            throw failure("record cell '" + cell.name() + "'", e);
        }
    }

    private static String describe(Cell c) {
        return "{index " + c.index() + ", model " + c.model() + ", adapter " + (c.adapter().isEmpty() ? "none" : c.adapter())
                + ", strategy " + c.strategy() + ", seed " + c.seed() + "}";
    }

    /** Cells by index. */
    public synchronized List<Cell> cells() {
        List<Cell> out = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT idx, name, model, adapter, strategy, seed FROM cells ORDER BY idx")) {
            while (rs.next()) {
                out.add(new Cell(rs.getInt(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                        rs.getLong(6)));
            }
        } catch (SQLException e) {
            throw failure("read cells", e);
        }
        return out;
    }

    /** Whether the cell has a result for the item. */
    public synchronized boolean has(String cell, String itemId) {
        try (PreparedStatement s = db.prepareStatement("SELECT 1 FROM results WHERE cell = ? AND item_id = ?")) {
            s.setString(1, cell);
            s.setString(2, itemId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw failure("read results", e);
        }
    }

    /** Item ids the cell has results for, in item order. */
    public synchronized Set<String> finishedItems(String cell) {
        Set<String> out = new LinkedHashSet<>();
        try (PreparedStatement s = db.prepareStatement("SELECT item_id FROM results WHERE cell = ? ORDER BY item_order")) {
            s.setString(1, cell);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) out.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw failure("read results", e);
        }
        return Collections.unmodifiableSet(out);
    }

    /**
     * Stores one scored item in its own durable transaction, replacing an earlier row of the same (cell, item) (a
     * re-score).
     *
     * @param itemOrder the item's 0-based position in its split (orders results, Spider lines and BIRD keys)
     * @param traceJson the item's trace, a JSON object ({@code "{}"} when there is none)
     * @throws UserError                when the cell was never recorded with {@link #putCell}, or another item of
     *                                  the cell already has this order
     * @throws IllegalArgumentException when {@code traceJson} is not a JSON object
     */
    public synchronized void put(ItemResult r, int itemOrder, String traceJson) {
        Objects.requireNonNull(r, "result");
        requireObject(traceJson);
        if (itemOrder < 0) throw new IllegalArgumentException("itemOrder must be >= 0, got " + itemOrder);
        try (PreparedStatement s = db.prepareStatement(UPSERT)) {
            int i = 1;
            s.setString(i++, r.cell());
            s.setString(i++, r.itemId());
            s.setInt(i++, itemOrder);
            s.setString(i++, r.category());
            s.setString(i++, r.difficulty());
            s.setString(i++, r.question());
            s.setString(i++, r.gold());
            s.setString(i++, r.predicted());
            s.setInt(i++, r.va() ? 1 : 0);
            s.setInt(i++, r.ex() ? 1 : 0);
            s.setInt(i++, r.em() ? 1 : 0);
            if (r.ts() == null) s.setNull(i++, Types.INTEGER);
            else s.setInt(i++, r.ts() ? 1 : 0);
            s.setString(i++, r.error());
            s.setString(i++, r.errorClass());
            s.setString(i++, r.chosen());
            s.setInt(i++, r.promptTokens());
            s.setInt(i++, r.generatedTokens());
            s.setLong(i++, r.millis());
            s.setInt(i++, r.tables());
            s.setInt(i++, r.joins());
            s.setInt(i++, r.aggregates());
            s.setInt(i++, r.nesting());
            s.setInt(i++, r.calls());
            s.setInt(i++, r.cachedCalls());
            if (r.exAlt() == null) s.setNull(i++, Types.INTEGER);
            else s.setInt(i++, r.exAlt() ? 1 : 0);
            if (r.judge() == null) s.setNull(i++, Types.INTEGER);
            else s.setInt(i++, r.judge() ? 1 : 0);
            s.setString(i++, r.judgeReason());
            s.setString(i++, r.diagnosis());
            s.setString(i, traceJson);
            s.executeUpdate();
        } catch (SQLException e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.contains("FOREIGN KEY")) {
                throw new UserError("result for item '" + r.itemId() + "' names cell '" + r.cell() + "', which "
                        + file + " does not have (record it with putCell first)", e);
            }
            if (msg.contains("results.cell, results.item_order")) {
                throw new UserError("cell '" + r.cell() + "' already has another item at order " + itemOrder
                        + " in " + file + " (item '" + r.itemId() + "' cannot take it)", e);
            }
            throw failure("store result " + r.cell() + "/" + r.itemId(), e);
        }
    }

    private static void requireObject(String json) {
        if (json == null) throw new IllegalArgumentException("traceJson must be a JSON object, got null");
        try {
            JsonNode n = JSON.readTree(json);
            if (n == null || !n.isObject()) throw new IllegalArgumentException("traceJson must be a JSON object");
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("traceJson is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Every result: by cell index, then item order. */
    public synchronized List<ItemResult> results() {
        return queryResults("SELECT r." + COLUMNS.replace(", ", ", r.") + " FROM results r JOIN cells c ON c.name = r.cell "
                + "ORDER BY c.idx, r.item_order", null);
    }

    /** One cell's results in item order. */
    public synchronized List<ItemResult> results(String cell) {
        return queryResults("SELECT " + COLUMNS + " FROM results WHERE cell = ? ORDER BY item_order", cell);
    }

    /** One cell's item orders, parallel to {@link #results(String)}. */
    public synchronized List<Integer> itemOrders(String cell) {
        List<Integer> out = new ArrayList<>();
        try (PreparedStatement s = db.prepareStatement("SELECT item_order FROM results WHERE cell = ? ORDER BY item_order")) {
            s.setString(1, cell);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) out.add(rs.getInt(1));
            }
        } catch (SQLException e) {
            throw failure("read results", e);
        }
        return out;
    }

    private List<ItemResult> queryResults(String sql, String cell) {
        List<ItemResult> out = new ArrayList<>();
        try (PreparedStatement s = db.prepareStatement(sql)) {
            if (cell != null) s.setString(1, cell);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    int ts = rs.getInt("ts");
                    Boolean tsValue = rs.wasNull() ? null : ts != 0;
                    int exAlt = rs.getInt("ex_alt");
                    Boolean exAltValue = rs.wasNull() ? null : exAlt != 0;
                    int judge = rs.getInt("judge");
                    Boolean judgeValue = rs.wasNull() ? null : judge != 0;
                    out.add(new ItemResult(rs.getString("cell"), rs.getString("item_id"), rs.getString("category"),
                            rs.getString("difficulty"), rs.getString("question"), rs.getString("gold"),
                            rs.getString("predicted"), rs.getInt("va") != 0, rs.getInt("ex") != 0, rs.getInt("em") != 0,
                            tsValue, rs.getString("error"), rs.getString("error_class"), rs.getString("chosen"),
                            rs.getInt("prompt_tokens"), rs.getInt("generated_tokens"), rs.getLong("millis"),
                            rs.getInt("tables"), rs.getInt("joins"), rs.getInt("aggregates"), rs.getInt("nesting"),
                            rs.getInt("calls"), rs.getInt("cached_calls"), exAltValue, judgeValue,
                            rs.getString("judge_reason"), rs.getString("diagnosis")));
                }
            }
        } catch (SQLException e) {
            throw failure("read results", e);
        }
        return out;
    }

    /** Records the judge's verdict on a stored row (the judge pass after the answers; resumable: unjudged rows). */
    public synchronized void putJudge(String cell, String itemId, boolean verdict, String reason) {
        try (PreparedStatement s = db.prepareStatement(
                "UPDATE results SET judge = ?, judge_reason = ? WHERE cell = ? AND item_id = ?")) {
            s.setInt(1, verdict ? 1 : 0);
            s.setString(2, reason);
            s.setString(3, cell);
            s.setString(4, itemId);
            if (s.executeUpdate() != 1) throw new UserError("no result " + cell + "/" + itemId + " in " + file + " to judge");
        } catch (SQLException e) {
            throw failure("store the judge's verdict on " + cell + "/" + itemId, e);
        }
    }

    /** One cell's traces (JSON objects as stored), in item order. */
    public synchronized List<String> traces(String cell) {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = db.prepareStatement("SELECT trace_json FROM results WHERE cell = ? ORDER BY item_order")) {
            s.setString(1, cell);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) out.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw failure("read traces", e);
        }
        return out;
    }

    /** Whether any item has a row (a run directory without rows has produced nothing yet). */
    public synchronized boolean hasResults() {
        try (PreparedStatement s = db.prepareStatement("SELECT 1 FROM results LIMIT 1");
             ResultSet rs = s.executeQuery()) {
            return rs.next();
        } catch (SQLException e) {
            throw failure("read results", e);
        }
    }

    /** A meta value, or null. */
    public synchronized String meta(String key) {
        try (PreparedStatement s = db.prepareStatement("SELECT value FROM meta WHERE key = ?")) {
            s.setString(1, key);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw failure("read meta", e);
        }
    }

    /** Every meta key and value, keys sorted. */
    public synchronized SortedMap<String, String> metaEntries() {
        SortedMap<String, String> out = new TreeMap<>();
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT key, value FROM meta")) {
            while (rs.next()) out.put(rs.getString(1), rs.getString(2));
        } catch (SQLException e) {
            throw failure("read meta", e);
        }
        return out;
    }

    /**
     * Runs {@code work} (calls of this store's write methods) as one transaction: all of it or none is stored, with one
     * sync to disk instead of one per row (a merge writes thousands of rows into a directory nobody sees yet).
     */
    public synchronized void inOneTransaction(Runnable work) {
        try {
            db.setAutoCommit(false);
            try {
                work.run();
                db.commit();
            } catch (RuntimeException | Error e) {
                db.rollback();
                throw e;
            } finally {
                db.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failure("write a transaction", e);
        }
    }

    /** Sets a meta value (replacing an earlier one). */
    public synchronized void putMeta(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        try (PreparedStatement s = db.prepareStatement(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")) {
            s.setString(1, key);
            s.setString(2, value);
            s.executeUpdate();
        } catch (SQLException e) {
            throw failure("write meta", e);
        }
    }

    /** Removes a meta value (no-op when absent). */
    public synchronized void removeMeta(String key) {
        try (PreparedStatement s = db.prepareStatement("DELETE FROM meta WHERE key = ?")) {
            s.setString(1, key);
            s.executeUpdate();
        } catch (SQLException e) {
            throw failure("write meta", e);
        }
    }

    private IllegalStateException failure(String what, SQLException e) {
        return new IllegalStateException("cannot " + what + " in " + file + ": " + e.getMessage(), e);
    }

    @Override
    public synchronized void close() {
        SqliteFiles.closeQuietly(db);
        try {
            if (lock != null) lock.release();
            if (lockChannel != null) lockChannel.close();
        } catch (IOException ignored) {
            // the OS drops the lock with the channel anyway
        }
    }
}
