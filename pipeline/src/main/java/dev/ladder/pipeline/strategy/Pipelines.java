package dev.ladder.pipeline.strategy;

import dev.ladder.pipeline.judge.JudgeTeacher;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.oracle.SqlTeacher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Every registered {@link Pipeline} (found with {@link ServiceLoader} on the class path), and what they provide
 * between them: the strategies by name, the settings blocks by key, the oracle's teachers, the diagnosis vocabulary.
 * Two pipelines that claim the same strategy name or settings key are refused when the registry is first read.
 */
public final class Pipelines {

    private static final class Holder {
        static final Pipelines REGISTRY = new Pipelines(discover());
    }

    private final List<Pipeline> pipelines;
    private final List<Strategy> strategies;
    private final Map<String, Pipeline> byStrategy = new HashMap<>();
    private final List<SettingsBlock<?>> blocks;

    /** A registry of these pipelines (the process-wide one is {@link #registry()}). */
    public Pipelines(List<Pipeline> pipelines) {
        List<Pipeline> sorted = new ArrayList<>(pipelines);
        sorted.sort(Comparator.comparingInt(Pipeline::order).thenComparing(Pipeline::name));
        this.pipelines = List.copyOf(sorted);
        List<Strategy> all = new ArrayList<>();
        List<SettingsBlock<?>> bs = new ArrayList<>();
        Map<String, Pipeline> byKey = new HashMap<>();
        for (Pipeline p : sorted) {
            for (Strategy s : p.strategies()) {
                Pipeline before = byStrategy.putIfAbsent(s.name(), p);
                if (before != null) {
                    throw new IllegalStateException("strategy '" + s.name() + "' is registered by two pipelines: "
                            + before.name() + " and " + p.name());
                }
                all.add(s);
            }
            SettingsBlock<?> b = p.settings();
            if (b != null) {
                Pipeline before = byKey.putIfAbsent(b.key(), p);
                if (before != null) {
                    throw new IllegalStateException("settings block '" + b.key() + "' is claimed by two pipelines: "
                            + before.name() + " and " + p.name());
                }
                bs.add(b);
            }
        }
        this.strategies = List.copyOf(all);
        this.blocks = List.copyOf(bs);
    }

    /** The pipelines on the class path. */
    public static Pipelines registry() {
        return Holder.REGISTRY;
    }

    private static List<Pipeline> discover() {
        List<Pipeline> out = new ArrayList<>();
        ServiceLoader.load(Pipeline.class, Pipelines.class.getClassLoader()).forEach(out::add);
        return out;
    }

    /** The pipelines, ladder first. */
    public List<Pipeline> all() {
        return pipelines;
    }

    /** Every strategy, pipeline by pipeline in {@link Pipeline#order()}. */
    public List<Strategy> strategies() {
        return strategies;
    }

    /** Every strategy's name, in {@link #strategies()} order. */
    public List<String> strategyNames() {
        return strategies.stream().map(Strategy::name).toList();
    }

    /**
     * @param name a registered name (surrounding space and case ignored)
     * @throws IllegalArgumentException naming the known names
     */
    public Strategy strategy(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        for (Strategy s : strategies) {
            if (s.name().equals(n)) return s;
        }
        throw new IllegalArgumentException("unknown strategy '" + name + "' (known: " + String.join(", ", strategyNames()) + ")");
    }

    /** The pipeline a strategy belongs to, or null for an unknown name. */
    public Pipeline pipelineOf(String strategy) {
        return byStrategy.get(strategy);
    }

    /** The settings blocks, in pipeline order. */
    public List<SettingsBlock<?>> settingsBlocks() {
        return blocks;
    }

    /**
     * How the oracle answers every call: the platform's own teachers (one SQL statement; the LLM judge's verdict),
     * then each pipeline's.
     */
    public List<OracleTeacher> oracleTeachers() {
        List<OracleTeacher> out = new ArrayList<>(List.of(new SqlTeacher(), new JudgeTeacher()));
        for (Pipeline p : pipelines) out.addAll(p.oracleTeachers());
        return out;
    }

    /** Every pipeline's diagnosis categories, in pipeline order, each once. */
    public List<String> diagnosisCategories() {
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (Pipeline p : pipelines) out.addAll(p.diagnosisCategories());
        return List.copyOf(out);
    }
}
