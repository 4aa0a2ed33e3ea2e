package dev.ladder.cli;

import dev.ladder.inference.llm.Int8Profile;
import dev.ladder.inference.llm.LinearProfile;
import dev.ladder.inference.llm.MachineLoad;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ladder bench linear}: the profile behind the djl engine's small-batch forms. Where a CPU decode step's time
 * goes: each projection of a model shape at each row count, in each call form, with the weight GB/s it streams, and
 * the projections of one whole decode step summed per form.
 */
@Command(name = "linear", mixinStandardHelpOptions = true,
        description = {"Where a CPU decode step's time goes: every projection of a model shape (q/k/v, o, gate/up, down, "
                + "LM head; float32, random weights, enough copies to defeat the caches) timed at each row count in each "
                + "call form the djl engine knows (F.linear, weight blocks, row blocks), with the GB/s of weight each "
                + "streams, then one decode step's projections summed per form. A batch-b decode step's projections "
                + "see b rows; 'engine' is the form the engine picks, 'spread' how far its timings' repeats disagree, "
                + "'others' the cores other processes took while the projection was timed, and 'calibration' whether a "
                + "model's load would store that pick or use it for that load only (docs/inference.md)."})
final class BenchLinearCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Option(names = "--model", paramLabel = "MODEL", description = "A model directory or a pulled repo id (its config.json gives the shapes).")
    String model;
    @Option(names = "--shape", paramLabel = "NAME", description = "A shape of ladder model make-tiny instead of --model (e.g. llama3-2-1b).")
    String shape;
    @Option(names = "--rows", split = ",", paramLabel = "R[,R...]", description = "Row counts (default 1,2,4,8,16).")
    List<Integer> rows = List.of(1, 2, 4, 8, 16);
    @Option(names = "--threads", paramLabel = "N", description = "PyTorch intra-op threads (default: all cores).")
    Integer threads;
    @Option(names = "--repeats", defaultValue = "3", paramLabel = "N", description = "Timed passes per cell; the best counts (default ${DEFAULT-VALUE}).")
    int repeats;
    @Option(names = "--int8", description = "Also time the layer projections as int8 weights (dtype int8): the Java path "
            + "(the matrix widened to float32, then one matmul) and the native extension's product (scripts/build-native), "
            + "and put one decode step of each beside float32's.")
    boolean int8;

    @Override
    public Integer call() {
        if ((model == null) == (shape == null)) throw new UserError("give one of --model MODEL or --shape NAME");
        int t = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        ModelConfig config;
        String name;
        if (shape != null) {
            TinyModels.Shape s = ModelCommand.MakeTiny.shape(shape);
            config = s.config(DType.F32);
            name = ModelCommand.MakeTiny.cliName(s);
        } else {
            Path dir = ModelCommand.resolve(model);
            try {
                config = ModelConfig.read(dir);
            } catch (ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            name = dir.getFileName().toString();
        }
        String loadBefore = Int8Profile.loadAverage();
        LinearProfile.Result r = LinearProfile.run(config, t, rows, repeats);
        Int8Profile.Result q = int8 ? Int8Profile.run(config, t, rows, repeats, r) : null;
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%s, float32 on the CPU, %d threads; ms per call (weight GB/s), best of %d%n", name, t, repeats);
        out.printf(Locale.ROOT, "load average (1, 5, 15 min): %s at the start%n", loadBefore);
        TextTable table = new TextTable(List.of("projection", "shape", "MB", "per step", "rows", "F.linear",
                "weight blocks", "row blocks", "engine", "spread", "others", "calibration"));
        for (int i = 2; i < 8; i++) table.alignRight(i);
        table.alignRight(9);
        for (LinearProfile.Projection p : r.projections()) {
            for (int n : rows) {
                List<String> cells = new ArrayList<>(List.of(p.name(), p.out() + " x " + p.in(),
                        String.format(Locale.ROOT, "%.1f", p.bytes() / 1e6), Integer.toString(p.perStep()), Integer.toString(n)));
                String engine = "";
                for (LinearProfile.Timing timing : r.timings()) {
                    if (timing.projection() != p || timing.rows() != n) continue;
                    cells.add(String.format(Locale.ROOT, "%.2f (%.1f)", timing.millis(), timing.gbPerS()));
                    if (timing.chosen()) engine = timing.form();
                }
                cells.add(engine);
                cells.add(String.format(Locale.ROOT, "%.0f%%", 100 * r.spread(p, n)));
                cells.add(others(r.loads().get(p.name())));
                cells.add(r.wouldStore(p, n) ? "stored" : "this load only");
                table.add(cells);
            }
        }
        table.print(out);
        out.println("calibration: " + LinearProfile.storeRule());
        out.printf(Locale.ROOT, "%none decode step's projections (%.0f MB of weights), summed%n", r.stepBytes() / 1e6);
        TextTable step = new TextTable(List.of("rows", "F.linear ms", "weight blocks ms", "row blocks ms", "engine ms",
                "engine GB/s", "engine steps/s x rows", "engine / F.linear"));
        for (int i = 0; i < 8; i++) step.alignRight(i);
        for (Map.Entry<Integer, Map<String, Double>> e : r.stepMillis().entrySet()) {
            Map<String, Double> ms = e.getValue();
            double engine = ms.get("engine");
            step.add(List.of(Integer.toString(e.getKey()), f1(ms.get("F.linear")), f1(ms.get("weight blocks")),
                    f1(ms.get("row blocks")), f1(engine), f1(r.stepBytes() / (engine / 1e3) / 1e9),
                    f1(e.getKey() / (engine / 1e3)), String.format(Locale.ROOT, "%.2fx", ms.get("F.linear") / engine)));
        }
        step.print(out);
        if (q != null) printInt8(out, r, q);
        out.printf(Locale.ROOT, "load average (1, 5, 15 min): %s at the end%n", Int8Profile.loadAverage());
        out.flush();
        return 0;
    }

    /** Other processes' cores during a projection's timings: {@code 0.05 of 2}, or {@code unknown}. */
    private static String others(MachineLoad.Load load) {
        return load.known() ? String.format(Locale.ROOT, "%.2f of %d", load.othersCores(), load.cores()) : "unknown";
    }

    /** The int8 projections per path, then one decode step of float32 and of each int8 path side by side. */
    private void printInt8(PrintWriter out, LinearProfile.Result r, Int8Profile.Result q) {
        out.printf(Locale.ROOT, "%nint8 weights, one float32 scale per row; ms per call (weight GB/s at 1 byte per weight)%n");
        out.printf(Locale.ROOT, "native extension: %s%n", q.nativeLine());
        TextTable table = new TextTable(List.of("projection", "shape", "MB", "rows", "int8 Java path", "int8 native"));
        for (int i = 2; i < 6; i++) table.alignRight(i);
        for (Int8Profile.Timing t : q.timings()) {
            LinearProfile.Projection p = t.projection();
            table.add(List.of(p.name(), p.out() + " x " + p.in(), String.format(Locale.ROOT, "%.1f", t.bytes() / 1e6),
                    Integer.toString(t.rows()), msGb(t.javaMillis(), t.bytes()), msGb(t.nativeMillis(), t.bytes())));
        }
        table.print(out);
        out.printf(Locale.ROOT, "%none decode step: float32 (%.0f MB) against int8 (%.0f MB: layers in int8, the LM head in "
                + "float32); tok/s = rows x steps/s%n", r.stepBytes() / 1e6, q.stepBytes() / 1e6);
        TextTable step = new TextTable(List.of("rows", "f32 ms", "int8 Java ms", "int8 native ms", "f32 tok/s",
                "int8 Java tok/s", "int8 native tok/s", "native / f32", "native / Java"));
        for (int i = 0; i < 9; i++) step.alignRight(i);
        for (Map.Entry<Integer, Map<String, Double>> e : q.stepMillis().entrySet()) {
            int n = e.getKey();
            double f = r.stepMillis().get(n).get("engine");
            double java = e.getValue().get("java");
            double nat = e.getValue().get("native");
            step.add(List.of(Integer.toString(n), f1(f), f1(java), f1(nat), f1(n / (f / 1e3)), f1(n / (java / 1e3)),
                    f1(n / (nat / 1e3)), ratio(f / nat), ratio(java / nat)));
        }
        step.print(out);
        out.println("bytes per weight: float32 4; int8 1 (+ 4 per row); the Java path also writes and reads a float32 copy "
                + "of each matrix per call, 9 bytes moved per weight");
    }

    private static String msGb(double ms, long bytes) {
        return Double.isNaN(ms) ? "-" : String.format(Locale.ROOT, "%.2f (%.1f)", ms, bytes / (ms / 1e3) / 1e9);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }

    private static String f1(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }
}
