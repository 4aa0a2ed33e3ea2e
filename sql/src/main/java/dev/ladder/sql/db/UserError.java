package dev.ladder.sql.db;

/**
 * A problem the user can fix (bad file, missing data, unknown database, bad flag). The CLI prints
 * the message as one line and exits with status 2; it never prints a stack trace for these.
 */
public class UserError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UserError(String message) {
        super(message);
    }

    public UserError(String message, Throwable cause) {
        super(message, cause);
    }
}
