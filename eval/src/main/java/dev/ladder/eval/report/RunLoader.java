package dev.ladder.eval.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentException;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.pipeline.oracle.OracleModel;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.scorer.score.BuiltInMetrics;
import dev.ladder.scorer.testsuite.TestSuite;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run directory as a report reads it ({@code ladder report} and {@code ladder view} both): its cells, rows, resolved
 * experiment, environment, meta values and, for runs the oracle engine answered, what its traces say of the noise.
 */
public final class RunLoader {

    private RunLoader() {}

    /**
     * One run directory as a report reads it: its cells, rows, resolved experiment, environment and meta values.
     *
     * @throws UserError when it is not a run directory or has no results yet
     */
    public static Report.Run load(Path dir) {
        Path results = dir.resolve(RunDirectory.RESULTS);
        if (!Files.isRegularFile(results)) {
            throw new UserError("not a run directory: " + dir + " (no " + RunDirectory.RESULTS + "; 'ladder run' writes one)");
        }
        Experiment experiment = experiment(dir);
        Map<String, String> environment = environment(dir);
        try (ResultsStore store = ResultsStore.openReadOnly(results)) {
            var rows = store.results();
            if (rows.isEmpty()) {
                throw new UserError(dir + " has no results yet (its run stopped before the first item): nothing to "
                        + "report; run the experiment again to fill it");
            }
            List<Cell> cells = store.cells();
            Map<String, String> meta = new TreeMap<>();
            List<String> keys = new ArrayList<>(META_KEYS);
            for (Cell c : cells) keys.add("skipped." + c.name());
            for (String key : keys) {
                String value = store.meta(key);
                if (value != null) meta.put(key, value);
            }
            if (TestSuite.EMPTY_FINGERPRINT.equals(meta.get(ExperimentRunner.TS_FINGERPRINT))) {
                // scored on a suite without databases (stored before such suites were refused): its TS is EX
                rows = rows.stream().map(r -> r.withoutScore(BuiltInMetrics.TS.name())).toList();
                meta.put("ts.missing", EMPTY_SUITE);
            }
            Report.Run run = Report.Run.of(dir, cells, rows, new RunInfo(experiment, environment, meta));
            return experiment != null && experiment.models().values().stream().anyMatch(ModelSpec::oracle)
                    ? run.withOracle(oracleTraces(store, cells)) : run;
        }
    }

    /** What each answer's trace says of the oracle's noise (a Generate step's notes) and the strategy's decision. */
    static Map<String, Report.OracleTrace> oracleTraces(ResultsStore store, List<Cell> cells) {
        Map<String, Report.OracleTrace> out = new HashMap<>();
        for (Cell c : cells) {
            for (String json : store.traces(c.name())) {
                Trace t;
                try {
                    t = Trace.fromJson(json);
                } catch (RuntimeException unreadable) {
                    continue; // a trace this version cannot read says nothing about noise
                }
                boolean semantic = false;
                boolean format = false;
                for (TraceStep.Generate g : t.steps(TraceStep.Generate.class)) {
                    for (String note : g.notes()) {
                        semantic |= OracleModel.notes(note, "semantic");
                        format |= OracleModel.notes(note, "format");
                    }
                }
                out.put(Report.oracleKey(c.name(), t.questionId()), new Report.OracleTrace(semantic, format,
                        t.decision()));
            }
        }
        return out;
    }

    /** Why a run scored on an empty suite has no TS in a report. */
    static final String EMPTY_SUITE = "its TS was scored on a test suite with no database beyond the original (fingerprint "
            + TestSuite.EMPTY_FINGERPRINT.substring(0, 12) + "), so it was EX and is left out: build a suite and score"
            + " the run's predictions again ('ladder eval')";

    /** The results store's meta values a report reads besides {@code skipped.<cell>}. */
    static final List<String> META_KEYS = List.of("ts.missing", "items.selection", "scorers.ex_modes", "shard",
            ExperimentRunner.TS_FINGERPRINT);

    /**
     * TS means "on this suite": runs whose TS was scored on suites of different contents (their fingerprints differ)
     * are not put side by side. A run without a recorded fingerprint (older, or without TS) is not checked.
     */
    public static void checkSameSuite(List<Report.Run> runs) {
        Map<String, String> prints = new TreeMap<>();
        for (Report.Run r : runs) {
            String print = r.info().meta(ExperimentRunner.TS_FINGERPRINT);
            boolean hasTs = r.results().stream().anyMatch(x -> x.ts() != null);
            if (print != null && hasTs) prints.put(r.name(), print.substring(0, Math.min(12, print.length())));
        }
        if (new HashSet<>(prints.values()).size() > 1) {
            throw new UserError("these runs scored TS on different test suites (fingerprints " + prints + "): their TS"
                    + " numbers do not compare; report them apart, or score them again on one suite ('ladder eval')");
        }
    }

    /** The run's resolved experiment (config.yaml), or null for a run made before it was written. */
    public static Experiment experiment(Path runDir) {
        Path config = runDir.resolve(RunDirectory.CONFIG);
        if (!Files.isRegularFile(config)) return null;
        try {
            return ExperimentLoader.load(config);
        } catch (ExperimentException e) {
            // a run copied to another machine, or whose model folder moved, still has results worth reporting: its
            // provenance then comes from environment.json and the results store alone
            System.err.println("warning: " + e.getMessage() + "; the report's provenance leaves out what " + config
                    + " says");
            return null;
        }
    }

    /** environment.json's keys and values as text (an absent file: none). */
    public static Map<String, String> environment(Path runDir) {
        Path env = runDir.resolve(RunDirectory.ENVIRONMENT);
        Map<String, String> out = new TreeMap<>();
        if (!Files.isRegularFile(env)) return out;
        try {
            var root = new ObjectMapper().readTree(env.toFile());
            if (root == null || !root.isObject()) throw new UserError("cannot read " + env + ": not a JSON object");
            root.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText()
                    : e.getValue().toString()));
            return out;
        } catch (IOException e) {
            throw new UserError("cannot read " + env + ": " + e.getMessage());
        }
    }

    /** The EM mode a run was scored with (environment.json's scorers.em_mode; runs made before it: semantic). */
    public static String emMode(Path runDir) {
        Path env = runDir.resolve(RunDirectory.ENVIRONMENT);
        if (!Files.isRegularFile(env)) return "semantic";
        try {
            var node = new ObjectMapper().readTree(env.toFile()).get("scorers.em_mode");
            return node == null ? "semantic" : node.asText();
        } catch (IOException e) {
            throw new UserError("cannot read " + env + ": " + e.getMessage());
        }
    }
}
