package dev.ladder.eval.experiment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A model the rungs of an experiment use.
 *
 * @param path    a model directory or a hub id ({@code owner/name}, optionally {@code @revision}) resolved through
 *                the model store; see {@link ExperimentLoader#isHubId(String)}
 * @param adapter a PEFT LoRA adapter directory merged at load time, or null for none
 * @param engine  inference engine ({@link ExperimentLoader#KNOWN_ENGINES})
 * @param dtype   weights in memory ({@link ExperimentLoader#KNOWN_DTYPES})
 */
public record ModelSpec(String path, String adapter, String engine, String dtype) {

    public static final String DEFAULT_ENGINE = "djl";
    public static final String DEFAULT_DTYPE = "auto";

    public ModelSpec {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(dtype, "dtype");
    }

    public boolean hasAdapter() {
        return adapter != null;
    }

    /**
     * True when an adapter is named but its directory holds no {@code adapter_config.json}; the runner skips the
     * cells of such a model (a QLoRA adapter is trained elsewhere and may simply not be there yet).
     */
    public boolean adapterMissing() {
        return adapter != null && !Files.isRegularFile(Path.of(adapter).resolve("adapter_config.json"));
    }

    public ModelSpec withPath(String p) {
        return new ModelSpec(p, adapter, engine, dtype);
    }

    public ModelSpec withAdapter(String a) {
        return new ModelSpec(path, a, engine, dtype);
    }
}
