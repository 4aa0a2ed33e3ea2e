package dev.ladder.scorer.score;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Scores of one prediction, with the rules that produced them.
 *
 * @param va     the prediction passes guarded execution and runs without error
 * @param ex     same answer as the gold (or an alternative) on the original database
 * @param em     exact set match with the gold (or an alternative)
 * @param ts     EX on every database of the test suite, original included; {@code null} when no suite
 * @param exMode {@link ExOptions#label()}
 * @param error  why the prediction failed to run, if it did
 * @param flags  notes that qualify a score: {@code alternative} (matched an alternative gold),
 *               {@code truncated} (a result hit the row cap), {@code no-prediction}, ...
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ItemScore(
        String id,
        String category,
        @JsonProperty("VA") boolean va,
        @JsonProperty("EX") boolean ex,
        @JsonProperty("EM") boolean em,
        @JsonProperty("TS") Boolean ts,
        @JsonProperty("ex_mode") String exMode,
        String error,
        List<String> flags) {

    public ItemScore {
        flags = flags == null ? List.of() : List.copyOf(flags);
    }

    /** The score of the built-in metrics' values: VA's detail as the error, the others' flags, EM's first. */
    static ItemScore of(MetricItem item, Map<String, MetricValue> values, String exMode) {
        MetricValue va = values.getOrDefault(BuiltInMetrics.VA.name(), MetricValue.ABSENT);
        List<String> flags = new ArrayList<>();
        for (String name : List.of(BuiltInMetrics.EM.name(), BuiltInMetrics.EX.name(), BuiltInMetrics.TS.name())) {
            for (String f : values.getOrDefault(name, MetricValue.ABSENT).flags()) {
                if (!flags.contains(f)) flags.add(f);
            }
        }
        return new ItemScore(item.id(), item.category(), va.holds(),
                values.getOrDefault(BuiltInMetrics.EX.name(), MetricValue.ABSENT).holds(),
                values.getOrDefault(BuiltInMetrics.EM.name(), MetricValue.ABSENT).holds(),
                values.getOrDefault(BuiltInMetrics.TS.name(), MetricValue.ABSENT).asBoolean(),
                exMode, va.detail(), flags);
    }
}
