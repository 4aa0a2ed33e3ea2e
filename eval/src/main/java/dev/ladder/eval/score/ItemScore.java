package dev.ladder.eval.score;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

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
}
