package dev.ladder.sql.mutate;

/** Significant tokens [from, to) of a whole query's token list. */
record Span(int from, int to) {

    boolean isEmpty() {
        return to <= from;
    }

    int size() {
        return to - from;
    }
}
