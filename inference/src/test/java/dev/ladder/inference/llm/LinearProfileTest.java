package dev.ladder.inference.llm;

import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.TinyModels;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LinearProfileTest {

    @Test
    void projectionsAreTheOnesOfADecodeStep() {
        ModelConfig c = TinyModels.Shape.LLAMA3_2_1B.config(DType.F32);
        List<LinearProfile.Projection> p = LinearProfile.projections(c);
        assertThat(p).extracting(LinearProfile.Projection::name).containsExactly("q/k/v", "o", "gate/up", "down", "lm head");
        // fused q/k/v: 32 heads + 2 x 8 kv heads of 64; fused gate/up: 2 x 8192
        assertThat(p.get(0).out()).isEqualTo(3072);
        assertThat(p.get(2).out()).isEqualTo(16384);
        assertThat(p.get(4).perStep()).isEqualTo(1);
        long stepBytes = p.stream().mapToLong(x -> x.bytes() * x.perStep()).sum();
        // every weight a decode step reads but the norms: 1.2358 B parameters less the norms' 67,584, in float32
        assertThat(stepBytes).isEqualTo(4L * (1_235_814_400L - 2048L * 33));
    }

    /** Every projection, row count and form is timed; one form per projection and row count is the engine's. */
    @Test
    void timesEveryFormAndMarksTheOneTheEngineKeeps() {
        ModelConfig c = TinyModels.Shape.TINY.config(DType.F32);
        LinearProfile.Result r = LinearProfile.run(c, 1, List.of(1, 4, 32), 1);
        assertThat(r.timings()).hasSize(5 * 3 * 3);
        assertThat(r.timings()).allMatch(t -> t.millis() > 0 && t.gbPerS() > 0);
        for (LinearProfile.Projection p : r.projections()) {
            for (int rows : List.of(1, 4, 32)) {
                assertThat(r.timings()).filteredOn(t -> t.projection() == p && t.rows() == rows)
                        .filteredOn(LinearProfile.Timing::chosen).hasSize(1);
            }
        }
        // past the small-batch limit the engine always calls F.linear
        assertThat(r.timings()).filteredOn(t -> t.rows() == 32 && t.chosen()).extracting(LinearProfile.Timing::form)
                .containsOnly("F.linear");
        assertThat(r.stepMillis().keySet()).containsExactly(1, 4, 32);
        assertThat(r.stepMillis().get(4)).containsKeys("F.linear", "weight blocks", "row blocks", "engine");
        double engine = r.timings().stream().filter(t -> t.rows() == 4 && t.chosen())
                .mapToDouble(t -> t.millis() * t.projection().perStep()).sum();
        assertThat(r.stepMillis().get(4).get("engine")).isCloseTo(engine, within(1e-9));
        assertThatThrownBy(() -> LinearProfile.run(c, 1, List.of(0), 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
