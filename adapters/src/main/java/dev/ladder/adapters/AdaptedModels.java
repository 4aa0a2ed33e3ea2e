package dev.ladder.adapters;

import ai.djl.Device;
import dev.ladder.inference.device.Placement;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.model.ModelException;

import java.nio.file.Path;

/** A base model with a LoRA adapter merged at load time (nothing is written to disk). */
public final class AdaptedModels {

    private AdaptedModels() {}

    /**
     * Loads {@code baseDir} with the adapter in {@code adapterDir} merged into its weights ({@link MergeBase#FULL});
     * tokenizer, prompt format and generation config are the base's.
     *
     * @throws AdapterException for an unreadable or unsupported adapter, or one that does not fit the base
     */
    public static DjlLanguageModel load(Path baseDir, Path adapterDir, Device device, DjlLanguageModel.Options options) {
        return load(baseDir, adapterDir, MergeBase.FULL, device, options);
    }

    /** As {@link #load(Path, Path, MergeBase, Device, DjlLanguageModel.Options)} on a placement. */
    public static DjlLanguageModel load(Path baseDir, Path adapterDir, MergeBase mergeBase, Placement placement,
                                        DjlLanguageModel.Options options) {
        return load(baseDir, adapterDir, mergeBase, placement.toDjl(), options);
    }

    /** As {@link #load(Path, Path, Device, DjlLanguageModel.Options)} with a chosen merge base. */
    public static DjlLanguageModel load(Path baseDir, Path adapterDir, MergeBase mergeBase, Device device,
                                        DjlLanguageModel.Options options) {
        try (PeftAdapter adapter = PeftAdapter.read(adapterDir)) {
            adapter.validate(baseDir);
            return DjlLanguageModel.load(baseDir, source -> new AdaptedWeightSource(source, adapter, mergeBase),
                    device, options);
        } catch (ModelException e) {
            throw new AdapterException(e.getMessage(), e);
        }
    }
}
