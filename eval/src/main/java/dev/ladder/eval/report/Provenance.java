package dev.ladder.eval.report;

import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.eval.experiment.ScorerSpec;
import dev.ladder.eval.report.Report.Run;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.scorer.score.ItemOutcome;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.pipeline.oracle.OracleModel;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** One line per run: what it ran on, how it was scored, when and from which commit (every caption ends with them). */
final class Provenance {

    private Provenance() {}

    static List<String> of(List<Run> runs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) out.add(provenanceOf(runs, i));
        return out;
    }

    private static String provenanceOf(List<Run> runs, int runIndex) {
        Run run = runs.get(runIndex);
        RunInfo info = run.info();
        Experiment e = info.experiment();
        // a lone run is not named: its report stays the same wherever its directory is copied
        String who = runs.size() == 1 || run.name().isEmpty() ? "Run" : "Run " + run.name();
        long n = run.results().stream().map(ItemResult::itemId).distinct().count();
        List<String> parts = new ArrayList<>();
        if (e == null) {
            parts.add("no config.yaml (models, benchmark and scorers not recorded)");
            parts.add("n = " + n + " items" + goldFailures(run));
        } else {
            Set<String> used = new LinkedHashSet<>();
            for (RungSpec r : e.rungs()) used.add(r.model());
            List<String> models = new ArrayList<>();
            for (String id : used) {
                ModelSpec m = e.models().get(id);
                if (m.oracle()) {
                    // an instrument's rows must never pass for a model's: every caption says what they are
                    models.add(id + " = THE ORACLE, noise " + m.oracleNoise() + " ("
                            + OracleModel.DISCLAIMER + ")");
                    continue;
                }
                if (m.served()) {
                    String version = info.env("models." + id + ".server_version");
                    models.add(id + " = " + m.path() + " (engine openai, " + m.server().endpoint() + " endpoint, server "
                            + Objects.requireNonNullElse(info.env("models." + id + ".server"), m.server().baseUrl())
                            + (version == null || version.equals("not reported") ? "" : " version " + version) + ")");
                    continue;
                }
                String adapter = m.hasAdapter() ? " + adapter " + m.adapter()
                        + (m.mergeBase().equals(ModelSpec.DEFAULT_MERGE_BASE) ? "" : " (merged into " + m.mergeBase() + ")") : "";
                String device = Objects.requireNonNullElse(info.env("models." + id + ".device"), m.device());
                String dtype = Objects.requireNonNullElse(info.env("models." + id + ".dtype"), m.dtype());
                String weights = info.randomWeights(id);
                // items answered together (their calls merged) since runs record it; earlier runs answered one at a time
                String width = info.env("models." + id + "." + BatchWidth.FIELD);
                models.add(id + " = " + (weights == null ? "" : "RANDOM WEIGHTS, ") + m.path() + adapter + " (engine "
                        + m.engine() + ", device " + device + ", dtype " + dtype
                        + (width == null ? "" : ", batch width " + width)
                        + (weights == null ? "" : "; weights " + weights) + ")");
            }
            parts.add("model " + String.join("; ", models));
            String selection = info.meta("items.selection");
            if (selection == null) {
                selection = e.limit() == null ? "all items of the split" : "the first " + e.limit() + " items of the split";
            }
            String shard = info.meta("shard");
            if (shard != null) {
                // a shard's numbers are not the experiment's: say so wherever its tables go
                selection += "; only shard " + shard + " of them (the items at positions p with p mod "
                        + shard.substring(shard.indexOf('/') + 1) + " = " + shardRemainder(shard) + "), not the whole run:"
                        + " 'ladder merge' joins the shards";
            }
            parts.add("benchmark " + e.benchmark() + ", split " + e.split() + ", items: " + selection + ", n = " + n
                    + goldFailures(run));
            String exModes = info.meta("scorers.ex_modes");
            String ex = exModes != null ? String.join(" and ", exModes.split(","))
                    : e.scorers().exMode().name().toLowerCase(Locale.ROOT);
            String ts = e.scorers().ts() == ScorerSpec.Ts.NONE ? "none"
                    : e.scorers().suite() != null ? "suite " + e.scorers().suite() : "stored suite";
            String tsMissing = info.meta("ts.missing");
            String tsPrint = info.meta(ExperimentRunner.TS_FINGERPRINT);
            if (tsPrint != null && tsMissing == null) ts += " (fingerprint " + tsPrint.substring(0, Math.min(12, tsPrint.length())) + ")";
            parts.add("scorers: EX " + ex + ", EM " + e.scorers().emMode().label() + ", TS " + ts
                    + (tsMissing != null ? " (missing: " + tsMissing + ")" : ""));
        }
        String started = info.env("run.started");
        parts.add("started " + (started != null ? started : "(not recorded)"));
        String sha = info.env("git.sha");
        parts.add("git " + (sha != null ? sha + ("true".equals(info.env("git.dirty")) ? " (with uncommitted changes)" : "")
                : "(not recorded)"));
        return who + ": " + String.join("; ", parts) + ".";
    }

    /**
     * How many items' golds timed out or failed on the database ({@code ""} when none): they are left out of every
     * metric, never counted as the model's error.
     */
    private static String goldFailures(Run run) {
        Set<String> timedOut = new TreeSet<>();
        Set<String> failed = new TreeSet<>();
        for (ItemResult r : run.results()) {
            if (ItemOutcome.GOLD_TIMEOUT.equals(r.outcome())) timedOut.add(r.itemId());
            else if (ItemOutcome.GOLD_ERROR.equals(r.outcome())) failed.add(r.itemId());
        }
        failed.removeAll(timedOut);
        int all = timedOut.size() + failed.size();
        if (all == 0) return "";
        return ", of which " + all + (all == 1 ? " item's gold" : " items' golds") + " could not be run ("
                + timedOut.size() + " timed out, " + failed.size() + " failed) and " + (all == 1 ? "is" : "are")
                + " left out of every metric (not the model's error; see the outcomes table)";
    }

    /** p mod N of shard "i/N"'s positions: i - 1 (the label as recorded; "?" when it does not read as i/N). */
    private static String shardRemainder(String label) {
        try {
            return Integer.toString(Integer.parseInt(label.substring(0, label.indexOf('/')).strip()) - 1);
        } catch (RuntimeException e) {
            return "?";
        }
    }
}
