package dev.ladder.sql.db;

/**
 * The database could not answer, for a reason that is no property of the SQL (server gone, connection
 * lost, network or disk trouble, a frozen server) and that reconnecting, and restarting the embedded
 * server, did not cure. Nothing may be scored from it: the job stops, and the CLI prints the message as
 * one line and exits with status 1 ("the job failed"); a rerun resumes at the item that met it.
 */
public class InfrastructureError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InfrastructureError(String message, Throwable cause) {
        super(message, cause);
    }
}
