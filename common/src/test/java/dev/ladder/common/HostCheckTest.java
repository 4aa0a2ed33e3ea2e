package dev.ladder.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostCheckTest {

    @ParameterizedTest(name = "Host: {0}")
    @ValueSource(strings = {"localhost", "localhost:8000", "LOCALHOST", "localhost.", "localhost.:80", "127.0.0.1",
        "127.0.0.1:8000", "127.1.2.3:8000", " 127.0.0.1 ", "[::1]", "[::1]:8000", "[0:0:0:0:0:0:0:1]:8000",
        "[::ffff:127.0.0.1]"})
    void loopbackNamesAreAccepted(String host) {
        assertThat(HostCheck.loopback().accepts(host)).isTrue();
    }

    @ParameterizedTest(name = "Host: ''{0}''")
    @ValueSource(strings = {"evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.nip.io",
        "127.0.0.1@evil.example", "evil.example#127.0.0.1", "", ":8000", "127.0.0.1:", "127.0.0.1:123456",
        "localhost:80:80", "[::1", "::1", "[::2]", "[1.2.3.4]", "[dead.beef]", "10.0.0.1", "256.0.0.1",
        "0177.0.0.1", "app.localhost", "local host"})
    void anythingElseIsRefused(String host) {
        assertThat(HostCheck.loopback().accepts(host)).isFalse();
    }

    @Test
    void noHeaderIsRefused() {
        assertThat(HostCheck.loopback().accepts(null)).isFalse();
    }

    @Test
    void allowedNamesAndAddressesAreAcceptedWithAnyPort() throws Exception {
        HostCheck check = HostCheck.forListening(InetAddress.getLoopbackAddress(),
                List.of("Proxy.Example.", "10.1.2.3", "fd00::7", "[fd00::8]"));
        for (String host : List.of("proxy.example", "PROXY.example:443", "proxy.example.", "10.1.2.3:8000",
                "[fd00::7]:8000", "[fd00:0:0:0:0:0:0:8]", "localhost:1")) {
            assertThat(check.accepts(host)).as(host).isTrue();
        }
        for (String host : List.of("evil.example", "www.proxy.example", "proxy", "10.1.2.4", "[fd00::9]")) {
            assertThat(check.accepts(host)).as(host).isFalse();
        }
        assertThat(check.extra()).containsExactly("proxy.example", "10.1.2.3", "[fd00:0:0:0:0:0:0:7]", "[fd00:0:0:0:0:0:0:8]");
    }

    @Test
    void listeningOnLoopbackAddsNothing() {
        assertThat(HostCheck.forListening(InetAddress.getLoopbackAddress(), List.of()).extra()).isEmpty();
    }

    /** Other machines reach a server on every interface by this machine's names and addresses. */
    @Test
    void listeningOnEveryInterfaceAcceptsTheMachinesOwnNames() throws Exception {
        HostCheck check = HostCheck.forListening(InetAddress.getByName("0.0.0.0"), List.of());
        for (String name : HostCheck.machineNames()) assertThat(check.accepts(name + ":8000")).as(name).isTrue();
        for (InetAddress a : HostCheck.machineAddresses()) {
            String literal = a.getAddress().length == 4 ? a.getHostAddress() : "[" + a.getHostAddress() + "]";
            assertThat(check.accepts(literal)).as(literal).isTrue();
        }
        assertThat(HostCheck.machineNames()).isNotEmpty();
        assertThat(check.accepts("evil.example:8000")).isFalse();
        assertThat(check.accepts("localhost:8000")).isTrue();
    }

    @ParameterizedTest(name = "--allow-host {0}")
    @CsvSource(delimiter = '|', textBlock = """
            proxy.example      | proxy.example
            Node-7.Cluster.    | node-7.cluster
            10.0.0.5           | 10.0.0.5
            fd00::1            | [fd00::1]
            [FD00::1]          | [fd00::1]
            """)
    void allowedEntriesAreNormalised(String entry, String normal) {
        assertThat(HostCheck.checkAllowed(entry)).isEqualTo(normal);
    }

    @ParameterizedTest(name = "--allow-host ''{0}''")
    @ValueSource(strings = {"", " ", "proxy.example:8000", "http://proxy.example", "proxy.example/v1", "-proxy",
        "a..b", "*", "*.example", "[1.2.3.4]", "[fd00::1]:80"})
    void otherEntriesAreRefused(String entry) {
        assertThatThrownBy(() -> HostCheck.checkAllowed(entry)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + entry + "' is not a host name or an IP address");
    }
}
