package dev.ladder.inference.store;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;

/**
 * What a failed hub request says about its cause, in words a user can act on, and whether running the pull again can
 * help: a name that does not resolve, a refused connection or a TLS failure will fail the same way until the network
 * or {@code HF_ENDPOINT} changes; a timeout or a cut download resumes.
 *
 * @param cause     the failure in words, naming the endpoint tried
 * @param retryable whether running the same command again may succeed (and resume)
 */
public record HubFailure(String cause, boolean retryable) {

    /** The cause of {@code e}, a failure talking to {@code endpoint}. */
    public static HubFailure of(IOException e, String endpoint) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException) {
                return new HubFailure("DNS: the name " + host(endpoint) + " does not resolve (no network, or no DNS) for "
                        + endpoint + " (HF_ENDPOINT)", false);
            }
            if (t instanceof ConnectException || t instanceof NoRouteToHostException) {
                return new HubFailure("connection refused or unreachable: " + endpoint + " (HF_ENDPOINT)", false);
            }
            if (t instanceof SSLException) {
                return new HubFailure("TLS failed with " + endpoint + ": " + firstLine(t.getMessage())
                        + " (a proxy or a missing CA certificate?)", false);
            }
            if (t instanceof SocketTimeoutException) {
                return new HubFailure("timed out talking to " + endpoint + ": " + firstLine(t.getMessage()), true);
            }
        }
        return new HubFailure(firstLine(e.getMessage()) + " (endpoint " + endpoint + ")", true);
    }

    private static String host(String endpoint) {
        try {
            String h = URI.create(endpoint).getHost();
            return h == null ? endpoint : h;
        } catch (IllegalArgumentException e) {
            return endpoint;
        }
    }

    private static String firstLine(String s) {
        return s == null ? "(no message)" : s.strip().lines().findFirst().orElse("");
    }
}
