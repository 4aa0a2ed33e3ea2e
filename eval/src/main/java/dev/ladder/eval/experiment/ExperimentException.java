package dev.ladder.eval.experiment;

import dev.ladder.sql.db.UserError;

/**
 * A problem in an experiment file (or an override of one) the user can fix. The message is one line:
 * {@code FILE: FIELD: problem; what to do}, e.g.
 * {@code experiments/x.yaml: strategies[3].strategy: unknown strategy 'agent-9' (known: prompt-k0, ...)}.
 * It is a {@link UserError}, so the CLI prints it without a stack trace and exits with status 2.
 */
public final class ExperimentException extends UserError {
    private static final long serialVersionUID = 1L;

    private final String field;

    /**
     * @param source  the file (as the user named it) or the override the problem is in
     * @param field   the field path, e.g. {@code models.base.dtype}, {@code strategies[2].model}, {@code line 7}
     * @param problem what is wrong and what to do
     */
    public ExperimentException(String source, String field, String problem) {
        super(source + ": " + field + ": " + problem);
        this.field = field;
    }

    /** The field path the problem is at. */
    public String field() {
        return field;
    }
}
