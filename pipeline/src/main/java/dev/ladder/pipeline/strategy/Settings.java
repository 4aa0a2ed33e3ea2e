package dev.ladder.pipeline.strategy;

import dev.ladder.sql.db.ExecutionLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Knobs shared by the strategies. Every rung decodes its first candidate greedily; the agent stages sample only in
 * the execution gate (every stage, {@link #gateBudget}) and in agent-2/3's sample pool ({@link #candidates}).
 *
 * <p>Seeds: the engine gives candidate {@code j} (0-based) of a request with seed {@code s} the sampler of seed
 * {@code s + j} (DJL: one {@code SplittableRandom(s + j)} per candidate). The experiment's seed is first scrambled
 * ({@link #samplerBase}, SplitMix64's finaliser), so that the runs of seeds 0, 1, 2 draw unrelated samples rather than
 * shifted copies of one another's. The pool, one request with {@code n = candidates} and seed {@link #poolSeed}, draws
 * with seeds {@code base} to {@code base + candidates - 1}; gate attempt {@code i} (1-based) is its own request with
 * {@code n = 1} and seed {@code base - i} ({@link #gateSeed}): below the pool's range whatever {@code candidates} is, so
 * a gate sample of the standard prompt never repeats a pool sample, and the same at every stage, so agent-0 to agent-3
 * draw the same gate samples for a question.
 *
 * @param maxNewTokens      most tokens per completion, for every prompt (default 256: ClassicModels' longest gold
 *                          query is well under 150 Llama-3 tokens)
 * @param candidates        agent-2/3: low-temperature samples drawn from the standard prompt (over the schema subset
 *                          when {@link #schemaSubset} is on) in addition to the greedy candidates; all share one
 *                          prefill ({@code n} of one request). 0 turns the pool off. Default 4.
 * @param sampleTemperature temperature of those samples (default 0.3, top-k and top-p off)
 * @param seed              the cell's seed (default 0): pool sample {@code sample-i} draws with
 *                          {@code samplerBase() + i - 1}, gate attempt {@code gate-i} with {@code samplerBase() - i}
 * @param tabularPrompt     agent-2/3: add the greedy candidate of the tabular prompt ({@code user-tabular.txt}: the
 *                          question's schema subset, or every table when {@link #schemaSubset} is off, as a table
 *                          listing with join hints). Default true.
 * @param gateBudget        every agent stage: when no candidate executes, up to this many further seeded
 *                          low-temperature samples of the (whole-schema) standard prompt, drawn one request at a
 *                          time; the first that executes is the answer (default 4; 0 turns the gate's retries off)
 * @param schemaSubset      agent-2/3: the question's schema subset is used before generation, in the prompts of the
 *                          extra candidates (tabular and samples); the greedy standard candidate keeps the whole
 *                          schema. Default true.
 * @param projection        agent-2/3: the projection contract rewrites each candidate's SELECT list. Default true.
 * @param rerank            agent-2/3: the executing candidates are scored and the best that passes the intent gate
 *                          is chosen; off: the first executing candidate in call order. Default true.
 * @param k                 exemplars in the prompts of the agent chain (default 3: the chain starts from prompt-k3);
 *                          the prompt rungs fix their own k by name
 * @param stopStrings       stop strings of every request (default {@code "\nQuestion:"}: a base model that goes on
 *                          to write the next exemplar stops there)
 * @param stopAtSemicolon   also stop every request at {@code ;} (default true), so no candidate spends its token
 *                          budget after the query; the engine cuts before the {@code ;}, which the post-processor
 *                          would drop anyway. A {@code ;} inside a string literal stops too early (the cut output is
 *                          then rejected as an unterminated literal): turn this off for data where that matters
 * @param limits            limits of every execution a strategy runs (default {@link ExecutionLimits#DEFAULT})
 * @param pipelines         each pipeline's own knobs by its {@link SettingsBlock#key() block key}; a block not
 *                          here has its defaults ({@link #of})
 */
public record Settings(int maxNewTokens, int candidates, double sampleTemperature, long seed, boolean tabularPrompt,
                       int gateBudget, boolean schemaSubset, boolean projection, boolean rerank, int k, List<String> stopStrings, boolean stopAtSemicolon, ExecutionLimits limits,
                       Map<String, Record> pipelines) {

    /**
     * The base of this seed's sampler seeds: {@link #seed} through SplitMix64's finaliser (a bijection, so distinct
     * seeds stay distinct, and neighbouring seeds land far apart).
     */
    public long samplerBase() {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The seed of the pool's request: sample {@code i} (1-based) draws with {@code poolSeed() + i - 1}. */
    public long poolSeed() {
        return samplerBase();
    }

    /** The sampler seed of gate attempt {@code i} (1-based): {@code samplerBase() - i}, never one of the pool's seeds. */
    public long gateSeed(int i) {
        if (i < 1) throw new IllegalArgumentException("gate attempts count from 1, got " + i);
        return samplerBase() - i;
    }

    /** The statement terminator, added to the stop strings when {@link #stopAtSemicolon} is on. */
    public static final String SEMICOLON = ";";

    public static final Settings DEFAULT = new Settings(256, 4, 0.3, 0, true, 4, true, true, true, 3, List.of("\nQuestion:"),
            true, ExecutionLimits.DEFAULT, Map.of());

    public Settings {
        if (maxNewTokens < 1) throw new IllegalArgumentException("maxNewTokens must be >= 1, got " + maxNewTokens);
        if (candidates < 0) throw new IllegalArgumentException("candidates must be >= 0, got " + candidates);
        if (!(sampleTemperature > 0) || Double.isInfinite(sampleTemperature)) {
            throw new IllegalArgumentException("sampleTemperature must be > 0, got " + sampleTemperature);
        }
        if (gateBudget < 0) throw new IllegalArgumentException("gateBudget must be >= 0, got " + gateBudget);
        if (k < 0) throw new IllegalArgumentException("k must be >= 0, got " + k);
        stopStrings = List.copyOf(stopStrings);
        Objects.requireNonNull(limits, "limits");
        // insertion order kept (a resolved file lists blocks as given), equality by content
        pipelines = Collections.unmodifiableMap(new LinkedHashMap<>(pipelines));
    }

    /**
     * A pipeline's knobs as its strategy uses them: the ones set here, else its block's defaults, with every setting
     * the block leaves to the rung ({@link Follows}: its token budget, its temperature) set to the rung's knob.
     */
    public <T extends Record> T of(SettingsBlock<T> block) {
        return block.resolve(declared(block), knobs());
    }

    /** A pipeline's knobs as the files declare them: a setting left to the rung is null (see {@link #of}). */
    public <T extends Record> T declared(SettingsBlock<T> block) {
        Record r = pipelines.get(block.key());
        return r == null ? block.defaults() : block.cast(r);
    }

    /** The shared knobs as files write them ({@link SharedKnobs#BLOCK} reads and writes them). */
    public SharedKnobs knobs() {
        return new SharedKnobs(maxNewTokens, candidates, sampleTemperature, tabularPrompt, gateBudget, schemaSubset,
                projection, rerank, k, stopStrings, stopAtSemicolon, limits.timeout().toMillis() / 1000.0,
                limits.rowCap());
    }

    /** These settings with the shared knobs replaced; the seed, the limits files do not set and the blocks kept. */
    public Settings with(SharedKnobs s) {
        ExecutionLimits l = limits.withTimeout(Duration.ofMillis(Math.round(s.timeoutSeconds() * 1000)))
                .withRowCap(s.rowCap());
        return new Settings(s.maxNewTokens(), s.candidates(), s.sampleTemperature(), seed, s.tabularPrompt(),
                s.gateBudget(), s.schemaSubset(), s.projection(), s.rerank(), s.k(), s.stopStrings(),
                s.stopAtSemicolon(), l, pipelines);
    }

    /** These settings with a pipeline's knobs replaced (its defaults are not stored, so equal settings stay equal). */
    public <T extends Record> Settings with(SettingsBlock<T> block, T value) {
        Map<String, Record> m = new LinkedHashMap<>(pipelines);
        if (value.equals(block.defaults())) m.remove(block.key());
        else m.put(block.key(), value);
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, m);
    }

    public Settings withSeed(long newSeed) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, newSeed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    public Settings withLimits(ExecutionLimits l) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, l, pipelines);
    }

    public Settings withMaxNewTokens(int n) {
        return new Settings(n, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    public Settings withCandidates(int n) {
        return new Settings(maxNewTokens, n, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    public Settings withSampling(double temperature, long newSeed) {
        return new Settings(maxNewTokens, candidates, temperature, newSeed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    public Settings withTabularPrompt(boolean on) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, on, gateBudget, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    public Settings withK(int exemplars) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, exemplars, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    public Settings withStopStrings(List<String> stops) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stops, stopAtSemicolon, limits, pipelines);
    }

    public Settings withStopAtSemicolon(boolean on) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection, rerank, k, stopStrings, on, limits, pipelines);
    }

    /** The stop strings a request carries: {@link #stopStrings}, then {@code ;} when {@link #stopAtSemicolon}. */
    public List<String> requestStops() {
        if (!stopAtSemicolon || stopStrings.contains(SEMICOLON)) return stopStrings;
        List<String> stops = new ArrayList<>(stopStrings);
        stops.add(SEMICOLON);
        return List.copyOf(stops);
    }

    public Settings withGateBudget(int n) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, n, schemaSubset, projection, rerank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }

    /** The agent-2 mechanisms' switches (the candidate count and the tabular prompt have their own). */
    public Settings withMechanisms(boolean subset, boolean project, boolean rank) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, subset, project, rank, k, stopStrings, stopAtSemicolon, limits, pipelines);
    }
}
