package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Column;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Values stored in one column, fetched by guarded SQL: what pipelines show a model as examples and index for value
 * matching. Names are quoted in the dialect's way, so any table or column name the schema has can be read.
 */
public final class ColumnValues {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private ColumnValues() {}

    /**
     * Up to {@code limit} distinct non-null values of {@code table.column} in sort order, as text; empty when the
     * query fails (a view that cannot be read, a timeout).
     */
    public static List<String> distinct(Database db, String table, String column, int limit) {
        String col = quote(db.dialect(), column);
        Execution e = db.execute("SELECT DISTINCT " + col + " FROM " + quote(db.dialect(), table) + " WHERE " + col
                + " IS NOT NULL ORDER BY " + col + " LIMIT " + limit, new ExecutionLimits(TIMEOUT, limit));
        List<String> out = new ArrayList<>();
        if (e instanceof Execution.Success ok) {
            for (List<Object> row : ok.result().rows()) out.add(String.valueOf(row.get(0)));
        }
        return out;
    }

    /** Whether any row of {@code table.column} satisfies {@code column <operator> 'value'} (= or LIKE); null when unknown. */
    public static Boolean occurs(Database db, String table, String column, String operator, String value) {
        String literal = "'" + (db.dialect() == Dialect.MYSQL ? value.replace("\\", "\\\\") : value).replace("'", "''") + "'";
        Execution e = db.execute("SELECT 1 FROM " + quote(db.dialect(), table) + " WHERE " + quote(db.dialect(), column)
                + " " + operator + " " + literal + " LIMIT 1", new ExecutionLimits(TIMEOUT, 1));
        if (e instanceof Execution.Success ok) return ok.result().rowCount() > 0;
        return null;
    }

    /** Whether a column's type holds text (CHAR, VARCHAR, TEXT, ...). */
    public static boolean isText(Column c) {
        String type = c.type().toUpperCase(Locale.ROOT);
        return type.contains("CHAR") || type.contains("TEXT") || type.contains("CLOB");
    }

    public static String quote(Dialect d, String name) {
        return d == Dialect.SQLITE ? "\"" + name.replace("\"", "\"\"") + "\"" : "`" + name.replace("`", "``") + "`";
    }
}
