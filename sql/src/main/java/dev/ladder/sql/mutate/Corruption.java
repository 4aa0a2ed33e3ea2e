package dev.ladder.sql.mutate;

import java.util.Locale;

/**
 * A realistic mistake made in a gold query (see {@link SqlCorruptions} for what each one does): the instrument that
 * puts wrong answers of known kinds through the scorers, the taxonomy and the agents' repair paths.
 */
public enum Corruption {
    WRONG_COLUMN, DROP_CONJUNCT, ADD_CONJUNCT, WRONG_JOIN, MISSING_JOIN, MISSING_GROUP_BY, EXTRA_ORDER_BY,
    EXTRA_LIMIT, WRONG_AGGREGATE, LITERAL_CASE, UNKNOWN_COLUMN, SYNTAX_ERROR;

    /** The snake-case name traces and reports use: {@code wrong_column}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
