package dev.ladder.eval.cli;

import dev.ladder.adapters.MergeBase;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * How a command loads one model in-process ({@code ladder ask}, {@code ladder serve}, {@code ladder bench serve}): one
 * set of flags and one reading of them.
 */
final class ModelFlags {
    @Option(names = "--model", required = true, paramLabel = "MODEL",
            description = "A model directory or a pulled repo id owner/name[@revision]; on ask, oracle[:NOISE] answers a benchmark question from its gold (docs/oracle.md).")
    String model;
    @Option(names = "--adapter", paramLabel = "DIR", description = "A PEFT LoRA adapter merged into the model at load time.")
    Path adapter;
    @Option(names = "--merge-base", defaultValue = "full", paramLabel = "full|nf4",
            description = "With --adapter: merge into the base's weights (full) or its NF4 round trip (nf4, as QLoRA trained).")
    String mergeBase;
    @Option(names = "--dtype", defaultValue = "auto", paramLabel = "auto|f32|f16|int8",
            description = "Weights in memory (default ${DEFAULT-VALUE}: f32 on CPU, f16 on GPU).")
    String dtype;
    @Option(names = "--device", defaultValue = "auto", paramLabel = "auto|cpu|cuda[:N]",
            description = "Where the model runs (default ${DEFAULT-VALUE}: the first GPU if the loaded libtorch has CUDA).")
    String device;

    /**
     * The merge base a {@code --merge-base} value names.
     *
     * @throws UserError for another value, or nf4 without an adapter
     */
    static MergeBase mergeBase(String mergeBase, Path adapter) {
        String mb = mergeBase.strip().toLowerCase(Locale.ROOT);
        if (!mb.equals("full") && !mb.equals("nf4")) {
            throw new UserError("--merge-base must be full or nf4, got '" + mergeBase + "'");
        }
        if (mb.equals("nf4") && adapter == null) {
            throw new UserError("--merge-base nf4 applies to an --adapter; none given");
        }
        return MergeBase.valueOf(mb.toUpperCase(Locale.ROOT));
    }

    /** How to load the model for {@code workload}. */
    ModelLoader.LoadSpec loadSpec(ModelLoader.Workload workload) {
        return new ModelLoader.LoadSpec("djl", dtype, DeviceOptions.parse(device),
                mergeBase(mergeBase, adapter), workload);
    }

    /** Loads the model for serving. */
    ServeCommand.Session open(int maxBatchRows, String servedName, PrintWriter log) {
        return ServeCommand.Session.open(model, adapter, mergeBase, dtype, device, maxBatchRows, servedName, log);
    }
}
