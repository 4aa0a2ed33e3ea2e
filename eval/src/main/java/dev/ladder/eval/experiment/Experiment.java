package dev.ladder.eval.experiment;

import dev.ladder.scorer.bench.ItemSubset;
import dev.ladder.pipeline.agent.LadderPipeline;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.Engines;
import dev.ladder.pipeline.oracle.OracleNoise;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.sql.db.SqlMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A resolved experiment file: every default filled in, every name checked ({@link ExperimentLoader#load}).
 *
 * @param name      the experiment's name
 * @param benchmark a bundled benchmark name or a path ({@code Benchmarks.load})
 * @param split     the split the run answers
 * @param database  the database of items without their own {@code db} (default: the benchmark's)
 * @param limit     how many items of the split the run answers, or null for all
 * @param subset    how those {@code limit} items are chosen (stratified and seeded by default)
 * @param seeds     sampling seeds; every rung runs once per seed
 * @param output    the run directory
 * @param models    model id to model, in file order (the first is the default of plain-string rungs)
 * @param rungs     the ladder, bottom rung first
 * @param settings  strategy knobs with seed 0 (a cell runs with its own seed: {@link Settings#withSeed})
 * @param sqlMode   SQL mode of the database's MySQL sessions (server's own, or MySQL 8.0's)
 * @param scorers   scorer options
 * @param comparisons the paired comparisons reports test, {@code to} minus {@code from}; null gives the default family
 *                  ({@link Comparisons#defaultFamily})
 */
public record Experiment(String name, String benchmark, String split, String database, SqlMode sqlMode, Integer limit,
                         ItemSubset subset, List<Long> seeds, Path output, Map<String, ModelSpec> models,
                         List<RungSpec> rungs, Settings settings, ScorerSpec scorers, List<Comparisons.Pair> comparisons) {

    /** An experiment of all items or the stratified default subset, with the default family of comparisons. */
    public Experiment(String name, String benchmark, String split, String database, SqlMode sqlMode, Integer limit,
                      List<Long> seeds, Path output, Map<String, ModelSpec> models, List<RungSpec> rungs,
                      Settings settings, ScorerSpec scorers) {
        this(name, benchmark, split, database, sqlMode, limit, ItemSubset.DEFAULT, seeds, output, models, rungs, settings,
                scorers, null);
    }

    public Experiment {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(benchmark, "benchmark");
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(sqlMode, "sqlMode");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(subset, "subset");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(scorers, "scorers");
        if (limit != null && limit < 1) throw new IllegalArgumentException("limit must be >= 1, got " + limit);
        seeds = List.copyOf(seeds);
        if (seeds.isEmpty() || new HashSet<>(seeds).size() != seeds.size()) {
            throw new IllegalArgumentException("seeds must be non-empty and distinct: " + seeds);
        }
        models = Collections.unmodifiableMap(new LinkedHashMap<>(models));
        if (models.isEmpty()) throw new IllegalArgumentException("no models");
        rungs = List.copyOf(rungs);
        if (rungs.isEmpty()) throw new IllegalArgumentException("no rungs");
        Set<String> names = new HashSet<>();
        for (RungSpec r : rungs) {
            if (!names.add(r.name())) throw new IllegalArgumentException("duplicate rung name " + r.name());
            if (!models.containsKey(r.model())) throw new IllegalArgumentException("rung " + r.name() + ": no model " + r.model());
        }
        comparisons = comparisons == null ? Comparisons.defaultFamily(Comparisons.rungs(models, rungs))
                : List.copyOf(comparisons);
        String[] problem = Comparisons.problem(comparisons, rungs.stream().map(RungSpec::name).toList());
        if (problem != null) throw new IllegalArgumentException(problem[0] + ": " + problem[1]);
    }

    /** A comparison's label: H1, H2 or H3 for the research questions' pairs, else "declared". */
    public String labelOf(Comparisons.Pair pair) {
        return Comparisons.label(pair, Comparisons.rungs(models, rungs));
    }

    /** A comparison's Holm family ({@link Comparisons#family}). */
    public String familyOf(Comparisons.Pair pair) {
        return Comparisons.family(pair, Comparisons.rungs(models, rungs));
    }

    /** The rung of that name, if any. */
    public Optional<RungSpec> rung(String rungName) {
        return rungs.stream().filter(r -> r.name().equals(rungName)).findFirst();
    }

    /** The model a rung runs on. */
    public ModelSpec modelOf(RungSpec rung) {
        return models.get(rung.model());
    }

    /** The settings a rung runs with: its own when it overrides any, else the experiment's. */
    public Settings settingsOf(RungSpec rung) {
        return rung.settings() != null ? rung.settings() : settings;
    }

    /** A cell's name: the rung's, with {@code @seed} appended when the experiment has more than one seed. */
    public String cellName(RungSpec rung, long seed) {
        return seeds.size() > 1 ? rung.name() + "@" + seed : rung.name();
    }

    /** The grid: for each rung (bottom first), one cell per seed. */
    public List<Cell> cells() {
        List<Cell> cells = new ArrayList<>();
        for (RungSpec r : rungs) {
            ModelSpec m = modelOf(r);
            for (long seed : seeds) {
                cells.add(new Cell(cells.size(), cellName(r, seed), m.path(), m.hasAdapter() ? m.adapter() : "",
                        r.strategy(), seed));
            }
        }
        return cells;
    }

    /**
     * Problems that do not stop a run: an adapter directory that is not there yet (the runner skips the cells of that
     * model and says so) and a model no rung uses. Checked against the file system on each call.
     */
    public List<String> warnings() {
        List<String> out = new ArrayList<>();
        models.forEach((id, m) -> {
            List<String> using = rungs.stream().filter(r -> r.model().equals(id)).map(RungSpec::name).toList();
            if (using.isEmpty()) {
                out.add("models." + id + ": no strategy uses this model");
            } else if (m.adapterMissing()) {
                out.add("models." + id + ".adapter: no PEFT adapter at " + m.adapter() + " (no adapter_config.json); "
                        + "skipping " + String.join(", ", using) + " (train one with notebooks/qlora_train.ipynb)");
            } else if (m.trainedK().isPresent()) {
                // an adapter learns the prompt it was trained on: a k = 0 adapter under a k = 3 prompt is another rung
                int trained = m.trainedK().getAsInt();
                for (RungSpec r : rungs) {
                    var k = LadderPipeline.exemplarsK(r.strategy(), settingsOf(r));
                    if (r.model().equals(id) && k.isPresent() && k.getAsInt() != trained) {
                        out.add("models." + id + ".adapter: " + m.adapter() + " was trained on k = " + trained
                                + " prompts (ladder-training.json), but rung " + r.name() + " prompts with k = " + k.getAsInt()
                                + "; train one adapter per k (notebooks/qlora_train.ipynb)");
                    }
                }
            }
        });
        return out;
    }

    /** Every model's path replaced (adapters kept), e.g. to run the same ladder on another model. */
    public Experiment withModelOverride(String pathOrId) {
        if (pathOrId != null && (pathOrId.equals(ModelSpec.ORACLE) || pathOrId.startsWith(ModelSpec.ORACLE + ":"))) {
            String label;
            try {
                label = OracleNoise.parse(pathOrId.substring(ModelSpec.ORACLE.length())
                        .replaceFirst("^:", "")).label();
            } catch (IllegalArgumentException e) {
                throw new ExperimentException("model override", "--model", e.getMessage());
            }
            // every in-process model becomes the oracle, adapter and all: the QLoRA rungs ask the prompt rungs' calls
            return withLocalModels("--model", m -> ModelSpec.oracle(label));
        }
        String problem = ExperimentLoader.modelPathProblem(pathOrId);
        if (problem != null) throw new ExperimentException("model override", "models.*.path", problem);
        return withLocalModels("--model", m -> m.withPath(pathOrId));
    }

    /** Every model's adapter replaced where the file sets one. */
    public Experiment withAdapterOverride(String adapterDir) {
        if (adapterDir == null || adapterDir.isBlank()) {
            throw new ExperimentException("adapter override", "models.*.adapter", "empty adapter path");
        }
        if (models.values().stream().noneMatch(ModelSpec::hasAdapter)) {
            throw new ExperimentException("adapter override", "models.*.adapter",
                    "no model of experiment " + name + " has an adapter to replace; add 'adapter:' to a model in the file");
        }
        return withModels(m -> m.hasAdapter() ? m.withAdapter(adapterDir) : m);
    }

    /** Every model's dtype replaced ({@code ladder run --dtype}). */
    public Experiment withDtypeOverride(String dtype) {
        if (!ExperimentLoader.KNOWN_DTYPES.contains(dtype)) {
            throw new ExperimentException("dtype override", "models.*.dtype", "unknown dtype '" + dtype + "'; known: "
                    + String.join(", ", ExperimentLoader.KNOWN_DTYPES));
        }
        return withLocalModels("--dtype", m -> m.withDtype(dtype));
    }

    /** Engines an in-process model may be switched to ({@code ladder run --engine}). */
    public static final List<String> LOCAL_ENGINES = Engines.registry().inProcessNames();

    /**
     * Every in-process model's engine replaced ({@code ladder run --engine}): the same ladder on the onnx engine, say,
     * to compare engines on one file. Oracle and served models stay.
     */
    public Experiment withEngineOverride(String engine) {
        if (!LOCAL_ENGINES.contains(engine)) {
            throw new ExperimentException("engine override", "models.*.engine", "unknown engine '" + engine + "' for --engine; use "
                    + String.join(", ", LOCAL_ENGINES));
        }
        // the engine says whether it runs a model here: the oracle and a served model do not, and stay
        return withLocalModels("--engine", m -> Engines.registry().find(m.engine()).map(Engine::inProcess).orElse(false)
                ? m.withEngine(engine) : m);
    }

    /** Every model's device replaced ({@code ladder run --device}). */
    public Experiment withDeviceOverride(String device) {
        String problem = ExperimentLoader.deviceProblem(device);
        if (problem != null) throw new ExperimentException("device override", "models.*.device", problem);
        return withLocalModels("--device", m -> m.withDevice(device));
    }

    /**
     * Every model that takes a {@code batch_width} (those that run in this process, the oracle included) answering
     * {@code width} items together ({@code ladder run --batch-width}); served models keep their {@code max_concurrent}.
     */
    public Experiment withBatchWidthOverride(int width) {
        String problem = ExperimentLoader.FIELD_BOUNDS.get("models.ID." + BatchWidth.FIELD).problem(width, Integer.toString(width));
        if (problem != null) throw new ExperimentException("batch width override", "models.*." + BatchWidth.FIELD, problem);
        return withLocalModels("--batch-width", m -> Engines.registry().find(m.engine())
                .map(e -> e.fields().contains(BatchWidth.FIELD)).orElse(false) ? m.withOption(BatchWidth.FIELD, Integer.toString(width)) : m);
    }

    /** Only {@code n} items of the split, chosen by the experiment's {@link #subset()}. */
    public Experiment withLimit(int n) {
        String problem = ExperimentLoader.FIELD_BOUNDS.get("limit").problem(n, Integer.toString(n));
        if (problem != null) throw new ExperimentException("limit override", "limit", problem);
        return new Experiment(name, benchmark, split, database, sqlMode, n, subset, seeds, output, models, rungs, settings, scorers, comparisons);
    }

    /**
     * This experiment with the settings block of every pipeline none of its rungs runs at its defaults, everywhere:
     * such a block changes no answer, so two experiments equal but for one ask the same of a run (a run directory
     * written when that block's defaults differed resumes).
     */
    public Experiment withIdleBlocksAtDefaults() {
        Set<SettingsBlock<?>> used = new HashSet<>();
        for (RungSpec r : rungs) {
            Pipeline p = Pipelines.registry().pipelineOf(r.strategy());
            if (p != null && p.settings() != null) used.add(p.settings());
        }
        UnaryOperator<Settings> reset = s -> {
            Settings out = s;
            for (SettingsBlock<?> b : Pipelines.registry().settingsBlocks()) {
                if (!used.contains(b)) out = atDefaults(out, b);
            }
            return out;
        };
        List<RungSpec> quiet = rungs.stream().map(r -> r.settings() == null ? r
                : new RungSpec(r.name(), r.strategy(), r.model(), reset.apply(r.settings()))).toList();
        return new Experiment(name, benchmark, split, database, sqlMode, limit, subset, seeds, output, models, quiet,
                reset.apply(settings), scorers, comparisons);
    }

    private static <T extends Record> Settings atDefaults(Settings s, SettingsBlock<T> block) {
        return s.with(block, block.defaults());
    }

    /** The items chosen another way ({@code ladder run --subset}). */
    public Experiment withSubset(ItemSubset how) {
        return new Experiment(name, benchmark, split, database, sqlMode, limit, how, seeds, output, models, rungs, settings, scorers, comparisons);
    }

    public Experiment withOutput(Path dir) {
        Objects.requireNonNull(dir, "dir");
        return new Experiment(name, benchmark, split, database, sqlMode, limit, subset, seeds, dir, models, rungs, settings, scorers, comparisons);
    }

    /**
     * Every in-process model changed; a served model ({@code engine: openai}) is the server's business and stays. An
     * override with no in-process model to change is an error rather than silently nothing.
     */
    private Experiment withLocalModels(String option, UnaryOperator<ModelSpec> change) {
        if (models.values().stream().allMatch(ModelSpec::served)) {
            throw new ExperimentException(option + " override", "models.*", "every model of experiment " + name
                    + " is served (engine openai): " + option + " applies to in-process models; change the server instead");
        }
        return withModels(m -> m.served() ? m : change.apply(m));
    }

    private Experiment withModels(UnaryOperator<ModelSpec> change) {
        Map<String, ModelSpec> changed = new LinkedHashMap<>();
        models.forEach((k, v) -> changed.put(k, change.apply(v)));
        return new Experiment(name, benchmark, split, database, sqlMode, limit, subset, seeds, output, changed, rungs, settings, scorers, comparisons);
    }

    /**
     * The experiment as a YAML file with every default filled in and keys in a fixed order; loading it gives an
     * equal experiment (run directories store it).
     */
    public String toResolvedYaml() {
        return ResolvedYaml.write(this);
    }
}
