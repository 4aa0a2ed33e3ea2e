package dev.ladder.inference;

/**
 * The in-process engine failed while computing (libtorch refused an op, ran out of device memory, ...). Engines
 * wrap their library's own failure in this, so that callers handle it without knowing the engine's types.
 */
public class EngineFailureException extends RuntimeException {
    public EngineFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
