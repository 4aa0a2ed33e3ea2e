package dev.ladder.inference.device;

import dev.ladder.inference.model.ModelConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Memory plans of real models, from their public config.json files (test resources configs/*.json, copied from the
 * Hugging Face repos meta-llama/Meta-Llama-3-8B-Instruct, meta-llama/Llama-3.1-8B, meta-llama/Llama-3.2-1B and -3B,
 * Qwen/Qwen2.5-0.5B-Instruct and Qwen/Qwen2.5-7B-Instruct).
 */
class MemoryPlanTest {

    @TempDir Path tmp;

    private static final long GIB = 1L << 30;
    private static final long T4 = 15 * GIB;

    /** A model directory holding nothing but the named config.json. */
    private Path modelDir(String name) throws IOException {
        Path dir = tmp.resolve(name);
        Files.createDirectories(dir);
        try (InputStream in = MemoryPlanTest.class.getResourceAsStream("configs/" + name + ".json")) {
            assertThat(in).as(name).isNotNull();
            Files.copy(in, dir.resolve(ModelConfig.CONFIG_FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return dir;
    }

    private ModelConfig config(String name) throws IOException {
        return ModelConfig.read(modelDir(name));
    }

    @Test
    void aDirectoryWithOnlyConfigJsonIsEnough() throws IOException {
        Path dir = modelDir("Meta-Llama-3-8B-Instruct");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("config.json");
        }
        ModelConfig c = ModelConfig.read(dir);
        assertThat(c.architecture()).isEqualTo(ModelConfig.Architecture.LLAMA);
        assertThat(c.headDim()).isEqualTo(128);
        assertThat(c.numKvHeads()).isEqualTo(8);
        assertThat(c.ropeScaling()).isNull();
        assertThat(c.eosTokenIds()).containsExactly(128009);

        ModelConfig qwen = config("Qwen2.5-0.5B-Instruct");
        assertThat(qwen.architecture()).isEqualTo(ModelConfig.Architecture.QWEN2);
        assertThat(qwen.attentionBias()).isTrue();   // Qwen2 q/k/v biases, implied by the architecture
        assertThat(qwen.tieWordEmbeddings()).isTrue();
        assertThat(config("Llama-3.2-1B").ropeScaling().factor()).isEqualTo(32.0);
    }

    @Test
    void parameterCountsMatchThePublishedFigures() throws IOException {
        // figures from the model cards: 8.03 B, 8.03 B, 1.24 B, 3.21 B, 0.49 B, 7.62 B
        assertThat(MemoryPlan.parameters(config("Meta-Llama-3-8B-Instruct"))).isCloseTo(8_030_000_000L, within(80_300_000L));
        assertThat(MemoryPlan.parameters(config("Llama-3.1-8B"))).isCloseTo(8_030_000_000L, within(80_300_000L));
        assertThat(MemoryPlan.parameters(config("Llama-3.2-1B"))).isCloseTo(1_240_000_000L, within(12_400_000L));
        assertThat(MemoryPlan.parameters(config("Llama-3.2-3B"))).isCloseTo(3_210_000_000L, within(32_100_000L));
        assertThat(MemoryPlan.parameters(config("Qwen2.5-0.5B-Instruct"))).isCloseTo(490_000_000L, within(4_900_000L));
        assertThat(MemoryPlan.parameters(config("Qwen2.5-7B-Instruct"))).isCloseTo(7_620_000_000L, within(76_200_000L));
        // exactly: 2 x 128256 x 4096 + 32 x (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 4096
        assertThat(MemoryPlan.parameters(config("Meta-Llama-3-8B-Instruct"))).isEqualTo(8_030_261_248L);
    }

    /** docs/inference.md "Memory budget": Llama-3-8B int8 on a T4, 8 rows x (1,500 prompt + 300 new), prefill 2048. */
    @Test
    void llama3With8bitWeightsFitsAT4() throws IOException {
        ModelConfig c = config("Meta-Llama-3-8B-Instruct");
        MemoryRequest r = new MemoryRequest(WeightFormat.INT8, DeviceKind.CUDA, 8, 1800, 2048);
        MemoryPlan p = MemoryPlan.of("Meta-Llama-3-8B-Instruct", c, r, T4);

        // embedding + untied head, f16:   2 x 128256 x 4096 x 2                                  = 2,101,346,304
        // per layer, int8 weights: q/k/v 6144 x 4096 + o 4096 x 4096 + gate/up 28672 x 4096
        //   + down 4096 x 14336 = 218,103,808 bytes; f16 scales (6144 + 4096 + 28672 + 4096) x 2 = 86,016;
        //   two f32 norms 2 x 4096 x 4 = 32,768                  -> 218,222,592 x 32 layers     = 6,983,122,944
        // final norm 4096 x 4 = 16,384; RoPE cos + sin 2 x 1800 x 128 x 2 = 921,600
        assertThat(p.weightBytes()).isEqualTo(2_101_346_304L + 6_983_122_944L + 16_384L + 921_600L);
        // 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 per token, x 8 rows x 1800 = 14,400 cells,
        // plus the f32 padding mask 14,400 x 4
        assertThat(p.kvCacheBytes()).isEqualTo(131_072L * 14_400 + 14_400 * 4);
        // worst pass: two 1024-token prompts in one 2048-token chunk, forked to 8 rows (with attention in blocks of
        // queries, a longer single prompt costs less than this); n = 2 x 1024 = 2048 tokens, c = 2 bytes.
        // Held for the pass: ids + positions 2n x 8, RoPE rows 2n x 128 x c, causal mask 1024^2 x 4, padding mask
        // 2 x 1024 x 4 and their sum 2 x 1024^2 x 4                                           = 13,672,448
        // one layer (all freed only at its end):
        //   attention in blocks of queries (LlamaModel.queryBlock): 2 rows x 32 heads x 1024 keys x 12 bytes
        //     (scores f16, +mask f32, softmax f32, probs f16) = 786,432 per query; 256 MiB / 786,432 = 341 queries
        //     per block, x 786,432                                                             = 268,173,312
        //     and the blocks joined, n x 4096 x c                                               = 16,777,216
        //   dequantised matrices in f16 plus each projection's output and scaled output 2n x out x c:
        //     qkv 6144x4096x2 + 2n x 6144 x 2 = 100,663,296; o 67,108,864; gate/up 469,762,048; down 150,994,944
        //   two RMSNorms, f32 copy, square, x/rms, x w (4 x n x 4096 x 4) + f16 result: 2 x 151,019,520
        //   RoPE 4 x n x 5120 x c = 83,886,080; SwiGLU 3 x n x 14336 x c = 176,160,768
        //   fork: k, v made contiguous and copied to 8 rows, 2 x (n + 8 x 1024) x 1024 x c     = 41,943,040
        //   queries regrouped, scaled, probs x V, heads merged: 4 x n x 4096 x c                = 67,108,864
        //   input, residual, output: 3 x n x 4096 x c                                          = 50,331,648
        //   -> 1,794,949,120 (more than the logits stage: 2 x 128256 x 6 + 8 x 128256 x 4 x 3 = 13,851,648)
        long layer = 268_173_312L + 16_777_216L + 100_663_296L + 67_108_864L + 469_762_048L + 150_994_944L
                + 2 * 151_019_520L + 83_886_080L + 176_160_768L + 41_943_040L + 67_108_864L + 50_331_648L;
        assertThat(layer).isEqualTo(1_794_949_120L);
        assertThat(p.workspaceBytes()).isEqualTo(13_672_448L + layer);
        assertThat(p.workspacePass()).isEqualTo(new MemoryPlan.Pass(true, 2, 1024, 1024));
        assertThat(p.overheadBytes()).isEqualTo(900L << 20);
        // 9.09 GB + 1.89 GB + 1.81 GB + 0.94 GB = 13.73 GB = 12.8 GiB of 15 GiB
        assertThat(p.totalBytes()).isEqualTo(9_085_407_232L + 1_887_494_400L + 1_808_621_568L + 943_718_400L);
        assertThat(p.fits()).isTrue();
        assertThat(p.alternatives()).isEmpty();
        assertThat(p.suggestion()).isEmpty();
        assertThatThrownBy(p::refusal).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void llama3InHalfPrecisionDoesNotFitAT4AndInt8IsSuggested() throws IOException {
        ModelConfig c = config("Meta-Llama-3-8B-Instruct");
        MemoryPlan p = MemoryPlan.of("Meta-Llama-3-8B-Instruct", c,
                new MemoryRequest(WeightFormat.F16, DeviceKind.CUDA, 8, 1800, 2048), T4);
        // 2 x 128256 x 4096 x 2 + 32 x (218,103,808 x 2 + 32,768) + 16,384 + 2 x 1800 x 128 x 2 = 16.06 GB:
        // more than the 16.1 GB budget once anything else is added
        assertThat(p.weightBytes()).isEqualTo(2_101_346_304L + 32 * (436_207_616L + 32_768L) + 16_384L + 921_600L);
        assertThat(p.fits()).isFalse();
        List<MemoryPlan> alts = p.alternatives();
        assertThat(alts).isNotEmpty();
        assertThat(alts.get(0).request()).isEqualTo(p.request().withFormat(WeightFormat.INT8));
        assertThat(alts).allMatch(MemoryPlan::fits);
        // f16 weights alone leave no room for any rows or context: only int8 is offered
        assertThat(alts).hasSize(1);

        String refusal = p.refusal();
        assertThat(refusal).doesNotContain("\n")
                .startsWith("Meta-Llama-3-8B-Instruct f16 on cuda, 8 rows x 1800 tokens, needs ")
                .contains("(weights 15.0, KV 1.8, workspace ")
                .contains("but the budget is 15.0 GiB: use int8 weights (8 rows x 1800 tokens, 12.8 GiB)");
        assertThat(MemoryPlan.autoFormat(c, DeviceKind.CUDA, T4, 8, 1800, 2048)).isEqualTo(WeightFormat.INT8);
        // 24 GiB (>= 20 GB): f16 stays even where it does not fit at 16 rows x 8192
        assertThat(MemoryPlan.autoFormat(c, DeviceKind.CUDA, 24 * GIB, 16, 8192, 4096)).isEqualTo(WeightFormat.F16);
        assertThat(MemoryPlan.autoFormat(c, DeviceKind.CUDA, 80 * GIB, 8, 1800, 2048)).isEqualTo(WeightFormat.F16);
        assertThat(MemoryPlan.autoFormat(c, DeviceKind.CPU, T4, 8, 1800, 2048)).isEqualTo(WeightFormat.F32);
    }

    @Test
    void qwenSmallInFloat32OnACpu() throws IOException {
        ModelConfig c = config("Qwen2.5-0.5B-Instruct");
        MemoryRequest r = new MemoryRequest(WeightFormat.F32, DeviceKind.CPU, 16, 2048, 4096);
        MemoryPlan p = MemoryPlan.of("Qwen2.5-0.5B-Instruct", c, r, 16 * GIB);
        // tied embedding 151936 x 896 x 4                                                        = 544,538,624
        // per layer: (q 896 + k 128 + v 128) x 896 + o 896^2 + gate/up 9728 x 896 + down 896 x 4864
        //   = 14,909,440 weights x 4, q/k/v biases 1152 x 4, norms 2 x 896 x 4 -> 59,649,536 x 24 = 1,431,588,864
        // final norm 3,584; RoPE 2 x 2048 x 64 x 4 = 1,048,576
        assertThat(p.weightBytes()).isEqualTo(544_538_624L + 1_431_588_864L + 3_584L + 1_048_576L);
        // 2 x 24 layers x 2 KV heads x 64 x 4 = 24,576 per token x 16 x 2048 cells, + mask 32,768 x 4
        assertThat(p.kvCacheBytes()).isEqualTo(24_576L * 32_768 + 32_768L * 4);
        // worst pass: two 2047-token prompts in one 4096-token chunk (forked to 16 rows);
        // attention, whole, would be 2 x 14 heads x 2047^2 x 12 = 1,407,910,224; in blocks of 390 queries
        // (256 MiB / (2 x 14 x 2047 x 12)) it is 268,238,880, plus the blocks joined 4094 x 896 x 4 = 14,672,896:
        // 2,219,259,144 - 1,407,910,224 + 268,238,880 + 14,672,896
        assertThat(p.workspacePass()).isEqualTo(new MemoryPlan.Pass(true, 2, 2047, 2047));
        assertThat(p.workspaceBytes()).isEqualTo(1_094_260_696L);
        assertThat(p.overheadBytes()).isEqualTo(768L << 20);
        assertThat(p.totalBytes()).isEqualTo(1_977_179_648L + 805_437_440L + 1_094_260_696L + 805_306_368L);
        assertThat(p.fits()).isTrue();

        // the same on a 4 GiB machine: shorter context or fewer rows, each the largest that fits
        MemoryPlan small = MemoryPlan.of("Qwen2.5-0.5B-Instruct", c, r, 4 * GIB);
        assertThat(small.fits()).isFalse();
        List<MemoryPlan> alts = small.alternatives();
        assertThat(alts).isNotEmpty().allMatch(MemoryPlan::fits)
                .allMatch(a -> a.request().format() == WeightFormat.F32 || a.request().format() == WeightFormat.INT8);
        for (MemoryPlan a : alts) {
            MemoryRequest ar = a.request();
            if (ar.rows() != r.rows()) {
                assertThat(MemoryPlan.of("q", c, ar.withRows(ar.rows() + 1), 4 * GIB).fits()).isFalse();
            }
            if (ar.context() != r.context()) {
                assertThat(MemoryPlan.of("q", c, ar.withContext(ar.context() + 1), 4 * GIB).fits()).isFalse();
            }
        }
        assertThat(small.refusal()).contains("but the budget is 4.0 GiB: use ");
    }

    @Test
    void largestRowsAndContextAreTheBoundary() throws IOException {
        ModelConfig c = config("Llama-3.2-3B");
        MemoryPlan p = MemoryPlan.of("Llama-3.2-3B", c, MemoryRequest.defaults(c, WeightFormat.F16, DeviceKind.CUDA), T4);
        assertThat(p.request().rows()).isEqualTo(16);
        assertThat(p.request().context()).isEqualTo(8192);   // min(131072, 8192)
        assertThat(p.fits()).isFalse();
        for (MemoryPlan a : p.alternatives()) {
            assertThat(a.fits()).isTrue();
            MemoryRequest ar = a.request();
            if (ar.context() < 8192) {
                assertThat(MemoryPlan.of("x", c, ar.withContext(ar.context() + 1), T4).fits()).isFalse();
            }
            if (ar.rows() < 16) {
                assertThat(MemoryPlan.of("x", c, ar.withRows(ar.rows() + 1), T4).fits()).isFalse();
            }
            assertThat(p.change(a)).matches("(int8 weights|at most \\d+ rows?|a context of at most \\d+ tokens).* \\(\\d+ rows? x \\d+ tokens, \\d+\\.\\d GiB\\)");
        }
    }

    @Test
    void nothingFitsWhenEvenInt8WeightsAreTooLarge() throws IOException {
        ModelConfig c = config("Qwen2.5-7B-Instruct");
        MemoryPlan p = MemoryPlan.of("Qwen2.5-7B-Instruct", c,
                new MemoryRequest(WeightFormat.F16, DeviceKind.CUDA, 1, 512, 4096), 4 * GIB);
        assertThat(p.alternatives()).isEmpty();
        assertThat(p.refusal()).endsWith("nothing fits, not even int8 weights with 1 row and a 2-token context");
    }

    @Test
    void moreRowsAndContextNeverNeedLess() throws IOException {
        ModelConfig c = config("Llama-3.2-1B");
        long previous = 0;
        for (int ctx = 2; ctx <= 4096; ctx *= 2) {
            long total = MemoryPlan.of("x", c, new MemoryRequest(WeightFormat.F16, DeviceKind.CUDA, 4, ctx, 1024), T4)
                    .totalBytes();
            assertThat(total).isGreaterThan(previous);
            previous = total;
        }
    }

    @Test
    void requestsAndContextsAreChecked() throws IOException {
        ModelConfig c = config("Meta-Llama-3-8B-Instruct");
        assertThatThrownBy(() -> new MemoryRequest(WeightFormat.F16, DeviceKind.CUDA, 0, 100, 100))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("rows must be at least 1, got 0");
        assertThatThrownBy(() -> MemoryPlan.of("x", c, new MemoryRequest(WeightFormat.F16, DeviceKind.CUDA, 1, 8193, 100), T4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a context of 8193 tokens is more than the model's 8192 max positions");
    }

    @Test
    void parsesMemorySizes() {
        assertThat(MemorySize.parse("15GiB")).isEqualTo(15L << 30);
        assertThat(MemorySize.parse("16GB")).isEqualTo(16_000_000_000L);
        assertThat(MemorySize.parse("12.5GiB")).isEqualTo(25L << 29);
        assertThat(MemorySize.parse("800MiB")).isEqualTo(800L << 20);
        assertThat(MemorySize.parse(" 800 mib ")).isEqualTo(800L << 20);
        assertThat(MemorySize.parse("1073741824")).isEqualTo(1L << 30);
        assertThat(MemorySize.parse("512B")).isEqualTo(512);
        for (String bad : new String[] {"16G", "15 gigs", "-1GiB", "GiB", "", "1e9"}) {
            assertThatThrownBy(() -> MemorySize.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("bad memory size '" + bad + "': use a number with a unit");
        }
        assertThatThrownBy(() -> MemorySize.parse("0MiB")).hasMessage("memory size '0MiB' must be more than 0 bytes");
        assertThatThrownBy(() -> MemorySize.parse("99999999999TiB")).hasMessage("memory size '99999999999TiB' is too large");
        assertThat(MemorySize.format(15L << 30)).isEqualTo("15.0 GiB");
        assertThat(MemorySize.format(600L << 20)).isEqualTo("600.0 MiB");
        assertThat(MemorySize.physicalMemory()).isPositive();
    }
}
