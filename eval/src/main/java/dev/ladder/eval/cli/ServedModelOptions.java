package dev.ladder.eval.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How {@code ladder serve} and {@code ladder bench serve} load the model they serve (one set of flags for both). */
final class ServedModelOptions {
    @Option(names = "--model", required = true, paramLabel = "MODEL",
            description = "A model directory or a pulled repo id owner/name[@revision].")
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

    /** Loads the model for serving. */
    ServeCommand.Session open(int maxBatchRows, String servedName, java.io.PrintWriter log) {
        return ServeCommand.Session.open(model, adapter, mergeBase, dtype, device, maxBatchRows, servedName, log);
    }
}
