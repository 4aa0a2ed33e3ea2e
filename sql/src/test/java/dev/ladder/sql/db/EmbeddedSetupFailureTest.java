package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * A server that dies while it starts is the machine's failure (retried, then exit 1), not the user's: the setup's
 * lost connection is an {@link InfrastructureError}; what the server refuses on purpose stays a {@link UserError}.
 */
class EmbeddedSetupFailureTest {

    @Test
    void aLostConnectionDuringSetupIsInfrastructureAndOneLine() {
        SQLException lost = new SQLException("Communications link failure\n\nThe last packet sent successfully...", "08S01");
        RuntimeException e = EmbeddedMariaDb.setupFailure(Path.of("/tmp/x"), lost);
        assertThat(e).isInstanceOf(InfrastructureError.class);
        assertThat(e.getMessage()).contains("went away while starting").contains("Communications link failure")
                .doesNotContain("\n");
        SQLException gone = new SQLException("Server has gone away", "HY000", 2006);
        assertThat(EmbeddedMariaDb.setupFailure(Path.of("/tmp/x"), gone)).isInstanceOf(InfrastructureError.class);
    }

    @Test
    void aRefusalIsStillTheUsers() {
        SQLException denied = new SQLException("Access denied for user 'x'", "28000", 1045);
        RuntimeException e = EmbeddedMariaDb.setupFailure(Path.of("/tmp/x"), denied);
        assertThat(e).isInstanceOf(UserError.class);
        assertThat(e.getMessage()).contains("refused the setup: Access denied");
    }
}
