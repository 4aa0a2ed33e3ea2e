package dev.ladder.inference;

/**
 * The engine could not answer, for a reason that is not the request's fault: a server that stopped answering, a
 * connection that kept failing after every retry. Nothing was generated; a run stops and resumes later.
 */
public class EngineUnavailableException extends RuntimeException {
    public EngineUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
