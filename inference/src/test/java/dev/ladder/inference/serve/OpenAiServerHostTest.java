package dev.ladder.inference.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The server answers only the Host names it knows (DNS rebinding), over raw sockets so that the test chooses the
 * header a browser would send: loopback by default, more with {@link ServerOptions#allowedHosts}.
 */
class OpenAiServerHostTest {

    static OpenAiServer server;
    static OpenAiServer allowing;

    @BeforeAll
    static void start() throws IOException {
        server = OpenAiServer.start(OpenAiServerRequestsTest.served(new ScriptedModel()), ServerOptions.defaults(0, "v"), null);
        allowing = OpenAiServer.start(OpenAiServerRequestsTest.served(new ScriptedModel()),
                ServerOptions.defaults(0, "v").withAllowedHosts(List.of("proxy.example", "10.9.8.7")), null);
    }

    @AfterAll
    static void stop() {
        server.close();
        allowing.close();
    }

    @ParameterizedTest(name = "{1} {0} with Host: {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            /v1/models      | GET  | evil.example       | 403
            /v1/models      | GET  | evil.example:PORT  | 403
            /v1/completions | POST | evil.example       | 403
            /v1/completions | POST | evil.example:PORT  | 403
            /version        | GET  | evil.example:PORT  | 403
            /v1/chat/completions | POST | evil.example  | 403
            /nowhere        | GET  | evil.example       | 403
            /v1/models      | GET  | proxy.example      | 403
            /v1/models      | GET  | 127.0.0.1:PORT     | 200
            /v1/models      | GET  | localhost:PORT     | 200
            /v1/models      | GET  | [::1]:PORT         | 200
            /v1/models      | GET  | localhost          | 200
            /v1/completions | POST | 127.0.0.1:PORT     | 200
            /v1/completions | POST | localhost:PORT     | 200
            /v1/completions | POST | [::1]:PORT         | 200
            """)
    void onlyLoopbackNamesAreAnsweredByDefault(String path, String method, String host, int status) throws IOException {
        String answer = request(server, method, path, host);
        assertThat(answer).as(answer).startsWith("HTTP/1.1 " + status + " ");
        if (status == 403) assertRefusal(answer, server);
    }

    @Test
    void aMissingOrDoubledHostIsRefused() throws IOException {
        int port = server.address().getPort();
        assertThat(send(port, "GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 403 ");
        assertThat(send(port, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 403 ");
    }

    @ParameterizedTest(name = "Host: {0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            proxy.example       | 200
            PROXY.example:443   | 200
            10.9.8.7:PORT       | 200
            127.0.0.1:PORT      | 200
            evil.example        | 403
            www.proxy.example   | 403
            """)
    void allowedHostsAreAnsweredToo(String host, int status) throws IOException {
        for (String path : List.of("/v1/models", "/v1/completions")) {
            String answer = request(allowing, path.equals("/v1/models") ? "GET" : "POST", path, host);
            assertThat(answer).as(answer).startsWith("HTTP/1.1 " + status + " ");
        }
        assertThat(allowing.extraHosts()).containsExactly("proxy.example", "10.9.8.7");
        assertThat(server.extraHosts()).isEmpty();
    }

    /** Listening on every interface: other machines call it by this machine's name (a Slurm shard by its node's). */
    @Test
    void onEveryInterfaceThisMachinesOwnNameIsAnswered() throws IOException {
        String name = InetAddress.getLocalHost().getHostName();
        try (OpenAiServer open = OpenAiServer.start(OpenAiServerRequestsTest.served(new ScriptedModel()),
                ServerOptions.defaults(0, "v").withHost("0.0.0.0"), null)) {
            assertThat(request(open, "GET", "/v1/models", name + ":PORT")).startsWith("HTTP/1.1 200 ");
            assertThat(request(open, "POST", "/v1/completions", name)).startsWith("HTTP/1.1 200 ");
            assertThat(request(open, "GET", "/v1/models", "evil.example:PORT")).startsWith("HTTP/1.1 403 ");
            assertThat(open.extraHosts()).contains(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    /** The Host is checked before the key: a refused name learns nothing about it. */
    @Test
    void theHostIsCheckedBeforeTheKey() throws IOException {
        try (OpenAiServer keyed = OpenAiServer.start(OpenAiServerRequestsTest.served(new ScriptedModel()),
                ServerOptions.defaults(0, "v").withApiKey("k-1"), null)) {
            assertThat(request(keyed, "GET", "/v1/models", "evil.example")).startsWith("HTTP/1.1 403 ");
            assertThat(request(keyed, "GET", "/v1/models", "localhost")).startsWith("HTTP/1.1 401 ");
        }
    }

    private static void assertRefusal(String answer, OpenAiServer s) throws IOException {
        JsonNode error = Http.PLAIN.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4)).path("error");
        assertThat(error.path("code").asText()).isEqualTo("host_not_allowed");
        assertThat(error.path("message").asText()).doesNotContain("\n")
                .contains("http://127.0.0.1:" + s.address().getPort() + "/v1").contains("--allow-host NAME");
    }

    private static String request(OpenAiServer s, String method, String path, String host) throws IOException {
        int port = s.address().getPort();
        String body = method.equals("POST") ? OpenAiServerRequestsTest.GOOD : "";
        return send(port, method + " " + path + " HTTP/1.1\r\nHost: " + host.replace("PORT", String.valueOf(port))
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
    }

    private static String send(int port, String request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);   // a hang fails the test instead of stalling the build
            socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
