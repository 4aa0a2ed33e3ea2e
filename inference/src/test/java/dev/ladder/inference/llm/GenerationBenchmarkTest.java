package dev.ladder.inference.llm;

import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.DType;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class GenerationBenchmarkTest {

    private static GenerationBenchmark.Result result(GenerationBenchmark.GpuMemory gpu, LoadReport load) {
        Map<Integer, Double> decode = new LinkedHashMap<>();
        decode.put(1, 20.0);
        decode.put(16, 160.0);
        // 1 GB of weights, 100 kB of KV per token at context 1000: 1.1 GB per step; 110 GB/s -> 100 steps/s
        return new GenerationBenchmark.Result("m", "cuda:0", 2, 128, 1_000_000_000L, 100_000L, 1000,
                new GenerationBenchmark.Bandwidth("device copy of 1024 MiB on cuda:0, read + write", 110.0), 500.0,
                decode, Map.of(), List.of(), List.of(), new MachineLoad.Load(0.1, 2, 1.5), 3_000_000_000L, load, gpu);
    }

    @Test
    void rooflineCountsWeightsAndTheKvCacheReadAtTheMeanContext() {
        GenerationBenchmark.Result r = result(null, null);
        assertThat(r.kvBytesPerStep()).isEqualTo(100_000_000L);
        assertThat(r.bytesPerStep()).isEqualTo(1_100_000_000L);
        assertThat(r.rooflineTokensPerSec()).isCloseTo(100.0, within(1e-9));
        assertThat(r.rooflineRatio()).isCloseTo(0.2, within(1e-12));

        // Llama-3-8B in f16: 2 x 32 layers x 8 kv heads x 128 x 2 bytes = 128 KiB per token (docs/inference.md)
        ModelConfig llama8b = new ModelConfig(ModelConfig.Architecture.LLAMA, 4096, 14336, 32, 32, 8, 128, 128256,
                8192, 1e-5, 500000, null, false, false, 128000, List.of(128001), "bfloat16");
        assertThat(GenerationBenchmark.kvBytesPerToken(llama8b, 2)).isEqualTo(128 * 1024);
        assertThat(GenerationBenchmark.kvBytesPerToken(TinyModels.Shape.TINY.config(DType.F32), 4))
                .isEqualTo(2L * 2 * 2 * 16 * 4);
        // prompt 128, 32 tokens: the decode steps attend over 129..159 positions, 144 on average
        assertThat(GenerationBenchmark.rooflineContext(128, 32)).isEqualTo(144);
    }

    @Test
    void tableHasTheReadBreakdownAndGpuRowsOnlyOnAGpu() {
        LoadReport load = new LoadReport(12_345, 400_000_000L, 650_000_000L, 9_100_000_000L, "cuda:0",
                List.of("tensor 'x': 1 value beyond the f16 range (max |x| 7.00e+04) clamped to ±65504"));
        String gpu = result(new GenerationBenchmark.GpuMemory(16_000_000_000L, 12_400_000_000L), load).table();
        assertThat(value(gpu, "weights read per step (MB)")).isEqualTo("1000.0");
        assertThat(value(gpu, "KV cache read per step, context 1000 (MB)")).isEqualTo("100.0");
        assertThat(value(gpu, "bytes read per decode step (MB)")).isEqualTo("1100.0");
        assertThat(value(gpu, "bandwidth (GB/s)")).isEqualTo("110.0");
        assertThat(lines(gpu)).contains("  (device copy of 1024 MiB on cuda:0, read + write)");
        // the machine's load beside the decode rates it may have slowed
        assertThat(lines(gpu)).contains("  (machine during decode: others 0.10 of 2 cores, load average 1.50)");
        assertThat(value(gpu, "roofline, batch 1 (tok/s)")).isEqualTo("100.0");
        assertThat(value(gpu, "batch-1 decode / roofline")).isEqualTo("20%");
        assertThat(value(gpu, "batch 16 / batch 1")).isEqualTo("8.0x");
        assertThat(value(gpu, "load time (s)")).isEqualTo("12.3");
        assertThat(value(gpu, "weights on cuda:0 (MB)")).isEqualTo("9100.0");
        assertThat(value(gpu, "peak anonymous RSS while loading (MB)")).isEqualTo("650");
        assertThat(value(gpu, "peak RSS, VmHWM (MB)")).isEqualTo("3000");
        assertThat(value(gpu, "GPU memory total (MB)")).isEqualTo("16000");
        assertThat(value(gpu, "GPU memory used after the run (MB)")).isEqualTo("12400");
        // values line up in one column
        assertThat(gpu.lines().filter(l -> !l.startsWith(" ") && !l.startsWith("model ")).map(String::length).distinct())
                .hasSize(1);
        // warnings are the caller's to print, not table rows
        assertThat(gpu).doesNotContain("clamped");

        String cpu = result(null, new LoadReport(5, -1, -1, 10, "cpu", List.of())).table();
        assertThat(cpu).doesNotContain("GPU memory");
        assertThat(value(cpu, "peak anonymous RSS while loading (MB)")).isEqualTo("unknown");
    }

    /** The value column of the row whose metric is {@code metric}. */
    private static String value(String table, String metric) {
        return table.lines().filter(l -> l.startsWith(metric + "  ")).map(l -> l.substring(metric.length()).trim())
                .findFirst().orElseThrow(() -> new AssertionError("no row '" + metric + "' in\n" + table));
    }

    private static List<String> lines(String table) {
        return table.lines().toList();
    }
}
