package dev.ladder.adapters;

/** A LoRA adapter that cannot be read, validated or merged; the message is one line naming the file. */
public class AdapterException extends RuntimeException {

    public AdapterException(String message) {
        super(message);
    }

    public AdapterException(String message, Throwable cause) {
        super(message, cause);
    }
}
