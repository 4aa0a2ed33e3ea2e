package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Experiment;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a report knows of a run besides its rows: the resolved experiment (config.yaml), environment.json and the
 * results store's meta values. Any part may be missing (runs made before it was recorded); the report then says
 * "not recorded" and falls back to what the cells tell.
 *
 * @param experiment  the resolved experiment, or null
 * @param environment environment.json's keys and values (e.g. {@code git.sha}, {@code run.started},
 *                    {@code models.base.device})
 * @param meta        the results store's meta values the report reads: {@code skipped.<cell>}, {@code ts.missing},
 *                    {@code items.selection}, {@code scorers.ex_modes}, {@code shard} (a shard run's "i/N")
 */
public record RunInfo(Experiment experiment, Map<String, String> environment, Map<String, String> meta) {

    /** Nothing known beyond the rows. */
    public static final RunInfo NONE = new RunInfo(null, Map.of(), Map.of());

    public RunInfo {
        environment = Collections.unmodifiableMap(new TreeMap<>(environment));
        meta = Collections.unmodifiableMap(new TreeMap<>(meta));
    }

    /** An environment value, or null. */
    String env(String key) {
        String v = environment.get(key);
        return v == null || v.isBlank() ? null : v;
    }

    /** What environment.json says of the model's weights when they were random (make-tiny's), else null. */
    public String randomWeights(String modelId) {
        String v = env("models." + modelId + ".weights");
        return v != null && v.startsWith("random") ? v : null;
    }

    /** Whether any model of the run had random weights. */
    public boolean anyRandomWeights() {
        return environment.keySet().stream().anyMatch(k -> k.startsWith("models.") && k.endsWith(".weights")
                && randomWeights(k.substring("models.".length(), k.length() - ".weights".length())) != null);
    }

    /** A meta value, or null. */
    public String meta(String key) {
        String v = meta.get(key);
        return v == null || v.isBlank() ? null : v;
    }
}
