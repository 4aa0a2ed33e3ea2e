package dev.ladder.sql.mutate;

import dev.ladder.sql.schema.Column;
import java.util.Locale;

/** Coarse families of declared column types: a wrong column "of the same kind" is one of the same family. */
enum TypeFamily {
    NUMBER, TEXT, TIME, OTHER;

    static TypeFamily of(Column c) {
        String t = c.type() == null ? "" : c.type().toLowerCase(Locale.ROOT);
        if (t.contains("date") || t.contains("time") || t.startsWith("year")) return TIME;
        if (t.contains("char") || t.contains("text") || t.contains("clob") || t.startsWith("enum") || t.startsWith("set")) {
            return TEXT;
        }
        if (t.contains("int") || t.contains("dec") || t.contains("num") || t.contains("real") || t.contains("floa")
                || t.contains("doub") || t.contains("bit") || t.contains("bool")) {
            return NUMBER;
        }
        // SQLite columns declared without a type take any value
        return t.isEmpty() ? TEXT : OTHER;
    }

    /** The family of a literal token's value: a number, a date-looking string, or other text. */
    static TypeFamily ofLiteral(String token) {
        if (token.isEmpty()) return OTHER;
        char c = token.charAt(0);
        if (c != '\'' && c != '"') return NUMBER;
        return token.matches("['\"]\\d{4}-\\d{2}-\\d{2}.*") ? TIME : TEXT;
    }
}
