package dev.ladder.inference.device;

/**
 * The chosen libtorch or device cannot be used (wrong torch version, no CUDA, missing folder): a problem the user
 * fixes by choosing another mode or installing something; the message says what. The CLI prints it as one line.
 */
public final class TorchSetupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TorchSetupException(String message) {
        super(message);
    }

    public TorchSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
