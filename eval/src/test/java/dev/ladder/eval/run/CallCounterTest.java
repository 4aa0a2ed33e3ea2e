package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What an answer's row says it cost: requests, the completions they asked for, and the cached share. */
class CallCounterTest {

    static GenerationRequest request(String prompt, int n) {
        return new GenerationRequest(prompt, null, 8, n == 1 ? Sampling.GREEDY : new Sampling(0.3, 0, 1.0), n, 0,
                Set.of(), List.of());
    }

    @Test
    void aRequestForSeveralSamplesIsOneCallAndThatManyCompletions() {
        CallCounter counter = new CallCounter(new CachedLanguageModelTest.CountingModel());
        CallCounter.Snapshot before = counter.snapshot();
        counter.generate(List.of(request("one greedy answer", 1)));
        counter.generate(List.of(request("four sampled candidates", 4), request("another greedy one", 1)));
        CallCounter.Snapshot spent = counter.snapshot().minus(before);
        assertThat(spent.calls()).isEqualTo(3);
        assertThat(spent.completions()).isEqualTo(6);
        assertThat(spent.cached()).isZero();
        // a reply kept from another rung: one more call and completion, answered from a cache
        assertThat(spent.plusCached(1)).isEqualTo(new CallCounter.Snapshot(4, 1, 7));
    }
}
