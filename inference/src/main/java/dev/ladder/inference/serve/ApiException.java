package dev.ladder.inference.serve;

/**
 * A request the server answers with an OpenAI-style error body:
 * {@code {"error":{"message":..,"type":..,"param":..,"code":..}}}.
 */
final class ApiException extends RuntimeException {

    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final String retryAfter;

    ApiException(int status, String message, String type, String param, String code, String retryAfter) {
        super(message, null, false, false);   // no stack: these are answers, not bugs
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.retryAfter = retryAfter;
    }

    /** 400, {@code invalid_request_error}, naming the field. */
    static ApiException invalid(String message, String param) {
        return new ApiException(400, message, "invalid_request_error", param, null, null);
    }

    static ApiException notFound(String message, String code) {
        return new ApiException(404, message, "invalid_request_error", null, code, null);
    }

    static ApiException modelNotFound(String model) {
        return new ApiException(404, "The model `" + model + "` does not exist.", "invalid_request_error", "model",
                "model_not_found", null);
    }

    static ApiException methodNotAllowed(String method, String path, String allowed) {
        return new ApiException(405, method + " is not allowed on " + path + " (use " + allowed + ")",
                "invalid_request_error", null, "method_not_allowed", null);
    }

    static ApiException unauthorized() {
        return new ApiException(401, "missing or wrong API key: send the header 'Authorization: Bearer <key>'",
                "invalid_request_error", null, "invalid_api_key", null);
    }

    /** 403: the Host header names neither loopback nor a name the server was told to answer. */
    static ApiException hostNotAllowed(String given, int port) {
        String what = given == null ? "a request without exactly one Host header"
                : "Host '" + printable(given) + "'";
        return new ApiException(403, what + " is refused (a guard against DNS rebinding): on this machine call http://127.0.0.1:" + port
                + "/v1; for a name that a proxy or another machine uses, start ladder serve with --allow-host NAME",
                "invalid_request_error", null, "host_not_allowed", null);
    }

    /** At most 100 printable ASCII characters of a header a client chose. */
    private static String printable(String s) {
        String p = s.strip().replaceAll("[^\\x20-\\x7e]", "?");
        return p.length() > 100 ? p.substring(0, 100) + "..." : p;
    }

    static ApiException tooLarge(long limit) {
        return new ApiException(413, "the request body is larger than " + limit + " bytes", "invalid_request_error",
                null, "request_too_large", null);
    }

    static ApiException headerTooLarge(int limit) {
        return new ApiException(431, "the request's headers are larger than " + limit + " bytes", "invalid_request_error",
                null, "request_header_too_large", null);
    }

    static ApiException unsupportedMediaType(String given) {
        return new ApiException(415, "the body must be JSON, sent with 'Content-Type: application/json' (got "
                + (given == null ? "no Content-Type" : "'" + given.replaceAll("[\\r\\n]", " ") + "'") + ")",
                "invalid_request_error", null, "unsupported_media_type", null);
    }

    /** The request did not arrive in time; its connection is closed, so the answer is seldom read. */
    static ApiException readTimeout() {
        return new ApiException(408, "the request did not arrive in time", "invalid_request_error", null,
                "request_timeout", null);
    }

    static ApiException busy(int queued) {
        return new ApiException(503, "the server is busy (" + queued + " requests queued); retry later", "server_error",
                null, "server_busy", "1");
    }

    static ApiException shuttingDown() {
        return new ApiException(503, "the server is shutting down", "server_error", null, "shutting_down", null);
    }

    static ApiException engine(String message) {
        return new ApiException(500, message, "server_error", null, "engine_error", null);
    }

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    String param() {
        return param;
    }

    String code() {
        return code;
    }

    /** Seconds for a {@code Retry-After} header, or null for none. */
    String retryAfter() {
        return retryAfter;
    }
}
