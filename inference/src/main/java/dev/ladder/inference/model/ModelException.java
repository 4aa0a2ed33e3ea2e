package dev.ladder.inference.model;

/**
 * A model directory or weight file that cannot be used: missing file, malformed JSON, unsupported architecture,
 * missing tensor. The message is one line that names the file (or tensor) and what is wrong, fit to print as is.
 */
public class ModelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ModelException(String message) {
        super(oneLine(message));
    }

    public ModelException(String message, Throwable cause) {
        super(oneLine(message), cause);
    }

    private static String oneLine(String message) {
        return message == null ? null : message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }
}
