package dev.ladder.eval.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The viewer's server over raw sockets, so the test chooses the Host header a browser would send. */
class ViewServerTest {

    static final Map<String, byte[]> PAGES = Map.of("index.html", "<p>hi</p>".getBytes(StandardCharsets.UTF_8));

    @ParameterizedTest(name = "Host: {0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            127.0.0.1:PORT    | 200
            127.0.0.1         | 200
            localhost:PORT    | 200
            LOCALHOST         | 200
            [::1]:PORT        | 200
            [::1]             | 200
            evil.example      | 403
            evil.example:PORT | 403
            localhost.evil.example | 403
            127.0.0.1.nip.io  | 403
            127.0.0.1@evil.example | 403
            ''                | 403
            """)
    void onlyLoopbackHostsAreServed(String host, int status) throws IOException {
        try (ViewServer server = ViewServer.start(PAGES, 0)) {
            String h = host.replace("PORT", String.valueOf(server.port()));
            String answer = get(server.port(), "GET / HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n");
            assertThat(answer).as(answer).startsWith("HTTP/1.1 " + status + " ");
            String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
            if (status == 200) assertThat(body).isEqualTo("<p>hi</p>");
            else assertThat(body.strip()).contains("Host").doesNotContain("\n").doesNotContain("Exception");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no Host header  | GET / HTTP/1.1\\r\\nConnection: close\\r\\n\\r\\n
            two Host headers | GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nHost: evil.example\\r\\nConnection: close\\r\\n\\r\\n
            """)
    void aMissingOrDoubledHostIsRefused(String what, String request) throws IOException {
        try (ViewServer server = ViewServer.start(PAGES, 0)) {
            String answer = get(server.port(), request.replace("\\r\\n", "\r\n"));
            assertThat(answer).as(what + ": " + answer).matches("(?s)HTTP/1.1 (400|403) .*");
        }
    }

    @org.junit.jupiter.api.Test
    void clientsThatSendHalfARequestDoNotFreezeTheViewer() throws IOException {
        try (ViewServer server = ViewServer.start(PAGES, 0)) {
            java.util.List<Socket> stalled = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    // a request line and one header, and then nothing: the head never ends
                    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    s.getOutputStream().flush();
                    stalled.add(s);
                }
                String answer = get(server.port(), "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + server.port()
                        + "\r\nConnection: close\r\n\r\n");
                assertThat(answer).startsWith("HTTP/1.1 200").contains("<p>hi</p>");
            } finally {
                for (Socket s : stalled) s.close();
            }
        }
    }

    static String get(int port, String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);   // a hang fails the test instead of stalling the build
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
