package dev.ladder.inference.serve;

import static dev.ladder.inference.serve.OpenAiServerRequestsTest.GOOD;
import static dev.ladder.inference.serve.OpenAiServerRequestsTest.assertError;
import static dev.ladder.inference.serve.OpenAiServerRequestsTest.served;
import static dev.ladder.inference.serve.OpenAiServerRequestsTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a client cannot do to the server: stall it with half-sent requests, exhaust its connections, post a body a
 * browser may send cross-site, send an oversized head, or be served while it drains. Timeouts here only catch a hang.
 */
class OpenAiServerBoundsTest {

    /** A request line and one header, never finished: what held every handler thread before. */
    static final String STALLED_HEAD = "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n";

    @Test
    void stalledConnectionsDoNotStarveOtherClients() throws Exception {
        // a long read timeout: the good requests must be answered while the stalled sockets are still held
        ServerOptions options = ServerOptions.defaults(0, "v").withReadTimeoutMillis(120_000);
        try (OpenAiServer s = OpenAiServer.start(served(new ScriptedModel()), options, null)) {
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) stalled.add(openStalled(s, STALLED_HEAD));
                assertThat(Http.postAsync(s, "/v1/completions", GOOD, null).get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
                assertThat(Http.get(s, "/v1/models", null).status()).isEqualTo(200);
                for (Socket socket : stalled) assertThat(socket.isClosed()).isFalse();
            } finally {
                for (Socket socket : stalled) socket.close();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            an unfinished head | POST /v1/completions HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n
            an unfinished body | POST /v1/completions HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nContent-Length: 100\\r\\n\\r\\n{"model":
            only a request line | GET /v1/models HTTP/1.1\\r\\n
            """)
    void aStalledRequestIsClosedAfterTheReadTimeout(String what, String partial) throws Exception {
        ServerOptions options = ServerOptions.defaults(0, "v").withReadTimeoutMillis(300);
        try (OpenAiServer s = OpenAiServer.start(served(new ScriptedModel()), options, null);
             Socket socket = openStalled(s, partial.replace("\\r\\n", "\r\n"))) {
            socket.setSoTimeout(60_000);   // far past the read timeout: only a server that never closes fails
            assertThat(readUntilClosed(socket)).as(what).isTrue();
            assertThat(Http.post(s, "/v1/completions", GOOD).status()).isEqualTo(200);
        }
    }

    @Test
    void connectionsPastTheLimitAreClosedAndTheServerRecovers() throws Exception {
        ServerOptions options = ServerOptions.defaults(0, "v").withReadTimeoutMillis(120_000).withMaxConnections(2);
        try (OpenAiServer s = OpenAiServer.start(served(new ScriptedModel()), options, null)) {
            Socket a = openStalled(s, STALLED_HEAD);
            Socket b = openStalled(s, STALLED_HEAD);
            waitFor(() -> s.connectionsBeingRead() == 2);
            try (Socket third = openStalled(s, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) {
                third.setSoTimeout(60_000);
                assertThat(readUntilClosed(third)).isTrue();
            }
            a.close();
            b.close();
            waitFor(() -> s.connectionsBeingRead() == 0);
            assertThat(Http.post(s, "/v1/completions", GOOD).status()).isEqualTo(200);
        }
    }

    @ParameterizedTest(name = "Content-Type: {0}")
    @CsvSource(delimiter = '|', textBlock = """
            text/plain                        | 415
            text/plain; charset=utf-8         | 415
            application/x-www-form-urlencoded | 415
            multipart/form-data; boundary=x   | 415
            application/jsonx                 | 415
            ''                                | 415
            application/json                  | 200
            Application/JSON; charset=utf-8   | 200
            """)
    void onlyJsonBodiesAreAccepted(String type, int status) throws Exception {
        try (OpenAiServer s = OpenAiServer.start(served(new ScriptedModel()), ServerOptions.defaults(0, "v"), null)) {
            HttpRequest.Builder b = HttpRequest.newBuilder(Http.uri(s, "/v1/completions")).timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(GOOD));
            if (!type.isEmpty()) b.header("Content-Type", type);
            HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
            if (status == 415) {
                Http.Answer a = new Http.Answer(r.statusCode(), null, r.body(), Http.PLAIN.readTree(r.body()), null);
                assertError(a, "unsupported_media_type");
                assertThat(a.error().path("message").asText()).contains("application/json");
            }
        }
    }

    @Test
    void aDrainingServerAnswersEveryRequest503() throws Exception {
        ScriptedModel m = new ScriptedModel();
        OpenAiServer s = OpenAiServer.start(served(m), ServerOptions.defaults(0, "v"), null);
        m.holdNextCalls();
        CompletableFuture<Http.Answer> running = Http.postAsync(s, "/v1/completions", GOOD, null);
        m.awaitEntered();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(s::close);
        waitFor(s::isClosing);
        for (String path : List.of("/v1/models", "/version")) {
            Http.Answer a = Http.get(s, path, null);
            assertThat(a.status()).as(path + ": " + a.text()).isEqualTo(503);
            assertError(a, "shutting_down");
        }
        m.release();
        assertThat(running.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
        closing.get(60, TimeUnit.SECONDS);
    }

    @Test
    void aHugeHeaderIsRefused() throws Exception {
        try (OpenAiServer s = OpenAiServer.start(served(new ScriptedModel()), ServerOptions.defaults(0, "v"), null);
             Socket socket = new Socket(InetAddress.getLoopbackAddress(), s.address().getPort())) {
            socket.setSoTimeout(60_000);
            String head = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(200 * 1024)
                    + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).as(answer.lines().findFirst().orElse("")).matches("(?s)HTTP/1.1 431 .*");
            String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
            Http.Answer a = new Http.Answer(431, null, body, Http.PLAIN.readTree(body), null);
            assertError(a, "request_header_too_large");
            assertThat(Http.get(s, "/v1/models", null).status()).isEqualTo(200);
        }
    }

    static Socket openStalled(OpenAiServer s, String partial) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), s.address().getPort());
        OutputStream out = socket.getOutputStream();
        out.write(partial.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return socket;
    }

    /** True when the server closed the connection (end of stream or reset) before the socket's read timeout. */
    static boolean readUntilClosed(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // an error answer may come first; what matters is that the connection ends
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;   // reset by the server
        }
    }
}
