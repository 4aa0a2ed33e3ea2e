package dev.ladder.sql.schema;

import java.util.Locale;
import java.util.regex.Pattern;

/** Normalises declared column types so MariaDB and SQLite copies of one schema render the same. */
public final class SqlTypes {

    private static final Pattern INTEGER_DISPLAY_WIDTH =
            Pattern.compile("^(tinyint|smallint|mediumint|int|integer|bigint)\\(\\d+\\)");

    private SqlTypes() {}

    /** Lower case, single spaces, no integer display widths ({@code int(11)} is {@code int}). */
    public static String normalize(String declared) {
        if (declared == null || declared.isBlank()) return "";
        String t = declared.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").replace(" (", "(");
        return INTEGER_DISPLAY_WIDTH.matcher(t).replaceFirst("$1");
    }
}
