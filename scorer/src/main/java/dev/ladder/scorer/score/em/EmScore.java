package dev.ladder.scorer.score.em;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The exact-match verdict for one (gold, prediction) pair.
 *
 * @param match      every component matches exactly and the FROM table units are the same multiset
 * @param components partial scores keyed in the fixed order of {@link #COMPONENTS}
 * @param error      why the prediction could not be scored (parse error, not a SELECT); null otherwise
 */
public record EmScore(boolean match, Map<String, ComponentScore> components, String error) {

    /** Component names in report order (Spider's partial-match names). */
    public static final List<String> COMPONENTS = List.of("select", "select(no AGG)", "where", "where(no OP)",
            "group(no Having)", "group", "order", "and/or", "IUEN", "keywords");

    public EmScore {
        components = Collections.unmodifiableMap(new LinkedHashMap<>(components));
    }

    /** A prediction that could not be analysed: no match, every component scored 0 against the gold counts. */
    static EmScore failed(Map<String, ComponentScore> components, String error) {
        return new EmScore(false, components, error);
    }

    public ComponentScore component(String name) {
        ComponentScore c = components.get(name);
        if (c == null) throw new IllegalArgumentException("unknown EM component '" + name + "', known: " + COMPONENTS);
        return c;
    }

    /** Names of the components that do not match exactly, in report order. */
    public List<String> failedComponents() {
        return components.entrySet().stream().filter(e -> !e.getValue().exact()).map(Map.Entry::getKey).toList();
    }

    /** True when every component matches but the FROM tables differ (Spider's final table-unit check). */
    public boolean fromMismatch() {
        return !match && error == null && failedComponents().isEmpty();
    }
}
