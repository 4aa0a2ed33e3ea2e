package dev.ladder.sql.mutate;

import java.util.Locale;

/** An edit that keeps a query's answer (see {@link SqlRewrites} for what each one does). */
public enum Rewrite {
    PERMUTE_COLUMNS, RENAME_ALIASES, NOT_EQUALS_SPELLING, COMMUTE_AND, IN_TO_OR, JOIN_ON_TO_WHERE,
    REDUNDANT_PARENTHESES;

    /** The snake-case name traces and reports use: {@code permute_columns}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
