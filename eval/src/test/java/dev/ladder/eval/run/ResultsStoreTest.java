package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.scorer.score.MetricValue;
import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsStoreTest {

    @TempDir Path tmp;

    static final Cell K0 = new Cell(0, "prompt-k0", "tiny", "", "prompt-k0", 7);
    static final Cell QLORA = new Cell(1, "qlora-k3", "tiny", "adapters/tiny-lora", "prompt-k3", 7);

    static ItemResult result(Cell cell, String item, String predicted, Boolean ts) {
        return new ItemResult(cell.name(), item, "join", "medium", "How many " + item + "?", "SELECT 1", predicted,
                true, predicted.equals("SELECT 1"), false, ts, ts == null ? "SYNTAX: near x" : null, "wrong-table",
                "standard", 120, 14, 950L, 2, 1, 1, 0);
    }

    @Test
    void roundTripsEveryFieldInCellThenItemOrder() {
        Path file = tmp.resolve("run/results.sqlite");
        ItemResult nulls = new ItemResult(K0.name(), "q-3", null, null, null, null, "", false, false, false, null,
                null, null, null, 0, 0, 0L, 0, 0, 0, 0);
        try (ResultsStore s = ResultsStore.open(file)) {
            s.putCell(QLORA);
            s.putCell(K0);
            s.put(result(QLORA, "q-2", "SELECT 1", true), 1, "{\"questionId\":\"q-2\"}");
            s.put(result(QLORA, "q-1", "SELECT 2", false), 0, "{\"questionId\":\"q-1\"}");
            s.put(nulls, 2, "{}");
            s.put(result(K0, "q-1", "SELECT 1", null), 0, "{\"questionId\":\"q-1\",\"steps\":[]}");
            s.putMeta("experiment", "ablation");
            s.putMeta("experiment", "ablation-2");
        }
        try (ResultsStore s = ResultsStore.open(file)) {
            assertThat(s.cells()).containsExactly(K0, QLORA);
            assertThat(s.results()).containsExactly(result(K0, "q-1", "SELECT 1", null), nulls,
                    result(QLORA, "q-1", "SELECT 2", false), result(QLORA, "q-2", "SELECT 1", true));
            assertThat(s.results(QLORA.name())).extracting(ItemResult::itemId).containsExactly("q-1", "q-2");
            assertThat(s.itemOrders(K0.name())).containsExactly(0, 2);
            assertThat(s.traces(QLORA.name())).containsExactly("{\"questionId\":\"q-1\"}", "{\"questionId\":\"q-2\"}");
            assertThat(s.meta("experiment")).isEqualTo("ablation-2");
            assertThat(s.meta("absent")).isNull();
        }
    }

    @Test
    void putCellIsIdempotentAndRefusesAChangedDefinition() {
        try (ResultsStore s = ResultsStore.open(tmp.resolve("results.sqlite"))) {
            s.putCell(K0);
            s.putCell(K0);
            assertThat(s.cells()).containsExactly(K0);
            Cell changed = new Cell(0, "prompt-k0", "other-model", "", "prompt-k0", 7);
            assertThatThrownBy(() -> s.putCell(changed)).isInstanceOf(UserError.class)
                    .hasMessageContaining("cell 'prompt-k0'").hasMessageContaining("model tiny")
                    .hasMessageContaining("model other-model").hasMessageContaining("experiment changed");
            Cell reseeded = new Cell(0, "prompt-k0", "tiny", "", "prompt-k0", 8);
            assertThatThrownBy(() -> s.putCell(reseeded)).isInstanceOf(UserError.class).hasMessageContaining("seed 8");
            Cell sameIndex = new Cell(0, "agent-1", "tiny", "", "agent-1", 7);
            assertThatThrownBy(() -> s.putCell(sameIndex)).isInstanceOf(UserError.class)
                    .hasMessageContaining("index 0").hasMessageContaining("'prompt-k0'");
            s.putCell(QLORA);
            assertThat(s.cells()).containsExactly(K0, QLORA);
        }
    }

    @Test
    void hasAndFinishedItemsFollowPuts() {
        try (ResultsStore s = ResultsStore.open(tmp.resolve("results.sqlite"))) {
            s.putCell(K0);
            s.putCell(QLORA);
            assertThat(s.has(K0.name(), "q-1")).isFalse();
            assertThat(s.finishedItems(K0.name())).isEmpty();
            s.put(result(K0, "q-9", "SELECT 1", true), 5, "{}");
            s.put(result(K0, "q-1", "SELECT 1", true), 0, "{}");
            assertThat(s.has(K0.name(), "q-1")).isTrue();
            assertThat(s.has(QLORA.name(), "q-1")).isFalse();
            assertThat(s.finishedItems(K0.name())).containsExactly("q-1", "q-9");
            assertThat(s.finishedItems("no-such-cell")).isEmpty();
        }
    }

    @Test
    void putReplacesARescoredItemAndRefusesInconsistentRows() {
        try (ResultsStore s = ResultsStore.open(tmp.resolve("results.sqlite"))) {
            s.putCell(K0);
            s.put(result(K0, "q-1", "SELECT 2", false), 0, "{}");
            s.put(result(K0, "q-1", "SELECT 1", true), 0, "{\"rescored\":true}");
            assertThat(s.results()).containsExactly(result(K0, "q-1", "SELECT 1", true));
            assertThat(s.traces(K0.name())).containsExactly("{\"rescored\":true}");

            assertThatThrownBy(() -> s.put(result(QLORA, "q-1", "SELECT 1", true), 0, "{}"))
                    .isInstanceOf(UserError.class).hasMessageContaining("putCell");
            assertThatThrownBy(() -> s.put(result(K0, "q-2", "SELECT 1", true), 0, "{}"))
                    .isInstanceOf(UserError.class).hasMessageContaining("order 0");
            assertThatThrownBy(() -> s.put(result(K0, "q-3", "SELECT 1", true), 1, "[1]"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> s.put(result(K0, "q-3", "SELECT 1", true), 1, "{broken"))
                    .isInstanceOf(IllegalArgumentException.class);
            // a refused put leaves nothing behind
            assertThat(s.finishedItems(K0.name())).containsExactly("q-1");
            assertThat(s.has(QLORA.name(), "q-1")).isFalse();
        }
    }

    /** The results table of schema version 3 (what Ladder wrote before metrics moved to rows of their own). */
    private static final String V3_RESULTS = """
            CREATE TABLE cells (name TEXT PRIMARY KEY, idx INTEGER NOT NULL UNIQUE, model TEXT NOT NULL,
              adapter TEXT NOT NULL, strategy TEXT NOT NULL, seed INTEGER NOT NULL);
            CREATE TABLE results (cell TEXT NOT NULL REFERENCES cells(name), item_id TEXT NOT NULL,
              item_order INTEGER NOT NULL, category TEXT, difficulty TEXT, question TEXT, gold TEXT,
              predicted TEXT NOT NULL, va INTEGER NOT NULL, ex INTEGER NOT NULL, em INTEGER NOT NULL, ts INTEGER,
              error TEXT, error_class TEXT, chosen TEXT, prompt_tokens INTEGER NOT NULL,
              generated_tokens INTEGER NOT NULL, millis INTEGER NOT NULL, tables INTEGER NOT NULL,
              joins INTEGER NOT NULL, aggregates INTEGER NOT NULL, nesting INTEGER NOT NULL,
              calls INTEGER NOT NULL DEFAULT 0, cached_calls INTEGER NOT NULL DEFAULT 0, ex_alt INTEGER,
              judge INTEGER, judge_reason TEXT, diagnosis TEXT, trace_json TEXT NOT NULL,
              PRIMARY KEY (cell, item_id), UNIQUE (cell, item_order));
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO cells VALUES ('prompt-k0', 0, 'base', '', 'prompt-k0', 0);
            """;

    /** A store as Ladder wrote it at schema {@code version} (1 or 3), with two answers of one cell. */
    private Path oldStore(int version) throws Exception {
        Path file = tmp.resolve("v" + version + ".sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            for (String sql : V3_RESULTS.split(";")) if (!sql.isBlank()) st.execute(sql);
            st.execute("INSERT INTO results VALUES ('prompt-k0', 'q-1', 0, 'cat', 'easy', 'Q1?', 'SELECT 1', 'SELECT 1',"
                    + " 1, 1, 0, 1, NULL, 'correct', 'standard', 10, 3, 5, 1, 0, 0, 0, 2, 1, 0, 1, 'it answers', NULL, '{}')");
            st.execute("INSERT INTO results VALUES ('prompt-k0', 'q-2', 1, 'cat', 'hard', 'Q2?', 'SELECT 2', 'SELEC 2',"
                    + " 0, 0, 0, NULL, 'SYNTAX: near', 'not-executable', 'standard', 10, 3, 5, 1, 0, 0, 0, 1, 0, NULL, NULL,"
                    + " NULL, 'syntax', '{}')");
            if (version == 1) {
                for (String column : List.of("calls", "cached_calls", "ex_alt", "judge", "judge_reason", "diagnosis")) {
                    st.execute("ALTER TABLE results DROP COLUMN " + column);
                }
            }
            st.execute("PRAGMA application_id = " + 0x4C445252);
            st.execute("PRAGMA user_version = " + version);
        }
        return file;
    }

    @Test
    void aStoreOfSchemaVersionOneIsUpgradedInPlaceAndKeepsItsRows() throws Exception {
        Path file = oldStore(1);
        try (ResultsStore s = ResultsStore.openReadOnly(file)) {
            ItemResult r = s.results(K0.name()).get(0);
            assertThat(r.predicted()).isEqualTo("SELECT 1");
            assertThat(r.calls()).isZero();
            assertThat(List.of(r.va(), r.ex(), r.em())).containsExactly(true, true, false);
            assertThat(r.ts()).isTrue();
            assertThat(r.exAlt()).isNull();
            assertThat(r.judge()).isNull();
            assertThat(r.diagnosis()).isNull();
        }
        try (ResultsStore s = ResultsStore.open(file)) {
            s.put(new ItemResult(K0.name(), "q-3", null, null, null, null, "SELECT 3", true, true, false, null, null,
                    null, null, 0, 0, 0, 0, 0, 0, 0, 3, 1, Boolean.FALSE), 2, "{}");
            assertThat(s.results(K0.name()).get(2).calls()).isEqualTo(3);
            assertThat(s.results(K0.name()).get(2).cachedCalls()).isEqualTo(1);
            assertThat(s.results(K0.name()).get(2).completions()).isEqualTo(3);
            assertThat(s.results(K0.name()).get(2).exAlt()).isFalse();
        }
    }

    @Test
    void aVersionThreeStoreMovesEachMetricToARowOfItsOwnAndEachItemToOne() throws Exception {
        Path file = oldStore(3);
        try (ResultsStore s = ResultsStore.openReadOnly(file)) {
            List<ItemResult> rows = s.results(K0.name());
            assertThat(rows).hasSize(2);
            ItemResult first = rows.get(0);
            assertThat(first.scores().keySet()).containsExactly("VA", "EX", "EM", "TS", ItemResult.EX_ALT, ItemResult.JUDGE);
            assertThat(first.exAlt()).isFalse();
            assertThat(first.judge()).isTrue();
            assertThat(first.judgeReason()).isEqualTo("it answers");
            assertThat(List.of(first.category(), first.difficulty(), first.question(), first.gold()))
                    .containsExactly("cat", "easy", "Q1?", "SELECT 1");
            assertThat(first.calls()).isEqualTo(2);
            // version 5's completions were not counted then: 0, which the costs table shows as missing
            assertThat(first.completions()).isZero();
            ItemResult second = rows.get(1);
            assertThat(second.scores().keySet()).containsExactly("VA", "EX", "EM");
            assertThat(second.ts()).isNull();
            assertThat(second.error()).isEqualTo("SYNTAX: near");
            assertThat(second.diagnosis()).isEqualTo("syntax");
            assertThat(s.metrics()).containsExactly("VA", "EX", "EM", "TS", ItemResult.EX_ALT, ItemResult.JUDGE);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM scores), "
                     + "(SELECT count(*) FROM pragma_table_info('results') WHERE name IN ('va', 'gold', 'judge'))")) {
            assertThat(List.of(rs.getInt(1), rs.getInt(2), rs.getInt(3))).containsExactly(2, 9, 0);
        }
    }

    @Test
    void aJudgeReplyWithoutAVerdictIsStoredAsUnknown() {
        try (ResultsStore s = ResultsStore.open(tmp.resolve("results.sqlite"))) {
            s.putCell(K0);
            s.put(result(K0, "q-1", "SELECT 1", true), 0, "{}");
            s.put(result(K0, "q-2", "SELECT 2", true), 1, "{}");
            s.putJudge(K0.name(), "q-1", null, "I think it might be right");
            List<ItemResult> back = s.results(K0.name());
            assertThat(back.get(0).judged()).isTrue();
            assertThat(back.get(0).judgeUnknown()).isTrue();
            assertThat(back.get(0).judge()).isNull();
            assertThat(back.get(0).judgeReason()).isEqualTo(ItemResult.JUDGE_UNKNOWN + "I think it might be right");
            // the other row was not reached: the pass judges it on resume, and only it
            assertThat(back.get(1).judged()).isFalse();
        }
    }

    @Test
    void aMetricOfAnyNameIsARowAndNeedsNoColumn() {
        try (ResultsStore s = ResultsStore.open(tmp.resolve("results.sqlite"))) {
            s.putCell(K0);
            ItemResult r = result(K0, "q-1", "SELECT 1", true).withScore("rows-match", new MetricValue(1.0, "3 rows"));
            s.put(r, 0, "{}");
            s.putJudge(K0.name(), "q-1", false, "wrong column");
            ItemResult back = s.results(K0.name()).get(0);
            assertThat(back.score("rows-match")).isEqualTo(new MetricValue(1.0, "3 rows"));
            assertThat(back.judge()).isFalse();
            assertThat(back.judgeReason()).isEqualTo("wrong column");
            assertThat(s.metrics()).endsWith("rows-match", ItemResult.JUDGE);
            // a seed-free rung's later seed reuses the row whole: every metric, every call counted as cached
            ItemResult reused = back.reusedIn(QLORA.name());
            assertThat(reused.scores()).isEqualTo(back.scores());
            assertThat(reused.cachedCalls()).isEqualTo(reused.calls());
        }
    }

    @Test
    void aPutIsCommittedWhenItReturnsAndAnUncommittedWriteLeavesNothing() throws Exception {
        Path file = tmp.resolve("results.sqlite");
        try (ResultsStore s = ResultsStore.open(file)) {
            s.putCell(K0);
            s.put(result(K0, "q-1", "SELECT 1", true), 0, "{}");
            // another connection sees the row while the store is still open: nothing waits for close()
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement st = other.createStatement();
                 var rs = st.executeQuery("SELECT count(*) FROM results")) {
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
        // a writer that dies before COMMIT: its row never appears
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO items (item_id, item_order, tables, joins, aggregates, nesting) "
                        + "VALUES ('q-2', 1, 0, 0, 0, 0)");
                st.executeUpdate("INSERT INTO results (cell, item_id, item_order, predicted, prompt_tokens, "
                        + "generated_tokens, millis, trace_json) VALUES ('prompt-k0', 'q-2', 1, 'x', 0, 0, 0, '{}')");
            }
        }
        try (ResultsStore s = ResultsStore.open(file)) {
            assertThat(s.finishedItems(K0.name())).containsExactly("q-1");
        }
    }

    @Test
    void oneWriterAtATimeAndReadersAnyTime() {
        Path file = tmp.resolve("results.sqlite");
        try (ResultsStore s = ResultsStore.open(file)) {
            s.putCell(K0);
            assertThatThrownBy(() -> ResultsStore.open(file)).isInstanceOf(UserError.class)
                    .hasMessageContaining("open for writing");
            try (ResultsStore r = ResultsStore.openReadOnly(file)) {
                assertThat(r.cells()).containsExactly(K0);
                assertThatThrownBy(() -> r.putMeta("k", "v")).isInstanceOf(IllegalStateException.class);
            }
        }
        try (ResultsStore again = ResultsStore.open(file)) {
            assertThat(again.cells()).containsExactly(K0);
        }
        assertThatThrownBy(() -> ResultsStore.openReadOnly(tmp.resolve("absent.sqlite")))
                .isInstanceOf(UserError.class).hasMessageContaining("no results store");
    }

    @Test
    void refusesOtherSchemaVersionsAndForeignFiles() throws Exception {
        Path newer = tmp.resolve("newer.sqlite");
        ResultsStore.open(newer).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + newer); Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = " + (ResultsStore.SCHEMA_VERSION + 1));
        }
        assertThatThrownBy(() -> ResultsStore.open(newer)).isInstanceOf(UserError.class)
                .hasMessageContaining("schema version " + (ResultsStore.SCHEMA_VERSION + 1))
                .hasMessageContaining("newer Ladder");

        Path foreign = tmp.resolve("foreign.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + foreign); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (x INTEGER)");
        }
        assertThatThrownBy(() -> ResultsStore.open(foreign)).isInstanceOf(UserError.class)
                .hasMessageContaining("not a Ladder results store");

        Path cache = tmp.resolve("cache.sqlite");
        GenerationCache.open(cache).close();
        assertThatThrownBy(() -> ResultsStore.open(cache)).isInstanceOf(UserError.class)
                .hasMessageContaining("not a Ladder results store");

        Path garbage = tmp.resolve("garbage.sqlite");
        Files.writeString(garbage, "this is not a database, it only has a .sqlite name".repeat(20));
        assertThatThrownBy(() -> ResultsStore.open(garbage)).isInstanceOf(UserError.class)
                .hasMessageContaining(garbage.toString());
        assertThat(List.of(newer, foreign, garbage)).allMatch(Files::exists);
    }
}
