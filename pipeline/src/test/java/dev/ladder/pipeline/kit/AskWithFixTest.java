package dev.ladder.pipeline.kit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.kit.AskWithFix.Reading;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class AskWithFixTest {

    /** Reads a reply as an integer. */
    private static final Function<String, Reading<Integer>> NUMBER = reply -> {
        try {
            return Reading.of(Integer.parseInt(reply.strip()));
        } catch (NumberFormatException e) {
            return Reading.failed("not a number: '" + reply.strip() + "'");
        }
    };

    @Test
    void aReplyThatReadsNeedsNoFix() {
        List<String> fixes = new ArrayList<>();
        var r = AskWithFix.ask(() -> " 42 ", NUMBER, (reply, error) -> {
            fixes.add(error);
            return "0";
        });
        assertThat(r.ok()).isTrue();
        assertThat(r.value()).isEqualTo(42);
        assertThat(r.fixAsked()).isFalse();
        assertThat(fixes).isEmpty();
    }

    @Test
    void oneFixIsAskedWithTheReplyAndTheReason() {
        List<String> asked = new ArrayList<>();
        var r = AskWithFix.ask(() -> "forty-two", NUMBER, (reply, error) -> {
            asked.add(reply + " | " + error);
            return "42";
        });
        assertThat(asked).containsExactly("forty-two | not a number: 'forty-two'");
        assertThat(r.value()).isEqualTo(42);
        assertThat(r.fixAsked()).isTrue();
        assertThat(r.firstReply()).isEqualTo("forty-two");
        assertThat(r.firstError()).isEqualTo("not a number: 'forty-two'");
    }

    @Test
    void aFixThatFailsTooEndsTheLoopAfterTwoCalls() {
        int[] calls = {0};
        var r = AskWithFix.ask(() -> {
            calls[0]++;
            return "";
        }, NUMBER, (reply, error) -> {
            calls[0]++;
            return "still none";
        }, reply -> Reading.failed(null));
        assertThat(calls[0]).isEqualTo(2);
        assertThat(r.ok()).isFalse();
        assertThat(r.firstError()).isEqualTo("not a number: ''");
        // a reader that gives no reason still says the reply did not read
        assertThat(r.reading().error()).isEqualTo("the reply cannot be read");
    }
}
