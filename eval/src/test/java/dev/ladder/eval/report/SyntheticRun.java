package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ItemResult;
import java.util.ArrayList;
import java.util.List;

/**
 * A hand-made run of 3 rungs x 20 items (q00..q19) whose tables are worked out by hand in the tests.
 *
 * <pre>
 * item        category     difficulty  A: EX  B: EX  C: EX
 * q00..q05    join         easy        yes    yes    yes
 * q06         join         easy        yes    no     yes
 * q07         join         medium      yes    no     yes
 * q08..q13    aggregation  medium      no     yes    yes
 * q14, q15    filter       hard        no     yes    yes
 * q16, q17    filter       hard        no     no     yes
 * q18, q19    filter       hard        no     no     no
 * </pre>
 * VA: A fails q18, q19 (not executable); B and C always execute. EM: A q00..q03, B q00..q05, C q00..q09.
 * TS (when asked for): A has none; B and C: EX except q00.
 */
final class SyntheticRun {

    static final String A = "prompt-k0";
    static final String B = "prompt-k3";
    static final String C = "agent_2";

    private SyntheticRun() {
    }

    static List<Cell> cells() {
        // listed out of order on purpose: reports order rungs by index
        return List.of(new Cell(2, C, "llama", "qlora", "agent-2", 7), new Cell(0, A, "llama", "", "prompt-k0", 7),
                new Cell(1, B, "llama", "", "prompt-k3", 7));
    }

    static List<ItemResult> results(boolean withTs) {
        List<ItemResult> out = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            boolean exA = i <= 7;
            boolean exB = i <= 5 || (i >= 8 && i <= 15);
            boolean exC = i <= 17;
            out.add(row(A, i, i < 18, exA, i <= 3, null, errorA(i, exA), 100 + i));
            out.add(row(B, i, true, exB, i <= 5, withTs ? exB && i != 0 : null, errorB(i, exB), 200));
            out.add(row(C, i, true, exC, i <= 9, withTs ? exC && i != 0 : null, errorC(i, exC), 300 + 2 * i));
        }
        return out;
    }

    private static String errorA(int i, boolean ex) {
        if (ex) return "correct";
        if (i >= 18) return "not-executable";
        return i <= 13 ? "wrong-join" : "wrong-filter";
    }

    private static String errorB(int i, boolean ex) {
        if (ex) return "correct";
        if (i <= 7) return "wrong-column";
        return i == 19 ? "alias-mismatch" : "wrong-filter";
    }

    private static String errorC(int i, boolean ex) {
        if (ex) return "correct";
        return i == 18 ? "other" : null;
    }

    private static ItemResult row(String cell, int i, boolean va, boolean ex, boolean em, Boolean ts,
                                  String errorClass, long millis) {
        String category = i <= 7 ? "join" : i <= 13 ? "aggregation" : "filter";
        String difficulty = i <= 6 ? "easy" : i <= 13 ? "medium" : "hard";
        String id = String.format(java.util.Locale.ROOT, "q%02d", i);
        return new ItemResult(cell, id, category, difficulty, "question " + i, "SELECT " + i, "SELECT " + i, va, ex,
                em, ts, va ? null : "SYNTAX: bad", errorClass, "standard", 50, i, millis, 1, 0, 0, 0);
    }
}
