package dev.ladder.scorer.score;

import java.util.Locale;

/**
 * The error taxonomy's classes (declared in the order of the brief's API; {@link ErrorTaxonomy#classify} tests the
 * wrong-* classes in the order table, join, column, aggregation, filter, projection-or-order).
 */
public enum ErrorClass {
    CORRECT("correct"),
    NOT_EXECUTABLE("not-executable"),
    WRONG_TABLE("wrong-table"),
    WRONG_COLUMN("wrong-column"),
    WRONG_JOIN("wrong-join"),
    WRONG_FILTER("wrong-filter"),
    WRONG_AGGREGATION("wrong-aggregation"),
    WRONG_PROJECTION_OR_ORDER("wrong-projection-or-order"),
    OTHER("other");

    private final String label;

    ErrorClass(String label) {
        this.label = label;
    }

    /** The name written to results stores and reports, e.g. {@code wrong-join}. */
    public String label() {
        return label;
    }

    /** The class with this {@link #label()} (case-insensitive); throws {@link IllegalArgumentException} for others. */
    public static ErrorClass fromLabel(String label) {
        String wanted = label == null ? "" : label.trim().toLowerCase(Locale.ROOT);
        for (ErrorClass c : values()) {
            if (c.label.equals(wanted)) return c;
        }
        throw new IllegalArgumentException("unknown error class: " + label);
    }
}
