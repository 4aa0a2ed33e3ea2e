package dev.ladder.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TinyAdaptersTest {

    @TempDir Path tmp;

    @Test
    void writesAPeftAdapterThatReadsValidatesAndMerges() throws Exception {
        Path base = tmp.resolve("tiny");
        TinyModels.write(base, TinyModels.Shape.TINY, 7, DType.F32);
        Path adapter = tmp.resolve("tiny-lora");
        TinyAdapters.write(base, adapter, 4, 11);

        try (PeftAdapter a = PeftAdapter.read(adapter)) {
            assertThat(a.config().r()).isEqualTo(4);
            assertThat(a.config().alpha()).isEqualTo(8.0);
            PeftAdapter.Plan plan = a.validate(base);
            // 7 projections in each of TINY's 2 layers
            assertThat(plan.targets()).hasSize(14);
            assertThat(plan.targets().values()).allMatch(t -> t.rank() == 4 && t.scale() == 2.0f);
            assertThat(plan.replacements()).isEmpty();
        }

        AdapterMerger.Result merged = AdapterMerger.merge(base, adapter, tmp.resolve("merged"),
                new AdapterMerger.Options(DType.F32, 0, MergeBase.FULL, false, "test"));
        assertThat(merged.adapted()).isEqualTo(14);
        try (Weights m = Weights.open(tmp.resolve("merged")); Weights b = Weights.open(base)) {
            String q = "model.layers.0.self_attn.q_proj.weight";
            assertThat(m.floats(q)).isNotEqualTo(b.floats(q));
        }

        // same base, rank and seed: the same bytes; another seed: other weights
        Path again = tmp.resolve("again");
        TinyAdapters.write(base, again, 4, 11);
        for (String f : List.of(PeftAdapter.CONFIG_FILE, PeftAdapter.WEIGHTS_FILE)) {
            assertThat(Files.readAllBytes(again.resolve(f))).as(f).isEqualTo(Files.readAllBytes(adapter.resolve(f)));
        }
        Path other = tmp.resolve("other");
        TinyAdapters.write(base, other, 4, 12);
        assertThat(Files.readAllBytes(other.resolve(PeftAdapter.WEIGHTS_FILE)))
                .isNotEqualTo(Files.readAllBytes(adapter.resolve(PeftAdapter.WEIGHTS_FILE)));
    }

    @Test
    void refusesABaseWithoutMatchingModules() throws Exception {
        Path base = tmp.resolve("tiny");
        TinyModels.write(base, TinyModels.Shape.TINY, 7, DType.F32);
        TinyAdapters.Spec none = new TinyAdapters.Spec(1, List.of("no_such_proj"), 4, 8, false, java.util.Map.of(),
                java.util.Map.of(), List.of());
        assertThatThrownBy(() -> TinyAdapters.write(base, tmp.resolve("x"), none)).isInstanceOf(AdapterException.class)
                .hasMessageContaining("no_such_proj");
        assertThatThrownBy(() -> TinyAdapters.write(tmp.resolve("absent"), tmp.resolve("y"), 4, 1))
                .isInstanceOf(AdapterException.class);
    }
}
