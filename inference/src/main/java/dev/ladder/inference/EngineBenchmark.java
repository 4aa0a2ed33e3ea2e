package dev.ladder.inference;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Generation throughput of any engine through {@link LanguageModel#generate} alone, so two engines on the same
 * weights are timed the same way: per batch size B, B greedy requests of the same random prompt length; the prefill
 * time is the wall time of a call that generates one token, the decode time per step what a call of N tokens adds,
 * divided by N − 1. Prompts are fixed by a seed, so every engine reads the same ids.
 */
public final class EngineBenchmark {

    /** One engine at one batch size. */
    public record Row(String engine, int batch, double prefillTokensPerSecond, double decodeTokensPerSecond,
                      double decodeMillisPerStep, long peakRssBytes) {}

    private EngineBenchmark() {}

    public static List<Row> run(String engine, LanguageModel model, int vocab, List<Integer> batches, int promptTokens,
                                int newTokens) {
        List<Row> out = new ArrayList<>();
        Random random = new Random(0);
        List<Integer> prompt = new ArrayList<>();
        for (int i = 0; i < promptTokens; i++) prompt.add(1 + random.nextInt(Math.max(1, vocab - 2)));
        // one warm-up call (class loading, kernel selection)
        model.generate(requests(1, prompt, 2));
        for (int b : batches) {
            long t0 = System.nanoTime();
            model.generate(requests(b, prompt, 1));
            long prefill = System.nanoTime() - t0;
            long t1 = System.nanoTime();
            model.generate(requests(b, prompt, newTokens));
            long total = System.nanoTime() - t1;
            double stepMs = Math.max(0, total - prefill) / 1e6 / (newTokens - 1);
            out.add(new Row(engine, b, b * promptTokens / (prefill / 1e9), stepMs == 0 ? Double.NaN : b * 1000 / stepMs,
                    stepMs, peakRss()));
        }
        return out;
    }

    private static List<GenerationRequest> requests(int b, List<Integer> prompt, int max) {
        List<GenerationRequest> out = new ArrayList<>();
        // distinct prompts per row (the last id varies) so no engine can share work between rows
        for (int i = 0; i < b; i++) {
            List<Integer> p = new ArrayList<>(prompt);
            p.set(p.size() - 1, 1 + (p.get(p.size() - 1) + i) % 500);
            out.add(new GenerationRequest(null, p, max, Sampling.GREEDY, 1, 0, Set.of(), List.of()));
        }
        return out;
    }

    /** The process's peak resident set (VmHWM), or -1 where /proc is not there. */
    public static long peakRss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** The rows as a table; with two engines, each onnx row also shows its decode speed relative to djl's. */
    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s %5s %14s %13s %15s %12s %10s%n", "engine", "batch", "prefill tok/s",
                "decode tok/s", "decode ms/step", "peak RSS MB", "vs djl"));
        for (Row r : rows) {
            Row djl = rows.stream().filter(x -> x.engine().equals("djl") && x.batch() == r.batch()).findFirst().orElse(null);
            String ratio = djl == null || r.engine().equals("djl") ? "" : String.format(Locale.ROOT, "%.2fx",
                    r.decodeTokensPerSecond() / djl.decodeTokensPerSecond());
            sb.append(String.format(Locale.ROOT, "%-6s %5d %14.1f %13.1f %15.2f %12.1f %10s%n", r.engine(), r.batch(),
                    r.prefillTokensPerSecond(), r.decodeTokensPerSecond(), r.decodeMillisPerStep(),
                    r.peakRssBytes() / 1048576.0, ratio));
        }
        return sb.toString();
    }
}
