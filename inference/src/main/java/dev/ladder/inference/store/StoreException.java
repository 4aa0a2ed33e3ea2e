package dev.ladder.inference.store;

/**
 * A pull or lookup that cannot go on and that the user can fix: no such model or revision, a gated model without a
 * token, a model that is not pulled, a directory that is not a model. The message is one line, fit to print as is.
 */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
