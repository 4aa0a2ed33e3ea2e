package dev.ladder.eval.run;

import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A run directory belongs to one experiment and one part of its items: a start that would add rows of another
 * configuration or another shard is refused before anything is written.
 */
final class RunIdentity {

    private RunIdentity() {}

    /**
     * A run directory answers one part of the items: resuming a shard as another shard, a whole run as a shard, or a
     * shard as a whole run would leave rows no merge can place.
     */
    static void checkSameShard(Path runDir, Shard shard) {
        Path results = runDir.resolve(RunDirectory.RESULTS);
        if (!Files.isRegularFile(results)) return;
        String recorded;
        boolean hasRows;
        try (ResultsStore store = ResultsStore.openReadOnly(results)) {
            recorded = store.meta(Shard.META_KEY);
            hasRows = store.hasResults();
        }
        String wanted = shard == null ? null : shard.label();
        if (Objects.equals(recorded, wanted) || (recorded == null && !hasRows)) return;
        String was = recorded == null ? "a whole run (no --shard)" : "shard " + recorded;
        String now = wanted == null ? "a whole run (no --shard)" : "shard " + wanted;
        throw new UserError(runDir + " holds " + was + ", not " + now + ": resume it with "
                + (recorded == null ? "no --shard" : "--shard " + recorded) + ", or pass --out NEW_DIR");
    }

    /** A run directory belongs to one experiment: resuming it with another configuration would mix results. */
    static void checkSameExperiment(Path runDir, String config) {
        Path file = runDir.resolve(RunDirectory.CONFIG);
        if (!Files.isRegularFile(file)) return;
        String existing;
        try {
            existing = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage());
        }
        String wanted = config.endsWith("\n") ? config : config + "\n";
        if (existing.equals(wanted)) return;
        if (sameMeaning(existing, file, wanted)) return;
        List<String> a = existing.lines().toList();
        List<String> b = wanted.lines().toList();
        int line = 0;
        while (line < Math.min(a.size(), b.size()) && a.get(line).equals(b.get(line))) line++;
        String was = line < a.size() ? a.get(line).strip() : "(end)";
        String now = line < b.size() ? b.get(line).strip() : "(end)";
        throw new UserError(file + " holds another experiment (line " + (line + 1) + ": '" + was
                + "' here, '" + now + "' now): resume with the same file and options, or pass --out NEW_DIR");
    }

    /**
     * A config.yaml an earlier version wrote in another layout still names the same experiment when it loads to one
     * that this version writes as {@code wanted}, the blocks of pipelines no rung runs aside (an earlier version's
     * defaults there change no answer). Its {@code output} is where the folder was, not what was run: a run folder
     * moved (or copied) elsewhere and resumed there with {@code --out} is the same run, and its config.yaml then
     * names the new place.
     */
    private static boolean sameMeaning(String existing, Path file, String wanted) {
        try {
            Experiment now = ExperimentLoader.parse(wanted, file.toString()).withIdleBlocksAtDefaults();
            Experiment before = ExperimentLoader.parse(existing, file.toString()).withIdleBlocksAtDefaults()
                    .withOutput(now.output());
            return before.toResolvedYaml().equals(now.toResolvedYaml());
        } catch (RuntimeException e) {
            return false; // unreadable or invalid now: not the same experiment
        }
    }
}
