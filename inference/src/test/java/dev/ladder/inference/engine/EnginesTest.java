package dev.ladder.inference.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine registry: names in order, one engine a name, the facts of a context by type. */
class EnginesTest {

    /** An engine that is only a name and an order: the registry asks nothing else. */
    private record Named(String name, int order) implements Engine {
        @Override
        public List<String> fields() {
            return List.of("path");
        }

        @Override
        public boolean onCommandLine() {
            return !name.equals("hidden");
        }

        @Override
        public ModelIdentity identify(ModelFields model, EngineContext context) {
            return ModelIdentity.of(name);
        }

        @Override
        public EngineLoad load(ModelFields model, ModelIdentity identity, EngineContext context) {
            throw new UnsupportedOperationException("never loaded here");
        }
    }

    @Test
    void namesFollowTheEnginesOrderThenTheirNames() {
        Engines engines = new Engines(List.of(new Named("zeta", 1), new Named("beta", 100), new Named("alpha", 100),
                new Named("hidden", 50)));
        assertThat(engines.names()).containsExactly("zeta", "hidden", "alpha", "beta");
        assertThat(engines.commandLineNames()).containsExactly("zeta", "alpha", "beta");
        assertThat(engines.find("alpha")).isPresent();
        assertThat(engines.find("gamma")).isEmpty();
        assertThatThrownBy(() -> engines.byName("gamma")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown engine 'gamma'; known: zeta, hidden, alpha, beta");
    }

    @Test
    void twoEnginesOfOneNameOrABadNameAreRefused() {
        assertThatThrownBy(() -> new Engines(List.of(new Named("twin", 1), new Named("twin", 2))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("engine 'twin' is registered twice");
        assertThatThrownBy(() -> new Engines(List.of(new Named("Not Lower", 1))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("has no usable name ('Not Lower'");
    }

    @Test
    void aContextGivesTheFirstFactOfATypeAndSaysLinesOnItsLog() {
        StringWriter out = new StringWriter();
        EngineContext context = EngineContext.of("base", new PrintWriter(out), 7, null, "text");
        assertThat(context.fact(Integer.class)).contains(7);
        assertThat(context.fact(String.class)).contains("text");
        assertThat(context.fact(Double.class)).isEmpty();
        assertThat(context.with(8).fact(Integer.class)).contains(8);
        context.say("loading");
        assertThat(out.toString()).isEqualTo("loading" + System.lineSeparator());
        EngineContext.of(null, null).say("nowhere");   // no log: nothing to say it on, and no failure
    }
}
