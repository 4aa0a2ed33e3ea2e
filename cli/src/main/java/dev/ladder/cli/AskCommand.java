package dev.ladder.cli;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.ClassicModelsExemplars;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.experiment.ModelSpec;
import dev.ladder.eval.run.ExperimentRunner;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.Engines;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.pipeline.oracle.engine.OracleEngine;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.pipeline.oracle.OracleScope;
import dev.ladder.pipeline.prompt.ExemplarSelector;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.sql.db.ClassicModels;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.db.Values;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ladder ask DB "question" --strategy agent-3 --model MODEL}: one question through one rung of the ladder;
 * prints the final SQL and its result, and with {@code --trace} how the strategy got there.
 */
@Command(name = "ask", mixinStandardHelpOptions = true,
        description = {"Answer one question with a rung of the ladder and a local model; print the SQL and its result.",
                "Exemplars: the fixed exemplars of the benchmark's train split (classicmodels for the classicmodels "
                        + "database); the strategy fixes how many. Exit 0: the SQL executes; 1: no SQL, or it fails."})
final class AskCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Parameters(index = "0", paramLabel = "DB", description = "classicmodels, a jdbc:mysql:// URL or a SQLite file.")
    String database;
    @Parameters(index = "1", paramLabel = "QUESTION") String question;
    @Option(names = "--strategy", defaultValue = "agent-3", paramLabel = "NAME", completionCandidates = StrategyNames.class,
            description = "One of the registered strategies: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    String strategy;

    /** The strategies of every registered pipeline, for the help text. */
    static final class StrategyNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Strategies.names().iterator();
        }
    }
    @Mixin ModelFlags modelFlags;
    @Option(names = "--benchmark", paramLabel = "NAME|PATH",
            description = "Benchmark whose train split gives the exemplars (default: classicmodels for the classicmodels "
                    + "database, else none and the prompts carry no exemplars).")
    String benchmark;
    @Option(names = "--exemplars", defaultValue = "fixed", paramLabel = "fixed|similar",
            description = "Exemplar rule (default ${DEFAULT-VALUE}: the benchmark's fixed exemplars).")
    String exemplarRule;
    @Option(names = "--max-tokens", paramLabel = "N", description = "Most new tokens per completion (default 256).")
    Integer maxTokens;
    @Option(names = "--candidates", paramLabel = "N", description = "agent-2/3: samples of the standard prompt (default 4).")
    Integer candidates;
    @Option(names = "--temperature", paramLabel = "T", description = "agent-2/3: temperature of the samples (default 0.3).")
    Double temperature;
    @Option(names = "--seed", paramLabel = "S", description = "agent-2/3: seed of the samples (default 0).")
    Long seed;
    @Option(names = "--no-tabular", description = "agent-2/3: leave out the tabular prompt's candidate.")
    boolean noTabular;
    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Any setting as an experiment file's settings block has it, after the flags above: a shared knob "
                    + "(gate_budget=0) or a pipeline's (gsr.temperature=0.2, structured_search.rounds=0); repeatable.")
    List<String> sets = new ArrayList<>();
    @Option(names = "--hint", paramLabel = "TEXT", defaultValue = "",
            description = "External knowledge for the question (BIRD's evidence); read by gsr only.")
    String hint;
    @Option(names = "--rows", defaultValue = "20", paramLabel = "N", description = "Result rows printed (default ${DEFAULT-VALUE}).")
    int rows;
    @ArgGroup(exclusive = true) TraceMode traceMode = new TraceMode();
    @Mixin DatabaseOptions options = new DatabaseOptions();

    static final class TraceMode {
        @Option(names = "--trace", description = "Print the trace (every call, candidate, execution, score) before the SQL.")
        boolean text;
        @Option(names = "--trace-json", description = "Print only the trace as one JSON line (the final SQL is its \"sql\").")
        boolean json;
    }

    @Override
    public Integer call() {
        Strategy rung;
        try {
            rung = Strategies.byName(strategy);
        } catch (IllegalArgumentException e) {
            throw new UserError("--strategy: " + e.getMessage());
        }
        Settings settings = settings();
        if (question.isBlank()) throw new UserError("the question is empty");
        String rule = exemplarRule.strip().toLowerCase(Locale.ROOT);
        if (!rule.equals("fixed") && !rule.equals("similar")) {
            throw new UserError("--exemplars must be fixed or similar, got '" + exemplarRule + "'");
        }
        if (modelFlags.model != null && (modelFlags.model.equals(ModelSpec.ORACLE)
                || modelFlags.model.startsWith(ModelSpec.ORACLE + ":"))) {
            return askOracle(rung, settings, rule);
        }
        Engine engine = modelFlags.engine();
        ModelLoader.Workload workload = ModelLoader.Workload.of(List.of(strategy), settings.candidates(),
                settings.tabularPrompt(), rung.tokenBudget(settings));
        try (Database db = options.open(database)) {
            ExemplarSelector exemplars = exemplars(rule);
            Answer answer;
            // stderr carries only the outcome line here: no loading messages
            try (LanguageModel lm = modelFlags.open(engine, workload, null)) {
                answer = modelFlags.call(() -> rung.answer(new Question("ask", question, hint),
                        StrategyContext.of(lm, db, exemplars, settings)));
            }
            return report(answer, db, settings.limits(), rows, traceMode.text, traceMode.json,
                    spec.commandLine().getOut(), spec.commandLine().getErr());
        }
    }

    /**
     * {@code --model oracle[:noise]}: the oracle engine answers, from the gold of the benchmark item whose question this
     * is (the benchmark's own questions only); its judge is the database's EX against that gold.
     */
    private int askOracle(Strategy rung, Settings settings, String rule) {
        Engine oracle = Engines.registry().byName(OracleEngine.NAME);
        ModelFields fields = modelFlags.fields(oracle);
        oracle.check(fields);
        if (modelFlags.server != null || !modelFlags.engine.strip().equalsIgnoreCase("auto")) {
            throw new UserError("--model oracle is the oracle engine: it takes no --engine or --server");
        }
        oracle.label(fields);   // its noise, checked before the benchmark is read
        String name = benchmark != null ? benchmark
                : database.strip().equalsIgnoreCase(ClassicModels.NAME) ? ClassicModels.NAME : null;
        if (name == null) {
            throw new UserError("--model oracle answers a benchmark's own questions from their gold: give --benchmark");
        }
        Benchmark b = Benchmarks.load(name);
        String wanted = question.strip().replaceAll("\\s+", " ");
        BenchmarkItem item = b.splits().values().stream().flatMap(List::stream)
                .filter(i -> i.question().strip().replaceAll("\\s+", " ").equalsIgnoreCase(wanted)).findFirst()
                .orElseThrow(() -> new UserError("--model oracle answers only questions of benchmark " + b.name()
                        + " (it writes their gold); this question is not one of them"));
        try (Database db = options.open(database)) {
            ExemplarSelector exemplars = exemplars(rule);
            Scoring scoring = new Scoring(db, Optional.empty(), ExOptions.DEFAULT,
                    new ExactMatch(db.schema(), false));
            OracleKey key = ExperimentRunner.oracleKey(List.of(item), scoring);
            PrintWriter err = spec.commandLine().getErr();
            Answer answer;
            try (LanguageModel lm = oracle.load(fields, null, EngineContext.of(null, err, new OracleScope(key, db))).model()) {
                answer = rung.answer(new Question(item.id(), item.question(), hint), StrategyContext.of(lm, db, exemplars, settings));
            }
            return report(answer, db, settings.limits(), rows, traceMode.text, traceMode.json,
                    spec.commandLine().getOut(), err);
        }
    }


    private Settings settings() {
        Settings s = Settings.DEFAULT;
        try {
            if (maxTokens != null) s = s.withMaxNewTokens(maxTokens);
            if (candidates != null) s = s.withCandidates(candidates);
            if (temperature != null || seed != null) {
                s = s.withSampling(temperature == null ? s.sampleTemperature() : temperature, seed == null ? s.seed() : seed);
            }
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage().replace("maxNewTokens", "--max-tokens")
                    .replace("candidates", "--candidates").replace("sampleTemperature", "--temperature"));
        }
        s = noTabular ? s.withTabularPrompt(false) : s;
        return sets.isEmpty() ? s : ExperimentLoader.settingsFrom(sets, s, "--set");
    }

    /** The benchmark's exemplars, or none for a database without a benchmark. */
    private ExemplarSelector exemplars(String rule) {
        String name = benchmark != null ? benchmark
                : database.strip().equalsIgnoreCase(ClassicModels.NAME) ? ClassicModels.NAME : null;
        if (name == null) return (q, k) -> List.of();
        Benchmark b = Benchmarks.load(name);
        try {
            return ClassicModelsExemplars.selector(b, rule, ClassicModelsExemplars.DEFAULT_SEED);
        } catch (IllegalArgumentException e) {
            throw new UserError("--exemplars fixed uses the fixed exemplars of classicmodels (fixed-exemplars.txt), "
                    + "but benchmark " + b.name() + " does not have them (use --exemplars similar): " + e.getMessage());
        }
    }

    /**
     * Prints the answer: with {@code json} only the trace's JSON line; else the trace text when {@code text}, then the
     * SQL and the first {@code rows} rows of its result. Returns the exit code: 0 when the SQL executes, else 1.
     */
    static int report(Answer answer, Database db, ExecutionLimits limits, int rows, boolean text, boolean json,
                      PrintWriter out, PrintWriter err) {
        if (json) {
            out.println(answer.trace().toJson());
            out.flush();
            return answer.empty() || !db.execute(answer.sql(), limits).ok() ? 1 : 0;
        }
        if (text) {
            out.print(answer.trace().toText());
            out.println();
        }
        if (answer.empty()) {
            out.flush();
            err.println("no SQL: " + answer.trace().decision());
            return 1;
        }
        out.println(answer.sql());
        out.println();
        Execution ex = db.execute(answer.sql(), limits);
        if (ex instanceof Execution.Failure f) {
            out.flush();
            err.println("error: " + f.error());
            return 1;
        }
        QueryResult r = ((Execution.Success) ex).result();
        TextTable table = new TextTable(r.columns());
        r.rows().stream().limit(rows).forEach(row -> table.add(row.stream().map(Values::render).toList()));
        table.print(out);
        String shown = r.rowCount() > rows ? ", first " + rows + " shown" : "";
        out.println("(" + r.rowCount() + (r.truncated() ? "+" : "") + (r.rowCount() == 1 ? " row" : " rows") + shown
                + "; " + answer.trace().chosen() + ": " + answer.trace().decision() + ")");
        out.flush();
        return 0;
    }
}
