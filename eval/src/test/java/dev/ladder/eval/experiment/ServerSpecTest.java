package dev.ladder.eval.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.sql.db.UserError;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ${NAME} in a served model's base_url: checked when set, read when the server is called, refused in one line. */
class ServerSpecTest {

    static ServerSpec spec(String url) {
        return new ServerSpec(url, "m", null, ServerSpec.DEFAULT_ENDPOINT, null, 5, 1, 1, true);
    }

    @Test
    void variablesAreReadFromTheEnvironmentGiven() {
        Map<String, String> env = Map.of("HOST", "node07", "URL", " http://node03:8000/v1 ");
        assertThat(spec("http://${HOST}:8000/v1").resolvedBaseUrl("x", env::get)).isEqualTo("http://node07:8000/v1");
        assertThat(spec("${URL}").resolvedBaseUrl("x", env::get)).isEqualTo("http://node03:8000/v1");
        assertThat(spec("http://${HOST}:${HOST}/v1").urlVariables()).containsExactly("HOST", "HOST");
        assertThat(spec("http://127.0.0.1:8000/v1").resolvedBaseUrl("x", env::get)).isEqualTo("http://127.0.0.1:8000/v1");
    }

    @Test
    void problemsAreNamedOnlyWhenTheyAreKnown() {
        Map<String, String> env = Map.of("BAD", "ftp://node:21");
        // not set yet: a cluster job sets it before the server is called
        assertThat(ServerSpec.urlProblem("${UNSET}", env::get)).isNull();
        assertThat(ServerSpec.urlProblem("${BAD}", env::get)).contains("must start with http").contains("(from ${BAD})");
        assertThat(ServerSpec.urlProblem("http://$HOST/v1", env::get)).contains("not ${NAME}");
        assertThat(ServerSpec.urlProblem("http://${a-b}/v1", env::get)).contains("not ${NAME}");
        assertThatThrownBy(() -> spec("${UNSET}").resolvedBaseUrl("models.x.base_url", env::get))
                .isInstanceOf(UserError.class)
                .hasMessageStartingWith("models.x.base_url '${UNSET}' names the environment variable UNSET, which is not set");
        assertThatThrownBy(() -> spec("${BAD}").resolvedBaseUrl("models.x.base_url", env::get))
                .isInstanceOf(UserError.class).hasMessageContaining("must start with http");
    }
}
