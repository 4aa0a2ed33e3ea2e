package dev.ladder.eval.run;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's provenance file, environment.json: written at the first start (git sha, JVM, engine, the models'
 * fingerprints, the start time); later starts only add what they learn for the first time (a model loaded, an
 * adapter trained meanwhile), so the values describe the run's first start.
 */
final class RunEnvironment {

    private RunEnvironment() {}

    static Map<String, String> read(RunDirectory dir) {
        if (!Files.isRegularFile(dir.environment())) return Map.of();
        try {
            return new ObjectMapper().readValue(dir.environment().toFile(), new TypeReference<Map<String, String>>() {});
        } catch (IOException e) {
            throw new UserError("cannot read " + dir.environment() + ": " + e.getMessage());
        }
    }

    /** Adds the entries the file does not have yet (the first start's values stay). */
    static void addAbsent(RunDirectory dir, Map<String, String> entries) {
        Map<String, String> env = new TreeMap<>(read(dir));
        entries.forEach(env::putIfAbsent);
        dir.writeEnvironment(env);
    }

    /**
     * The start of a run: the machine and checkout on the first start, then the EM mode, the shard and the models'
     * fingerprints where absent.
     */
    static void recordStart(RunDirectory dir, Experiment experiment, Shard shard, Path repoRoot,
                            Map<String, RunModels.Resolved> resolved) {
        Map<String, String> env = new TreeMap<>(read(dir));
        if (env.isEmpty()) {
            env.putAll(Fingerprints.environment(repoRoot));
            env.putAll(TorchEnvironment.entries());
            // the first start dates the run (its report's provenance); a resumed run keeps it
            env.put("run.started", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        }
        // the EM numbers of this run mean what this mode says (semantic and spider-strict differ)
        env.putIfAbsent("scorers.em_mode", experiment.scorers().emMode().label());
        // checked equal on every start (RunIdentity.checkSameShard), so put is safe
        if (shard != null) env.put("run." + Shard.META_KEY, shard.label());
        resolved.forEach((id, m) -> {
            env.putIfAbsent(RunModels.fingerprintKey(id, "path"), m.modelPrint());
            if (m.adapter() != null) env.putIfAbsent(RunModels.fingerprintKey(id, "adapter"), m.adapterPrint());
        });
        dir.writeEnvironment(env);
    }
}
