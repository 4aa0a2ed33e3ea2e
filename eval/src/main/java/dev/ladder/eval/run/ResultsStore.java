package dev.ladder.eval.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.scorer.score.BuiltInMetrics;
import dev.ladder.scorer.score.ItemOutcome;
import dev.ladder.scorer.score.MetricValue;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * benchmark item ({@code items}: question, gold and the gold's features, written once), one row per answer (cell,
 * item) ({@code results}), one row per metric of an answer ({@code scores}: cell, item, metric, value, detail; a new
 * metric needs no new column) and key/value pairs ({@code meta}). A run resumes by skipping what {@link #has} knows.
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
    public static final int SCHEMA_VERSION = 7;
    /** {@code PRAGMA application_id} of a results store ("LDRR"), so a foreign SQLite file is not mistaken for one. */
    static final int APPLICATION_ID = 0x4C445252;

    private static final ObjectMapper JSON = StableJson.mapper();

    /** One row per benchmark item, written with its first answer. */
    private static final String ITEMS = """
            CREATE TABLE items (
              item_id    TEXT    PRIMARY KEY,
              item_order INTEGER NOT NULL,
              category   TEXT,
              difficulty TEXT,
              question   TEXT,
              gold       TEXT,
              tables     INTEGER NOT NULL,
              joins      INTEGER NOT NULL,
              aggregates INTEGER NOT NULL,
              nesting    INTEGER NOT NULL
            );
            """;
    /** One row per metric of an answer. */
    private static final String SCORES = """
            CREATE TABLE scores (
              cell    TEXT NOT NULL,
              item_id TEXT NOT NULL,
              metric  TEXT NOT NULL,
              value   REAL,
              detail  TEXT,
              PRIMARY KEY (cell, item_id, metric)
            );
            """;
    /** One row per answer (the table's name is filled in: the upgrade builds it beside the old one). */
    private static final String RESULTS = """
            CREATE TABLE %s (
              cell             TEXT    NOT NULL REFERENCES cells(name),
              item_id          TEXT    NOT NULL REFERENCES items(item_id),
              item_order       INTEGER NOT NULL,
              predicted        TEXT    NOT NULL,
              error            TEXT,
              error_class      TEXT,
              chosen           TEXT,
              prompt_tokens    INTEGER NOT NULL,
              generated_tokens INTEGER NOT NULL,
              millis           INTEGER NOT NULL,
              calls            INTEGER NOT NULL DEFAULT 0,
              cached_calls     INTEGER NOT NULL DEFAULT 0,
              diagnosis        TEXT,
              trace_json       TEXT    NOT NULL,
              PRIMARY KEY (cell, item_id),
              UNIQUE (cell, item_order)
            );
            """;

    /** Version 5's column, added to a new store's results as to an upgraded one's. */
    private static final String COMPLETIONS = """
            ALTER TABLE results ADD COLUMN completions INTEGER NOT NULL DEFAULT 0;
            """;

    /**
     * Version 6's columns: each row's outcome (NULL on older rows: derived from EX, the prediction and its error) and
     * what its cached calls' original calls took (0 on older rows: not recorded).
     */
    private static final String OUTCOME = """
            ALTER TABLE results ADD COLUMN outcome TEXT;
            ALTER TABLE results ADD COLUMN cached_millis INTEGER NOT NULL DEFAULT 0;
            """;

    /** Version 7's column: the database each item runs on (NULL on older rows: their run had one database). */
    private static final String ITEM_DATABASE = """
            ALTER TABLE items ADD COLUMN db TEXT;
            """;

    private static final String SCHEMA = """
            CREATE TABLE cells (
              name     TEXT    PRIMARY KEY,
              idx      INTEGER NOT NULL UNIQUE,
              model    TEXT    NOT NULL,
              adapter  TEXT    NOT NULL,
              strategy TEXT    NOT NULL,
              seed     INTEGER NOT NULL
            );
            CREATE TABLE meta (
              key   TEXT PRIMARY KEY,
              value TEXT NOT NULL
            );
            """ + ITEMS + RESULTS.formatted("results") + SCORES + COMPLETIONS + OUTCOME + ITEM_DATABASE;

    /**
     * What takes an older store to this schema, one version at a time (a version-1 run keeps its rows; their call
     * counts read as 0; rows before version 3 are not judged and have no diagnosis). Version 4 moves each item's
     * facts to {@code items} and every metric's value to {@code scores}, one row per metric, in the file itself.
     * Version 5 adds each row's completions (0 on older rows: not counted). Version 6 adds each row's outcome (older
     * rows: derived, a wrong answer that ran reading "not split"). Version 7 adds each item's database (older
     * rows: not recorded).
     */
    private static final Map<Integer, String> UPGRADES = Map.of(1, """
            ALTER TABLE results ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE results ADD COLUMN cached_calls INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE results ADD COLUMN ex_alt INTEGER;
            """, 2, """
            ALTER TABLE results ADD COLUMN judge INTEGER;
            ALTER TABLE results ADD COLUMN judge_reason TEXT;
            ALTER TABLE results ADD COLUMN diagnosis TEXT;
            """, 3, ITEMS + """
            INSERT INTO items SELECT item_id, MIN(item_order), category, difficulty, question, gold, tables, joins,
              aggregates, nesting FROM results GROUP BY item_id;
            """ + SCORES + """
            INSERT INTO scores SELECT cell, item_id, 'VA', va, NULL FROM results;
            INSERT INTO scores SELECT cell, item_id, 'EX', ex, NULL FROM results;
            INSERT INTO scores SELECT cell, item_id, 'EM', em, NULL FROM results;
            INSERT INTO scores SELECT cell, item_id, 'TS', ts, NULL FROM results WHERE ts IS NOT NULL;
            INSERT INTO scores SELECT cell, item_id, 'EX-alt', ex_alt, NULL FROM results WHERE ex_alt IS NOT NULL;
            INSERT INTO scores SELECT cell, item_id, 'judge', judge, judge_reason FROM results WHERE judge IS NOT NULL;
            """ + RESULTS.formatted("results_v4") + """
            INSERT INTO results_v4 SELECT cell, item_id, item_order, predicted, error, error_class, chosen,
              prompt_tokens, generated_tokens, millis, calls, cached_calls, diagnosis, trace_json FROM results;
            DROP TABLE results;
            ALTER TABLE results_v4 RENAME TO results;
            """, 4, COMPLETIONS, 5, OUTCOME, 6, ITEM_DATABASE);

    private static final List<String> RESULT_COLUMNS = List.of("cell", "item_id", "item_order", "predicted", "error",
            "error_class", "chosen", "prompt_tokens", "generated_tokens", "millis", "calls", "cached_calls", "diagnosis",
            "trace_json", "completions", "outcome", "cached_millis");
    /** Insert, or replace every column but the key of an existing (cell, item_id) row (a re-score). */
    private static final String UPSERT_RESULT = "INSERT INTO results (" + String.join(", ", RESULT_COLUMNS) + ") VALUES ("
            + String.join(", ", Collections.nCopies(RESULT_COLUMNS.size(), "?")) + ") ON CONFLICT (cell, item_id) DO UPDATE SET "
            + String.join(", ", RESULT_COLUMNS.subList(2, RESULT_COLUMNS.size()).stream().map(c -> c + " = excluded." + c).toList());
    private static final String UPSERT_ITEM = "INSERT INTO items (item_id, item_order, category, difficulty, question, gold, "
            + "tables, joins, aggregates, nesting, db) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (item_id) DO UPDATE SET "
            + "category = excluded.category, difficulty = excluded.difficulty, question = excluded.question, "
            + "gold = excluded.gold, tables = excluded.tables, joins = excluded.joins, aggregates = excluded.aggregates, "
            + "nesting = excluded.nesting, db = excluded.db";
    private static final String UPSERT_SCORE = "INSERT INTO scores (cell, item_id, metric, value, detail) VALUES (?, ?, ?, ?, ?) "
            + "ON CONFLICT (cell, item_id, metric) DO UPDATE SET value = excluded.value, detail = excluded.detail";
    /** A result row joined with its item; scores are read separately and attached. */
    private static final String SELECT_RESULTS = "SELECT r.cell, r.item_id, r.item_order, i.category, i.difficulty, "
            + "i.question, i.gold, r.predicted, r.error, r.error_class, r.chosen, r.prompt_tokens, r.generated_tokens, "
            + "r.millis, i.tables, i.joins, i.aggregates, i.nesting, r.calls, r.cached_calls, r.diagnosis, r.completions, r.outcome, r.cached_millis, i.db "
            + "FROM results r JOIN items i ON i.item_id = r.item_id JOIN cells c ON c.name = r.cell";

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
            throw WriteFailures.orElse(abs, e, new UserError("cannot open results store " + abs + ": " + e.getMessage(), e));
        }
    }

    /** Opens an existing store for reading (reports); takes no writer lock. */
    public static ResultsStore openReadOnly(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(abs)) throw new UserError("no results store at " + abs);
        Connection db = null;
        try {
            db = SqliteFiles.connectReadOnly(abs, "results store");
            if (SqliteFiles.needsUpgrade(db, APPLICATION_ID, SCHEMA_VERSION)) {
                // a store written by an older Ladder: add its new columns once, then read as usual
                SqliteFiles.closeQuietly(db);
                Connection writable = SqliteFiles.connect(abs, false);
                try {
                    SqliteFiles.checkOrCreate(writable, abs, "results store", APPLICATION_ID, SCHEMA_VERSION, null, UPGRADES);
                } finally {
                    SqliteFiles.closeQuietly(writable);
                }
                db = SqliteFiles.connectReadOnly(abs, "results store");
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
        inOneTransaction(() -> {
            try {
                putItem(r, itemOrder);
                try (PreparedStatement s = db.prepareStatement(UPSERT_RESULT)) {
                    int i = 1;
                    s.setString(i++, r.cell());
                    s.setString(i++, r.itemId());
                    s.setInt(i++, itemOrder);
                    s.setString(i++, r.predicted());
                    s.setString(i++, r.error());
                    s.setString(i++, r.errorClass());
                    s.setString(i++, r.chosen());
                    s.setInt(i++, r.promptTokens());
                    s.setInt(i++, r.generatedTokens());
                    s.setLong(i++, r.millis());
                    s.setInt(i++, r.calls());
                    s.setInt(i++, r.cachedCalls());
                    s.setString(i++, r.diagnosis());
                    s.setString(i++, traceJson);
                    s.setInt(i++, r.completions());
                    s.setString(i++, r.outcome());
                    s.setLong(i, r.cachedMillis());
                    s.executeUpdate();
                }
                // a re-score replaces the row's metrics as a whole
                try (PreparedStatement s = db.prepareStatement("DELETE FROM scores WHERE cell = ? AND item_id = ?")) {
                    s.setString(1, r.cell());
                    s.setString(2, r.itemId());
                    s.executeUpdate();
                }
                for (Map.Entry<String, MetricValue> e : r.scores().entrySet()) putScore(r.cell(), r.itemId(), e.getKey(), e.getValue());
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
        });
    }

    /** The item's facts, written with its first answer (and kept equal by later ones). */
    private void putItem(ItemResult r, int itemOrder) throws SQLException {
        try (PreparedStatement s = db.prepareStatement(UPSERT_ITEM)) {
            s.setString(1, r.itemId());
            s.setInt(2, itemOrder);
            s.setString(3, r.category());
            s.setString(4, r.difficulty());
            s.setString(5, r.question());
            s.setString(6, r.gold());
            s.setInt(7, r.tables());
            s.setInt(8, r.joins());
            s.setInt(9, r.aggregates());
            s.setInt(10, r.nesting());
            s.setString(11, r.database().isEmpty() ? null : r.database());
            s.executeUpdate();
        }
    }

    private void putScore(String cell, String itemId, String metric, MetricValue v) throws SQLException {
        try (PreparedStatement s = db.prepareStatement(UPSERT_SCORE)) {
            s.setString(1, cell);
            s.setString(2, itemId);
            s.setString(3, metric);
            if (v.value() == null) s.setNull(4, Types.REAL);
            else s.setDouble(4, v.value());
            s.setString(5, v.detail());
            s.executeUpdate();
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
        return queryResults(SELECT_RESULTS + " ORDER BY c.idx, r.item_order", null);
    }

    /** One cell's results in item order. */
    public synchronized List<ItemResult> results(String cell) {
        return queryResults(SELECT_RESULTS + " WHERE r.cell = ? ORDER BY r.item_order", cell);
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

    /** The metrics the store has values of, in the order they were first written (built-in ones first). */
    public synchronized List<String> metrics() {
        List<String> out = new ArrayList<>();
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT metric FROM scores GROUP BY metric ORDER BY MIN(rowid)")) {
            while (rs.next()) out.add(rs.getString(1));
        } catch (SQLException e) {
            throw failure("read metrics", e);
        }
        return out;
    }

    private List<ItemResult> queryResults(String sql, String cell) {
        // every metric of the rows asked for, by (cell, item), in the order they were written
        Map<String, Map<String, MetricValue>> scores = new HashMap<>();
        try (PreparedStatement s = db.prepareStatement("SELECT cell, item_id, metric, value, detail FROM scores"
                + (cell != null ? " WHERE cell = ?" : "") + " ORDER BY rowid")) {
            if (cell != null) s.setString(1, cell);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    double v = rs.getDouble(4);
                    Double value = rs.wasNull() ? null : v;
                    scores.computeIfAbsent(rs.getString(1) + '\u0000' + rs.getString(2), k -> new LinkedHashMap<>())
                            .put(rs.getString(3), new MetricValue(value, rs.getString(5)));
                }
            }
        } catch (SQLException e) {
            throw failure("read scores", e);
        }
        List<ItemResult> out = new ArrayList<>();
        try (PreparedStatement s = db.prepareStatement(sql)) {
            if (cell != null) s.setString(1, cell);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String c = rs.getString("cell");
                    String item = rs.getString("item_id");
                    String predicted = rs.getString("predicted");
                    String error = rs.getString("error");
                    String outcome = rs.getString("outcome");
                    Map<String, MetricValue> rowScores = scores.getOrDefault(c + '\u0000' + item, Map.of());
                    out.add(new ItemResult(c, item, rs.getString("category"), rs.getString("difficulty"),
                            rs.getString("question"), rs.getString("gold"), predicted,
                            error, rs.getString("error_class"), rs.getString("chosen"),
                            rs.getInt("prompt_tokens"), rs.getInt("generated_tokens"), rs.getLong("millis"),
                            rs.getInt("tables"), rs.getInt("joins"), rs.getInt("aggregates"), rs.getInt("nesting"),
                            rs.getInt("calls"), rs.getInt("cached_calls"), rs.getString("diagnosis"),
                            rowScores, rs.getInt("completions"), rs.getLong("cached_millis"), outcome != null ? outcome
                            : ItemOutcome.derived(predicted, error, rowScores.getOrDefault(BuiltInMetrics.EX.name(),
                                    MetricValue.ABSENT).holds()), rs.getString("db")));
                }
            }
        } catch (SQLException e) {
            throw failure("read results", e);
        }
        return out;
    }

    /**
     * Stores the LLM judge's verdict on one answer, its reasoning as the detail. {@code verdict} null: the judge
     * replied with no verdict it could read, stored as a judged row with no value (detail "unknown: ..."), so reports
     * count it apart instead of reading it as NO.
     */
    public synchronized void putJudge(String cell, String itemId, Boolean verdict, String reason) {
        try {
            if (!has(cell, itemId)) throw new UserError("no result " + cell + "/" + itemId + " in " + file + " to judge");
            MetricValue v = verdict == null ? new MetricValue(null, ItemResult.JUDGE_UNKNOWN + (reason == null ? "" : reason))
                    : MetricValue.of(verdict, null).withDetail(reason);
            putScore(cell, itemId, ItemResult.JUDGE, v);
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
            // inside another transaction: part of it
            if (!db.getAutoCommit()) {
                work.run();
                return;
            }
            db.setAutoCommit(false);
        } catch (SQLException e) {
            throw failure("write a transaction", e);
        }
        Throwable failed = null;
        try {
            work.run();
            db.commit();
        } catch (SQLException e) {
            failed = failure("write a transaction", e);
        } catch (RuntimeException | Error e) {
            failed = e;
        }
        endTransaction(failed);
    }

    /**
     * Back to auto-commit, after rolling back when {@code failed}. SQLite itself rolls back a transaction that met a
     * full disk, so the rollback and the end of the transaction then fail too ("no transaction is active"): those
     * failures are added to the first, which is the one to report, and never replace it.
     */
    private void endTransaction(Throwable failed) {
        if (failed != null) {
            try {
                db.rollback();
            } catch (SQLException e) {
                failed.addSuppressed(e);
            }
        }
        try {
            db.setAutoCommit(true);
        } catch (SQLException e) {
            if (failed == null) throw failure("write a transaction", e);
            failed.addSuppressed(e);
        }
        if (failed instanceof RuntimeException r) throw r;
        if (failed instanceof Error err) throw err;
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

    /** A full disk or an unwritable folder is the user's (one line, exit 2); anything else a bug or a fault. */
    private RuntimeException failure(String what, SQLException e) {
        return WriteFailures.orElse(file, e, new IllegalStateException("cannot " + what + " in " + file + ": "
                + e.getMessage(), e));
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
