package dev.ladder.inference.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The candidate row both in-process engines use: budgets, the context window, stop ids, and how calls are batched. */
class CandidateRowTest {

    static List<CandidateRow> rows(int request, int n, int maxNew, int promptLength, int context) {
        GenerationRequest r = new GenerationRequest(null, List.of(1, 2), maxNew, Sampling.GREEDY, n, 0, Set.of(9), List.of());
        List<CandidateRow> out = new ArrayList<>();
        for (int c = 0; c < n; c++) out.add(new CandidateRow(request, c, r, new int[promptLength], context, Set.of(8), null));
        return out;
    }

    @Test
    void budgetsTheContextWindowAndStopIdsEndARow() {
        CandidateRow budget = rows(0, 1, 2, 3, 100).get(0);
        budget.accept(5, -0.1f);
        assertThat(budget.done()).isFalse();
        budget.accept(6, -0.2f);
        assertThat(budget.toCandidate().finishReason()).isEqualTo(FinishReason.LENGTH);
        CandidateRow window = rows(0, 1, 10, 99, 100).get(0);
        window.accept(5, -0.1f);
        assertThat(window.toCandidate().finishReason()).isEqualTo(FinishReason.CONTEXT);
        assertThat(rows(0, 1, 10, 100, 100).get(0).done()).isTrue();
        assertThat(rows(0, 1, 0, 3, 100).get(0).toCandidate().finishReason()).isEqualTo(FinishReason.LENGTH);
        for (int stop : new int[] {8, 9}) {
            CandidateRow r = rows(0, 1, 10, 3, 100).get(0);
            r.accept(stop, -0.1f);
            assertThat(r.toCandidate().finishReason()).isEqualTo(FinishReason.STOP_TOKEN);
            assertThat(r.toCandidate().tokenIds()).isEmpty();
        }
    }

    @Test
    void wholeRequestsAreBatchedUpToTheRowLimitAndFinishedOnesLeftOut() {
        List<List<CandidateRow>> calls = List.of(rows(0, 2, 5, 3, 100), rows(1, 3, 5, 3, 100), rows(2, 1, 0, 3, 100),
                rows(3, 1, 5, 3, 100), rows(4, 6, 5, 3, 100), rows(5, 1, 5, 3, 100));
        assertThat(CandidateRow.batches(calls, 4)).containsExactly(List.of(0), List.of(1, 3), List.of(4), List.of(5));
        assertThat(CandidateRow.batches(calls, 16)).containsExactly(List.of(0, 1, 3, 4, 5));
        assertThat(CandidateRow.batches(List.of(rows(0, 1, 0, 3, 100)), 4)).isEmpty();
    }
}
