package dev.ladder.inference;

/**
 * The engine refused a request as malformed or unauthorised (an HTTP 4xx that is the request's or the
 * configuration's fault): retrying cannot help. The message names the model and quotes the engine's reason.
 */
public class EngineRequestException extends RuntimeException {
    public EngineRequestException(String message) {
        super(message);
    }
}
