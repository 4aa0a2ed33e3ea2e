package dev.ladder.inference.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failed pull names its cause and says whether a retry can help, on real sockets (no network needed). */
class HubFailureTest {

    @TempDir Path tmp;

    static IOException failedPull(Path cache, String endpoint) {
        ModelStore store = new ModelStore(cache, endpoint, null).withRetries(0, 0);
        try {
            store.pull("owner/model", "main", ProgressListener.NONE);
        } catch (IOException e) {
            return e;
        }
        throw new AssertionError("the pull of " + endpoint + " did not fail");
    }

    @Test
    void aNameThatDoesNotResolveIsDnsAndARetryWillNotHelp() {
        // .invalid never resolves (RFC 2606)
        String endpoint = "http://hub.ladder-test.invalid";
        HubFailure f = HubFailure.of(failedPull(tmp.resolve("a"), endpoint), endpoint);
        assertThat(f.cause()).startsWith("DNS:").contains("hub.ladder-test.invalid").contains("HF_ENDPOINT");
        assertThat(f.retryable()).isFalse();
    }

    @Test
    void aClosedPortIsARefusedConnectionAndARetryWillNotHelp() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + port;
        HubFailure f = HubFailure.of(failedPull(tmp.resolve("b"), endpoint), endpoint);
        assertThat(f.cause()).startsWith("connection refused").contains(endpoint);
        assertThat(f.retryable()).isFalse();
    }
}
