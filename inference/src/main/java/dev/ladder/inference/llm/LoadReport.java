package dev.ladder.inference.llm;

import java.util.List;
import java.util.Objects;

/**
 * What loading one model cost, from {@link LlamaModel#loadReport()}; plain values meant to be written as they are
 * (e.g. into a run's {@code environment.json}).
 *
 * @param millis                wall-clock time of {@link LlamaModel#load}, reading and converting included
 * @param anonRssBeforeBytes    anonymous resident memory ({@code RssAnon}) of the whole process when loading began;
 *                              -1 where {@code /proc/self/status} cannot be read (not Linux)
 * @param peakAnonRssBytes      highest {@code RssAnon} of the whole process while loading (sampled every 5 ms and
 *                              after every layer, so a shorter spike can be missed); -1 as above. What the load
 *                              itself added is {@code peakAnonRssBytes - anonRssBeforeBytes}. Memory-mapped
 *                              safetensors pages are file pages and not counted
 * @param weightBytes           bytes of every array the model holds on its device: weights (int8 where quantised),
 *                              scales, norms, RoPE tables
 * @param device                where the weights live, e.g. {@code cpu()} or {@code gpu(0)}
 * @param warnings              one line each about what loading changed in the weights, e.g. values beyond the
 *                              float16 range clamped; empty when nothing was
 */
public record LoadReport(long millis, long anonRssBeforeBytes, long peakAnonRssBytes, long weightBytes, String device,
                         List<String> warnings) {

    public LoadReport {
        Objects.requireNonNull(device, "device");
        warnings = List.copyOf(warnings);
    }

    /** Anonymous memory the load added at its peak over what the process had before; -1 when unknown. */
    public long peakAnonRssAddedBytes() {
        return peakAnonRssBytes < 0 || anonRssBeforeBytes < 0 ? -1 : peakAnonRssBytes - anonRssBeforeBytes;
    }
}
