package dev.ladder.common;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which {@code Host} headers a local HTTP server answers ({@code ladder view}, {@code ladder serve}): the defence
 * against DNS rebinding. A web page can make its own name resolve to this machine and then read what a server here
 * answers as if it were its own, but its requests still carry its name in {@code Host}; refusing names the server does
 * not know refuses them. Browsers send the URL's host, so an IP literal in {@code Host} is one the user typed.
 *
 * <p>Always accepted: {@code localhost} and the loopback addresses (127.0.0.0/8, {@code [::1]} however written), with
 * or without a port. {@link #forListening} adds the machine's own names and addresses when the server listens on a
 * non-loopback address (other machines reach it by them), and whatever names the user allows.
 */
public final class HostCheck {

    /** A host name as RFC 1123 spells one: labels of letters, digits and hyphens, a trailing dot allowed. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\\.?");
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    /**
     * What may stand between the brackets of an IPv6 literal (no zone: browsers send none). The colon matters: given
     * bracketed text without one, {@code InetAddress.getByName} looks it up as a name.
     */
    private static final Pattern IPV6 = Pattern.compile("[0-9a-f.]*:[0-9a-f:.]*");
    /** A Host header: a bracketed literal or a colon-free name, then an optional numeric port. */
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[^\\]]*]|[^:\\[\\]]+)(?::[0-9]{1,5})?");

    /** Names besides localhost, lower-case, without a trailing dot. */
    private final Set<String> names;
    /** Addresses besides loopback. */
    private final Set<InetAddress> addresses;

    private HostCheck(Set<String> names, Set<InetAddress> addresses) {
        this.names = Collections.unmodifiableSet(names);
        this.addresses = Collections.unmodifiableSet(addresses);
    }

    /** Only localhost and the loopback addresses. */
    public static HostCheck loopback() {
        return new HostCheck(new TreeSet<>(), new LinkedHashSet<>());
    }

    /**
     * What a server listening on {@code bound} answers: loopback; when {@code bound} is not loopback, also this
     * machine's names and interface addresses; and the {@code allowed} names or addresses.
     *
     * @throws IllegalArgumentException for an allowed entry that is not a host name or address ({@link #checkAllowed})
     */
    public static HostCheck forListening(InetAddress bound, Collection<String> allowed) {
        Set<String> names = new TreeSet<>();
        Set<InetAddress> addresses = new LinkedHashSet<>();
        if (!bound.isLoopbackAddress()) {
            names.addAll(machineNames());
            addresses.addAll(machineAddresses());
            if (!bound.isAnyLocalAddress()) addresses.add(bound);
        }
        for (String entry : allowed) {
            String host = checkAllowed(entry);
            InetAddress literal = literal(host);
            if (literal != null) addresses.add(literal);
            else names.add(host);
        }
        return new HostCheck(names, addresses);
    }

    /**
     * An entry for {@code --allow-host}, normalised (lower case, no trailing dot, an IPv6 address bracketed).
     *
     * @throws IllegalArgumentException naming the entry, when it is not a host name or an IP address (a port, a scheme
     *                                  or a path included)
     */
    public static String checkAllowed(String entry) {
        String s = entry == null ? "" : entry.strip().toLowerCase(Locale.ROOT);
        if (!s.startsWith("[") && s.indexOf(':') != s.lastIndexOf(':')) s = "[" + s + "]";   // a bare IPv6 address
        String host = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        if (!host.isEmpty() && (literal(host) != null || NAME.matcher(host).matches())) return host;
        throw new IllegalArgumentException("'" + entry + "' is not a host name or an IP address (give the name alone: "
                + "no scheme, port or path)");
    }

    /** Whether a request with this {@code Host} header value is answered; null (no header) is not. */
    public boolean accepts(String header) {
        if (header == null) return false;
        Matcher m = HOST_PORT.matcher(header.strip());
        if (!m.matches()) return false;
        String host = m.group(1).toLowerCase(Locale.ROOT);
        if (host.endsWith(".") && !host.startsWith("[")) host = host.substring(0, host.length() - 1);
        InetAddress literal = literal(host);
        if (literal != null) return literal.isLoopbackAddress() || addresses.contains(literal);
        return NAME.matcher(host).matches() && (host.equals("localhost") || names.contains(host));
    }

    /** The names and addresses accepted besides localhost and loopback, sorted names first, for a log line. */
    public List<String> extra() {
        List<String> out = new ArrayList<>(names);
        for (InetAddress a : addresses) out.add(a.getAddress().length == 4 ? a.getHostAddress() : "[" + a.getHostAddress() + "]");
        return out;
    }

    /** An IP literal's address (IPv6 in brackets), parsed without any lookup; null for anything else. */
    static InetAddress literal(String host) {
        boolean v4 = IPV4.matcher(host).matches();
        // bracketed text with a colon: getByName parses it as a literal or fails, and never looks it up as a name
        boolean v6 = host.length() > 2 && host.startsWith("[") && host.endsWith("]")
                && IPV6.matcher(host.substring(1, host.length() - 1)).matches();
        if (!v4 && !v6) return null;
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** This machine's host name, its first label, and the name its address resolves back to. */
    static Set<String> machineNames() {
        Set<String> out = new TreeSet<>();
        String name;
        try {
            InetAddress local = InetAddress.getLocalHost();
            name = local.getHostName();
            out.add(normal(local.getCanonicalHostName()));
        } catch (UnknownHostException e) {
            name = kernelHostName();   // the name does not resolve (a container without it in /etc/hosts)
        }
        if (name != null && !name.isBlank()) {
            String n = normal(name);
            out.add(n);
            int dot = n.indexOf('.');
            if (dot > 0) out.add(n.substring(0, dot));
        }
        out.removeIf(n -> !NAME.matcher(n).matches() || literal(n) != null || n.equals("localhost"));
        return out;
    }

    private static String normal(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }

    private static String kernelHostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.US_ASCII).strip();
        } catch (IOException | RuntimeException e) {
            return System.getenv("HOSTNAME");
        }
    }

    /** The addresses of this machine's interfaces but loopback and link-local (a URL cannot name those without a zone). */
    static Set<InetAddress> machineAddresses() {
        Set<InetAddress> out = new LinkedHashSet<>();
        try {
            for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
                for (InetAddress a : nic.inetAddresses().toList()) {
                    if (!a.isLoopbackAddress() && !a.isLinkLocalAddress()) out.add(InetAddress.getByAddress(a.getAddress()));
                }
            }
        } catch (SocketException | UnknownHostException e) {
            // no interfaces to list: names and loopback still work
        }
        return out;
    }
}
