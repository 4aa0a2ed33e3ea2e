package dev.ladder.eval.experiment;

import dev.ladder.pipeline.db.ExecutionLimits;
import dev.ladder.pipeline.gsr.GsrSettings;
import dev.ladder.pipeline.progressive.ProgressiveSettings;
import dev.ladder.pipeline.search.SearchSettings;
import dev.ladder.pipeline.soft.SoftSettings;
import dev.ladder.pipeline.strategy.Settings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The {@code settings} block: strategy knobs shared by every rung (see {@link Settings} for what each does).
 * The sampling seed is not here: it comes from {@link Experiment#seeds()}, one cell per seed.
 *
 * @param maxNewTokens      most tokens per completion
 * @param candidates        agent-2/3: extra sampled candidates (0: no sampling)
 * @param sampleTemperature temperature of those samples
 * @param tabularPrompt     agent-2/3: add the tabular-prompt candidate
 * @param gateBudget        every agent stage: further seeded samples while no candidate executes (0: off)
 * @param schemaSubset      agent-2/3: the schema subset in the extra candidates' prompts
 * @param projection        agent-2/3: the projection contract
 * @param rerank            agent-2/3: score the executing candidates (off: the first executing one)
 * @param agentK            exemplars in the agent chain's prompts (prompt-k0/k3 fix their own k)
 * @param stopStrings       stop strings of every request
 * @param stopAtSemicolon   also stop every request at {@code ;}
 * @param timeout           wall-clock limit of each SQL execution
 * @param rowCap            rows kept per SQL execution
 * @param search            the {@code structured_search} block: the structured-search pipeline's knobs
 * @param gsr               the {@code gsr} block: Gradual SQL Refinement's knobs
 * @param softAttention     the {@code soft_attention} block: soft schema attention's knobs
 * @param progressive       the {@code progressive} block: progressive execution's knobs
 */
public record SettingsSpec(int maxNewTokens, int candidates, double sampleTemperature, boolean tabularPrompt,
                           int gateBudget, boolean schemaSubset, boolean projection, boolean rerank, int agentK, List<String> stopStrings, boolean stopAtSemicolon, Duration timeout,
                           int rowCap, SearchSettings search, GsrSettings gsr,
                           SoftSettings softAttention, ProgressiveSettings progressive) {

    /** The pipeline's defaults, so a file that says nothing runs what {@code Settings.DEFAULT} runs. */
    public static final SettingsSpec DEFAULT = new SettingsSpec(Settings.DEFAULT.maxNewTokens(),
            Settings.DEFAULT.candidates(), Settings.DEFAULT.sampleTemperature(), Settings.DEFAULT.tabularPrompt(),
            Settings.DEFAULT.gateBudget(), Settings.DEFAULT.schemaSubset(), Settings.DEFAULT.projection(),
            Settings.DEFAULT.rerank(), Settings.DEFAULT.k(), Settings.DEFAULT.stopStrings(), Settings.DEFAULT.stopAtSemicolon(),
            Settings.DEFAULT.limits().timeout(),
            Settings.DEFAULT.limits().rowCap(), Settings.DEFAULT.search(), Settings.DEFAULT.gsr(),
            Settings.DEFAULT.softAttention(), Settings.DEFAULT.progressive());

    public SettingsSpec {
        stopStrings = List.copyOf(stopStrings);
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(search, "search");
        Objects.requireNonNull(gsr, "gsr");
        Objects.requireNonNull(softAttention, "softAttention");
        Objects.requireNonNull(progressive, "progressive");
        if (gateBudget < 0) throw new IllegalArgumentException("gateBudget must be >= 0, got " + gateBudget);
    }

    /** Settings whose structured-search block is the default one. */
    public SettingsSpec(int maxNewTokens, int candidates, double sampleTemperature, boolean tabularPrompt,
                        int gateBudget, boolean schemaSubset, boolean projection, boolean rerank, int agentK,
                        List<String> stopStrings, boolean stopAtSemicolon, Duration timeout, int rowCap) {
        this(maxNewTokens, candidates, sampleTemperature, tabularPrompt, gateBudget, schemaSubset, projection, rerank,
                agentK, stopStrings, stopAtSemicolon, timeout, rowCap, SearchSettings.DEFAULT, GsrSettings.DEFAULT,
                SoftSettings.DEFAULT, ProgressiveSettings.DEFAULT);
    }

    /** The pipeline settings of a cell run with {@code seed}. */
    public Settings toSettings(long seed) {
        return new Settings(maxNewTokens, candidates, sampleTemperature, seed, tabularPrompt, gateBudget, schemaSubset, projection,
                rerank, agentK, stopStrings,
                stopAtSemicolon, new ExecutionLimits(timeout, rowCap), search, gsr,
                softAttention, progressive);
    }
}
