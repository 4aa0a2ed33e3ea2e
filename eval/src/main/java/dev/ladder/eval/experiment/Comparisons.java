package dev.ladder.eval.experiment;

import dev.ladder.pipeline.strategy.Pipeline;
import dev.ladder.pipeline.strategy.Pipelines;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The family of paired comparisons a report tests (experiment YAML {@code comparisons:}), and the default family:
 * the research questions' pairs among the rungs present.
 *
 * <ul>
 *   <li>H1: {@code prompt-k0} vs {@code prompt-k3} on the same model without an adapter (exemplars help);</li>
 *   <li>H2: each prompt strategy on a model without an adapter vs the same strategy on a model that adds an
 *       adapter to the same base path (fine-tuning helps), e.g. prompt-k3 vs qlora-k3;</li>
 *   <li>H3: {@code prompt-k3} vs {@code agent-0}, then each agent stage vs the one below
 *       ({@code agent-0 -> 1 -> 2 -> 3}), on the same model (the agent's mechanisms help).</li>
 * </ul>
 * A pattern's rung is the first rung of that strategy and model that runs with the experiment's settings (a rung
 * with its own {@code settings:} is a variant, e.g. of an attribution ladder, and is compared only when declared).
 * When no pattern matches, the default is each rung vs the next one up.
 */
public final class Comparisons {

    /** Label of a comparison that is none of the research questions' pairs. */
    public static final String DECLARED = "declared";

    private Comparisons() {}

    /** The family of the ladder's own comparisons (H1-H3, and declared pairs of ladder rungs). */
    public static final String LADDER_FAMILY = "ladder";

    /**
     * One comparison: {@code to} minus {@code from}.
     *
     * @param from   the rung compared against (usually the lower one)
     * @param to     the rung whose change is measured
     * @param family the Holm family it is adjusted in, as declared (a third element); null: the default
     *               ({@link #family})
     */
    public record Pair(String from, String to, String family) {
        public Pair {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (family != null && family.isBlank()) family = null;
        }

        public Pair(String from, String to) {
            this(from, to, null);
        }

        /** The same two rungs in either order. */
        boolean sameRungs(Pair other) {
            return (from.equals(other.from) && to.equals(other.to)) || (from.equals(other.to) && to.equals(other.from));
        }
    }

    /**
     * What the default family needs to know of a rung.
     *
     * @param name        rung name
     * @param strategy    registered strategy name
     * @param path        the model's path or hub id
     * @param adapter     the adapter, or null / empty for none
     * @param ownSettings whether the rung overrides the experiment's settings
     */
    public record Rung(String name, String strategy, String path, String adapter, boolean ownSettings) {
        boolean hasAdapter() {
            return adapter != null && !adapter.isEmpty();
        }

        String modelKey() {
            return path + "\u0000" + (hasAdapter() ? adapter : "");
        }
    }

    /** The experiment's rungs as the default family sees them. */
    public static List<Rung> rungs(Map<String, ModelSpec> models, List<RungSpec> rungs) {
        List<Rung> out = new ArrayList<>();
        for (RungSpec r : rungs) {
            ModelSpec m = models.get(r.model());
            String adapter = m.adapter() == null ? null : m.adapter() + "\u0000" + m.mergeBase();
            out.add(new Rung(r.name(), r.strategy(), m.path(), adapter, r.settings() != null));
        }
        return out;
    }

    /** Rungs known only by their cells (a run without its config.yaml); one per name, in the order given. */
    public static List<Rung> rungsOfCells(Map<String, Cell> cellsByRung) {
        List<Rung> out = new ArrayList<>();
        cellsByRung.forEach((name, c) -> out.add(new Rung(name, c.strategy(), c.model(), c.adapter(), false)));
        return out;
    }

    /** The research questions' pairs among the rungs, each with its label (H1, H2, H3), in that order. */
    public static Map<Pair, String> hypotheses(List<Rung> rungs) {
        Map<Pair, String> out = new LinkedHashMap<>();
        List<String> modelKeys = new ArrayList<>();
        for (Rung r : rungs) if (!modelKeys.contains(r.modelKey())) modelKeys.add(r.modelKey());
        // H1: exemplars, on each model without an adapter
        for (String m : modelKeys) {
            Rung k0 = canonical(rungs, "prompt-k0", m);
            Rung k3 = canonical(rungs, "prompt-k3", m);
            if (k0 != null && k3 != null && !k0.hasAdapter()) out.putIfAbsent(new Pair(k0.name(), k3.name()), "H1");
        }
        // H2: the adapter, strategy by strategy
        for (String strategy : List.of("prompt-k0", "prompt-k3")) {
            for (String base : modelKeys) {
                for (String tuned : modelKeys) {
                    Rung from = canonical(rungs, strategy, base);
                    Rung to = canonical(rungs, strategy, tuned);
                    if (from != null && to != null && !from.hasAdapter() && to.hasAdapter()
                            && from.path().equals(to.path())) {
                        out.putIfAbsent(new Pair(from.name(), to.name()), "H2");
                    }
                }
            }
        }
        // H3: the agent, mechanism by mechanism
        List<String> chain = List.of("prompt-k3", "agent-0", "agent-1", "agent-2", "agent-3");
        for (String m : modelKeys) {
            for (int i = 0; i + 1 < chain.size(); i++) {
                Rung from = canonical(rungs, chain.get(i), m);
                Rung to = canonical(rungs, chain.get(i + 1), m);
                if (from != null && to != null) out.putIfAbsent(new Pair(from.name(), to.name()), "H3");
            }
        }
        return out;
    }

    /** The default family: the research questions' pairs, or consecutive rungs when there are none. */
    public static List<Pair> defaultFamily(List<Rung> rungs) {
        List<Pair> h = new ArrayList<>(hypotheses(rungs).keySet());
        if (!h.isEmpty()) return h;
        List<Pair> consecutive = new ArrayList<>();
        for (int i = 0; i + 1 < rungs.size(); i++) consecutive.add(new Pair(rungs.get(i).name(), rungs.get(i + 1).name()));
        return consecutive;
    }

    /** A comparison's label: its research question when it is one of their pairs, else {@link #DECLARED}. */
    public static String label(Pair pair, List<Rung> rungs) {
        return hypotheses(rungs).getOrDefault(new Pair(pair.from(), pair.to()), DECLARED);
    }

    /**
     * A comparison's Holm family: the declared one; else {@link #LADDER_FAMILY} for the research questions' pairs and
     * for pairs whose {@code to} rung is a ladder strategy; else the pipeline of the {@code to} rung's strategy (a
     * pipeline against its baseline or its ablations), so that unrelated pipelines' comparisons do not share one
     * adjustment. A strategy no pipeline registers falls to the ladder's family.
     */
    public static String family(Pair pair, List<Rung> rungs) {
        if (pair.family() != null) return pair.family();
        if (!label(pair, rungs).equals(DECLARED)) return LADDER_FAMILY;
        String strategy = rungs.stream().filter(r -> r.name().equals(pair.to())).map(Rung::strategy).findFirst().orElse(null);
        Pipeline p = strategy == null ? null : Pipelines.registry().pipelineOf(strategy);
        return p == null ? LADDER_FAMILY : p.name();
    }

    /**
     * Why a declared family is not valid (the field, e.g. {@code comparisons[1]}, and the problem), or null.
     *
     * @param rungNames the experiment's rung names
     */
    static String[] problem(List<Pair> pairs, List<String> rungNames) {
        for (int i = 0; i < pairs.size(); i++) {
            Pair p = pairs.get(i);
            String at = "comparisons[" + i + "]";
            for (String name : List.of(p.from(), p.to())) {
                if (!rungNames.contains(name)) {
                    return new String[] {at, "no rung named '" + name + "'; rungs: " + String.join(", ", rungNames)};
                }
            }
            if (p.from().equals(p.to())) return new String[] {at, "compares rung '" + p.from() + "' with itself"};
            for (int j = 0; j < i; j++) {
                if (pairs.get(j).sameRungs(p)) {
                    return new String[] {at, "compares " + p.from() + " and " + p.to() + " again (also comparisons[" + j
                            + "]); each pair is tested once"};
                }
            }
        }
        return null;
    }

    private static Rung canonical(List<Rung> rungs, String strategy, String modelKey) {
        for (Rung r : rungs) {
            if (r.strategy().equals(strategy) && r.modelKey().equals(modelKey) && !r.ownSettings()) return r;
        }
        return null;
    }
}
