package dev.ladder.scorer.score;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The metrics a run scores every answer with: the built-in ones ({@link BuiltInMetrics}: VA, EX, EM, TS), then every
 * metric registered on the class path ({@code META-INF/services/dev.ladder.scorer.score.Metric}, one line each;
 * docs/extending.md). A registered metric that reuses a name is refused when the registry is first read.
 */
public final class Metrics {

    /** Names the run writes itself besides the built-in metrics' (the second EX mode, the LLM judge). */
    public static final String EX_ALT = "EX-alt";
    public static final String JUDGE = "judge";
    public static final List<String> RESERVED = List.of(EX_ALT, JUDGE);

    private static final class Holder {
        static final List<Metric> REGISTERED = check(discover());
    }

    private Metrics() {}

    /** The registered metrics beyond the built-in ones, in class-path order. */
    public static List<Metric> registered() {
        return Holder.REGISTERED;
    }

    /**
     * Every registered metric's value of one prediction, by name, in registry order. A metric that fails is absent,
     * its failure the detail: a metric never stops a run or an evaluation.
     */
    public static Map<String, MetricValue> scoreRegistered(MetricItem item, Prediction prediction, Scoring databases) {
        Map<String, MetricValue> out = new LinkedHashMap<>();
        for (Metric m : registered()) out.put(m.name(), scoreSafely(m, item, prediction, databases));
        return out;
    }

    /** A metric's value; one that fails is absent, its failure the detail. */
    private static MetricValue scoreSafely(Metric m, MetricItem item, Prediction prediction, Scoring databases) {
        try {
            return m.score(item, prediction, databases);
        } catch (RuntimeException e) {
            return new MetricValue(null, "failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage().lines().findFirst().orElse("")));
        }
    }

    private static final List<String> STANDARD = standard();

    /** The names of the built-in and reserved metrics: the ones every report already has a table for. */
    public static List<String> standardNames() {
        return STANDARD;
    }

    private static List<String> standard() {
        List<String> out = new ArrayList<>(BuiltInMetrics.ALL.stream().map(Metric::name).toList());
        out.addAll(RESERVED);
        return List.copyOf(out);
    }

    private static List<Metric> discover() {
        List<Metric> out = new ArrayList<>();
        ServiceLoader.load(Metric.class, Metrics.class.getClassLoader()).forEach(out::add);
        return out;
    }

    /** Refuses two metrics of one name, and names a built-in or reserved metric has. */
    static List<Metric> check(List<Metric> metrics) {
        Set<String> seen = new HashSet<>(standardNames());
        for (Metric m : metrics) {
            String n = m.name();
            if (n == null || !n.matches("[A-Za-z][A-Za-z0-9_.-]*")) {
                throw new IllegalStateException("metric " + m.getClass().getName() + " has no usable name ('" + n
                        + "'; letters, digits, '.', '_' and '-')");
            }
            if (!seen.add(n)) {
                throw new IllegalStateException("metric name '" + n + "' is taken (" + m.getClass().getName() + ")");
            }
        }
        return List.copyOf(metrics);
    }
}
