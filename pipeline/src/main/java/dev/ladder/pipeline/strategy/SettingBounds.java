package dev.ladder.pipeline.strategy;

/**
 * How large each numeric setting may be, and why: the one table of maxima for experiment files (settings blocks
 * through {@link Bounded}, the loader's own fields through {@link Bound}s made of these) and for the command line's
 * numeric flags. A bound is generous for research (above what the published methods use, so a sweep fits) and stops
 * a typo or a stray exponent from running a machine out of memory or time: a value above one is one line naming the
 * key, the value and the bound, exit 2. docs/experiments.md ("Bounds") lists every key with its bound.
 */
public final class SettingBounds {

    private SettingBounds() {}

    // --- one model call ---

    /**
     * Tokens one call may generate (max_new_tokens, each pipeline's max_tokens and tokens_per_sketch, --max-tokens):
     * 128K, the longest context window of the open models Ladder runs or reaches on a server (Llama 3.1, Qwen2.5 with
     * YaRN). A budget past a model's own window is cut at the window (finish reason {@code context}).
     */
    public static final int TOKENS = 131_072;

    /**
     * Tokens per row of a memory plan (model plan --context, --prefill-tokens): 1M, the longest window of open models
     * (Qwen2.5-1M); the plan also refuses more than the model's own max_position_embeddings.
     */
    public static final int CONTEXT = 1_048_576;

    /**
     * Candidates of one request (candidates, structured_search.sketches, generate -n, ask --candidates): 256.
     * Self-consistency samples 40 (Wang et al. 2023), Codex's pass@k estimates draw 200 (Chen et al. 2021). The
     * samples share one prefill, but each holds its own cache and completion.
     */
    public static final int CANDIDATES = 256;

    /** Sampling temperature (sample_temperature, gsr.temperature, --temperature): 2, the OpenAI API's maximum. */
    public static final double TEMPERATURE = 2;

    /** Top-k of sampling (generate --top-k): 262,144, the largest vocabulary of open models (Gemma's 256K); 0 is off. */
    public static final int VOCABULARY = 262_144;

    /**
     * Exemplars in one prompt (agent_k): 128. Text-to-SQL prompting papers show 0 to about 10; many-shot studies go
     * further, and 128 exemplars with a schema already fill a 32K window.
     */
    public static final int EXEMPLARS = 128;

    // --- one item ---

    /**
     * Repetitions of a step for one item (gate_budget, structured_search.rounds, gsr.linking_rounds,
     * soft_attention.cycles, progressive.max_iterations, retries and beam_width): 64. The methods use 1 to 10 (agent
     * gate 4, repair rounds 3, one linking round, 3 cycles, 10 iterations, 2 retries, 3 branches); each repetition is a
     * model call per item, so more multiplies a run's time.
     */
    public static final int LOOPS = 64;

    /**
     * Values or rows shown in one prompt (gsr.value_examples, gsr.result_rows): 1,000; a thousand short rows already
     * fill about 10K tokens.
     */
    public static final int PROMPT_ITEMS = 1_000;

    /**
     * Schema elements a step recalls or names (structured_search.table_k and column_k, gsr.explore_limit): 10,000;
     * enterprise schemas (Spider 2.0) run to thousands of columns, and a k above a schema's size means all of it.
     */
    public static final int SCHEMA_ITEMS = 10_000;

    /** Distinct values indexed per text column (gsr.max_indexed_values): 1,000,000, all held in memory at once. */
    public static final int INDEXED_VALUES = 1_000_000;

    /** Weights, penalties, thresholds and rates of a score in [0, 1]: 1 (the methods' weights sum to 1). */
    public static final double SCORE = 1;

    // --- execution and scoring ---

    /**
     * Rows of one execution (row_cap, soft_attention.min_rows and max_rows, sql --max-rows, ask --rows): 10,000,000;
     * a result's 64 MiB byte bound cuts it before that anyway (about 4 million values).
     */
    public static final int ROWS = 10_000_000;

    /**
     * Seconds one SQL statement may run (timeout_seconds, sql --timeout): 3,600. Evaluators allow tens of seconds
     * (BIRD's 30 s, Ladder's 10 s default); an hour leaves room for slow external servers.
     */
    public static final double STATEMENT_SECONDS = 3_600;

    /**
     * Relative tolerance of numbers (scorers.tolerance, eval --tolerance): 1, which already accepts anything within
     * 100% of the gold value; more would accept numbers of the other sign.
     */
    public static final double TOLERANCE = 1;

    // --- a run ---

    /**
     * Items of a run (limit, --limit, bench ladder --sample): 10,000,000, above the largest text-to-SQL corpora
     * (SynSQL-2.5M); a limit above a split's size means all of it.
     */
    public static final int ITEMS = 10_000_000;

    /**
     * Shards of one run (run --shard i/N): 10,000. A Slurm array holds 1,001 tasks by default (MaxArraySize), and ten
     * thousand shards of a 10,000-item split are one item each; merge reads every shard's directory.
     */
    public static final int RUN_SHARDS = 10_000;

    /** Seeds of one experiment (the length of seeds): 1,000; papers report 3 to 5, each seed runs every rung again. */
    public static final int SEEDS = 1_000;

    // --- a served model (engine: openai) and the engines' own machinery ---

    /** Seconds to wait for one answer (models.ID.timeout_seconds): 3,600, a 128K-token answer at 40 tokens/s. */
    public static final int SERVER_SECONDS = 3_600;

    /**
     * Requests in flight at once (models.ID.max_concurrent, bench serve --concurrency): 1,024; each is a thread of the
     * run, and vLLM batches 256 sequences by default (max_num_seqs).
     */
    public static final int CONCURRENT = 1_024;

    /** Tries per request (models.ID.retries): 100; with the 30 s backoff cap that is about 50 minutes of retrying. */
    public static final int RETRIES = 100;

    /**
     * Candidate rows one engine batch decodes together (serve and bench serve --max-batch-rows, bench generate
     * --batches, bench linear --rows, model plan --rows): 1,024, 64 times the engine's default of 16.
     */
    public static final int BATCH_ROWS = 1_024;

    /**
     * Items a run answers together, their calls merged into one engine call each round (models.ID.batch_width, run and
     * bench ladder --batch-width): 1,024, as many as the rows of one engine batch may be; each item is a thread of the
     * run, and the engine decodes a merged call in batches of its batch rows (16 by default) anyway.
     */
    public static final int BATCH_WIDTH = 1_024;

    /** Requests a server queues (serve --max-queue): 65,536. */
    public static final int QUEUE = 65_536;

    /** Milliseconds a batch waits for company (serve and bench serve --batch-wait-ms): 60,000. */
    public static final int BATCH_WAIT_MS = 60_000;

    /** A TCP port (serve, view --port): 65,535; 0 picks a free one. */
    public static final int PORT = 65_535;

    /** CPU threads (bench generate and bench linear --threads): 1,024, more than any machine's cores. */
    public static final int THREADS = 1_024;

    /** Timed repetitions of a benchmark (bench linear --repeats, testsuite bench --repeat): 1,000. */
    public static final int REPEATS = 1_000;

    /** Requests of a serving benchmark per path (bench serve --requests): 100,000. */
    public static final int REQUESTS = 100_000;

    /** LoRA rank (adapters make-tiny --rank): 4,096; published ranks run to 256, and a rank is below the hidden size. */
    public static final int RANK = 4_096;

    /** Safetensors files of a merged model (adapters merge --shards): 1,000 (0: one per ~2 GB). */
    public static final int SHARDS = 1_000;

    /** Databases of a distilled test suite (testsuite build --size): 1,000; Ladder's suites keep 10. */
    public static final int SUITE_DATABASES = 1_000;

    /** Random databases a suite build tries (testsuite build --max-candidates, --per-database): 1,000,000. */
    public static final int SUITE_CANDIDATES = 1_000_000;

    /** Seconds of a suite build (testsuite build --time-limit): 604,800, a week. */
    public static final int SUITE_SECONDS = 604_800;

    /** Lines of a listing (bench readers --show): 1,000,000. */
    public static final int LISTED = 1_000_000;
}
