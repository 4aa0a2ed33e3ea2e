package dev.ladder.eval.run;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.eval.experiment.ClassicModelsExemplars;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.experiment.RungSpec;
import dev.ladder.pipeline.judge.SqlJudge;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.sql.db.UserError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an experiment asks of a run, cell by cell: the rung and settings of each cell, which cells share a model or
 * reuse another seed's rows, how many items run at once, the workload each model carries and the k-shot rule. Pure
 * reading of the experiment: nothing here opens a file or a model.
 */
final class RunPlan {

    private final Experiment experiment;

    RunPlan(Experiment experiment) {
        this.experiment = experiment;
    }

    Experiment experiment() {
        return experiment;
    }

    /** The rung a cell runs (cells are rung-major: one per rung and seed, in order). */
    RungSpec rungOf(Cell cell) {
        return experiment.rungs().get(cell.index() / experiment.seeds().size());
    }

    /** The pipeline settings of a cell: its rung's, with the cell's seed. */
    Settings settingsOf(Cell cell) {
        return experiment.settingsOf(rungOf(cell)).withSeed(cell.seed());
    }

    /** Whether the cell's answers do not depend on its seed. */
    boolean seedFree(Cell cell) {
        return !Strategies.byName(cell.strategy()).usesSeed(settingsOf(cell));
    }

    /** The cell of the same rung with the experiment's first seed, or null when {@code cell} is that cell. */
    Cell firstSeedCell(Cell cell) {
        int first = cell.index() - cell.index() % experiment.seeds().size();
        return first == cell.index() ? null : experiment.cells().get(first);
    }

    /**
     * How many items of a cell are answered at once: a served model's {@code max_concurrent} (the server batches what
     * is in flight), else one. Rows are keyed by item and read back in item order, so the order items finish in
     * changes no output.
     */
    int parallelItems(Cell cell) {
        ModelSpec m = experiment.modelOf(rungOf(cell));
        return m.served() ? m.server().maxConcurrent() : 1;
    }

    /** The cells of each model, models in the order of their first cell, cells in experiment order. */
    List<List<Cell>> cellsByModel() {
        Map<String, List<Cell>> groups = new LinkedHashMap<>();
        for (Cell c : experiment.cells()) groups.computeIfAbsent(rungOf(c).model(), k -> new ArrayList<>()).add(c);
        return List.copyOf(groups.values());
    }

    /** Every model the run may load: the rungs' in rung order, then the judge's; ids may repeat. */
    List<String> modelIds() {
        List<String> ids = new ArrayList<>(experiment.rungs().stream().map(RungSpec::model).toList());
        if (experiment.scorers().judge() != null) ids.add(experiment.scorers().judge());
        return ids;
    }

    /** How a model loads, with the largest workload its rungs (and the judge pass, if it judges) put on it. */
    ModelLoader.LoadSpec loadSpec(String id) {
        List<RungSpec> rungs = experiment.rungs().stream().filter(r -> r.model().equals(id)).toList();
        ModelLoader.Workload w = ModelLoader.Workload.of(experiment, rungs);
        if (id.equals(experiment.scorers().judge())) w = w.withBudget(SqlJudge.MAX_TOKENS);
        return ModelLoader.LoadSpec.of(experiment.models().get(id), w);
    }

    /**
     * The k-shot rule: the fixed ClassicModels exemplars when the benchmark's train split has them, else the most
     * similar train questions (other benchmarks); a benchmark without a train split can run only k = 0 rungs. The
     * note says which rule was taken when the run did not say.
     */
    record Exemplars(ExemplarSelector selector, Optional<String> note) {}

    Exemplars exemplars(Benchmark benchmark) {
        List<BenchmarkItem> train = benchmark.splits().getOrDefault("train", List.of());
        try {
            return new Exemplars(ClassicModelsExemplars.selector(benchmark, "fixed", ClassicModelsExemplars.DEFAULT_SEED),
                    Optional.empty());
        } catch (IllegalArgumentException | UserError notThere) {
            // not ClassicModels: fall through to similarity
        }
        // prompt-k3 takes 3 exemplars; an agent rung takes its own agent_k
        boolean needsExemplars = experiment.rungs().stream().anyMatch(r -> r.strategy().startsWith("agent-")
                ? experiment.settingsOf(r).k() > 0 : !r.strategy().equals("prompt-k0"));
        if (train.isEmpty()) {
            if (needsExemplars) {
                throw new UserError("benchmark " + benchmark.name() + " has no train split to take k-shot exemplars from"
                        + " (it has " + benchmark.splits().keySet() + "); use only prompt-k0, or agent rungs with"
                        + " settings.agent_k: 0");
            }
            return new Exemplars((question, k) -> List.of(), Optional.empty());
        }
        Optional<String> note = needsExemplars ? Optional.of("exemplars: the train questions of " + benchmark.name()
                + " most similar to each question (the fixed exemplars are ClassicModels')") : Optional.empty();
        return new Exemplars(ClassicModelsExemplars.selector(benchmark, "similar", ClassicModelsExemplars.DEFAULT_SEED), note);
    }
}
