package dev.ladder.eval.experiment;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.SharedKnobs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The factors a rung is made of, so a comparison can say in what its two rungs differ: model path, adapter (with
 * its merge base), dtype, the mechanisms the registered pipelines name ({@link Pipeline#factors}: the ladder's
 * exemplars k, execution gate, clamps, sampled candidates, tabular prompt, schema subset, projection, rerank and
 * repair), the rung's pipeline's settings block line, and the other settings that take effect. A comparison whose
 * rungs differ in more than one factor cannot attribute its difference to one of them. Values are what takes effect,
 * not what the file says.
 */
public final class RungFactors {

    /** Factor names in the order reports list them; other settings follow. */
    public static final List<String> NAMES = names();

    private RungFactors() {}

    /** The model's factors, then the factors the registered pipelines name (the ladder's mechanisms). */
    private static List<String> names() {
        List<String> out = new ArrayList<>(List.of("model", "adapter", "dtype"));
        for (Pipeline p : Pipelines.registry().all()) out.addAll(p.factorNames());
        return List.copyOf(out);
    }

    /** The factors of one of the experiment's rungs. */
    public static Map<String, String> of(Experiment e, RungSpec rung) {
        ModelSpec m = e.modelOf(rung);
        return of(m.path(), m.adapter(), m.mergeBase(), m.dtype(), rung.strategy(), e.settingsOf(rung));
    }

    /**
     * The factors of a rung.
     *
     * @param adapter   null for none
     * @param mergeBase null when unknown
     * @param dtype     null when unknown
     * @param settings  the rung's settings; null when unknown (only the factors the strategy fixes are given)
     */
    public static Map<String, String> of(String path, String adapter, String mergeBase, String dtype, String strategy,
                                         Settings settings) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("model", path);
        boolean hasAdapter = adapter != null && !adapter.isEmpty();
        f.put("adapter", !hasAdapter ? "none"
                : adapter + (mergeBase == null || mergeBase.equals(ModelSpec.DEFAULT_MERGE_BASE) ? "" : " (" + mergeBase + ")"));
        f.put("dtype", dtype == null ? "?" : dtype);
        // each registered pipeline's mechanisms (the ladder names its own for every rung), in registry order
        boolean sampling = false;
        for (Pipeline p : Pipelines.registry().all()) {
            f.putAll(p.factors(strategy, settings));
            sampling |= p.samples(strategy, settings);
        }
        Pipeline pipeline = Pipelines.registry().pipelineOf(strategy);
        SettingsBlock<?> block = pipeline == null ? null : pipeline.settings();
        if (block != null) f.put(block.factorName(), settings == null ? "?" : factorLine(block, settings));
        if (settings != null) {
            // the shared knobs that are not the ladder's mechanisms (those are its factors above), as they take effect
            for (Map.Entry<String, Object> knob : SharedKnobs.BLOCK.values(settings.knobs()).entrySet()) {
                if (SharedKnobs.LADDER_MECHANISMS.contains(knob.getKey())) continue;
                // the temperature only matters to rungs that sample
                if (knob.getKey().equals("sample_temperature") && !sampling) continue;
                f.put(knob.getKey(), text(knob.getValue()));
            }
        }
        return f;
    }

    /**
     * The factors in which two rungs differ, in {@link #NAMES} order then the others. A setting that takes effect in
     * only one of the two (the temperature of a rung that samples vs one that does not) is part of the mechanism
     * that differs, not a factor of its own.
     */
    public static List<String> differing(Map<String, String> a, Map<String, String> b) {
        Set<String> keys = new LinkedHashSet<>(a.keySet());
        keys.addAll(b.keySet());
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            if (!NAMES.contains(k) && (!a.containsKey(k) || !b.containsKey(k))) continue;
            String va = a.getOrDefault(k, "(n/a)");
            String vb = b.getOrDefault(k, "(n/a)");
            if (!va.equals(vb)) out.add(k);
        }
        return out;
    }

    /** How a factor changes between two rungs, e.g. {@code off -> on}. */
    public static String change(String factor, Map<String, String> from, Map<String, String> to) {
        return from.getOrDefault(factor, "(n/a)") + " -> " + to.getOrDefault(factor, "(n/a)");
    }

    private static <T extends Record> String factorLine(SettingsBlock<T> block, Settings settings) {
        return block.factorLine(settings.of(block));
    }

    /** A knob's value in a report: plain decimals, stop strings as JSON literals between bars. */
    private static String text(Object value) {
        if (value instanceof Double d) return num(d);
        if (value instanceof List<?> l) {
            return String.join(" | ", l.stream().map(s -> quoted(String.valueOf(s))).toList());
        }
        return String.valueOf(value);
    }

    /** A JSON string literal, so that a stop string's newline shows as {@code \n} in a report, not as a line break. */
    private static String quoted(String s) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
    }

    private static String num(double d) {
        return SettingsBlock.plain(d).toPlainString();
    }
}
