package dev.ladder.cli;

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
        LinearProfile.Result r = LinearProfile.run(config, t, rows, repeats);
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%s, float32 on the CPU, %d threads; ms per call (weight GB/s), best of %d%n", name, t, repeats);
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
        out.flush();
        return 0;
    }

    /** Other processes' cores during a projection's timings: {@code 0.05 of 2}, or {@code unknown}. */
    private static String others(MachineLoad.Load load) {
        return load.known() ? String.format(Locale.ROOT, "%.2f of %d", load.othersCores(), load.cores()) : "unknown";
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
