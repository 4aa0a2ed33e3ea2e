package dev.ladder.eval.report;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * One table of a report: the Tablesaw data with raw numbers, how each column is written, and which columns are
 * point estimates with an interval beside them.
 *
 * <p>An interval column {@code X} is followed by {@code X_lo} and {@code X_hi}. CSV and JSON keep the three
 * apart; Markdown and LaTeX show them as one column {@code X [95% CI]} with cells like {@code 0.650 [0.450, 0.850]}.
 *
 * @param id          file name stem ({@code summary} gives {@code summary.csv}, {@code summary.tex})
 * @param title       heading
 * @param description one paragraph saying what the rows and values are
 * @param data        the rows; string columns are text, numeric columns are written by their {@link Style}
 * @param styles      styles of numeric columns that are not {@link Style#PROPORTION} (double) or
 *                    {@link Style#COUNT} (int, long)
 * @param intervals   columns that carry an interval in their {@code _lo}/{@code _hi} siblings
 */
public record ReportTable(String id, String title, String description, Table data, Map<String, Style> styles,
                          Set<String> intervals) {

    /** Suffix of an interval's lower end. */
    public static final String LOWER = "_lo";
    /** Suffix of an interval's upper end. */
    public static final String UPPER = "_hi";

    public ReportTable {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(data, "data");
        styles = Map.copyOf(styles);
        intervals = Set.copyOf(intervals);
        for (String base : intervals) {
            if (!data.containsColumn(base + LOWER) || !data.containsColumn(base + UPPER)) {
                throw new IllegalArgumentException("interval column " + base + " lacks " + base + LOWER + " or "
                        + base + UPPER);
            }
        }
    }

    /** Rows of the data. */
    public int rowCount() {
        return data.rowCount();
    }

    /** The column names as CSV and JSON write them. */
    public List<String> columns() {
        return data.columnNames();
    }

    /** The style a column is written with. */
    public Style style(String column) {
        Column<?> c = data.column(column);
        if (!(c instanceof NumericColumn<?>)) return Style.TEXT;
        Style s = styles.get(column);
        if (s != null) return s;
        return c instanceof DoubleColumn ? Style.PROPORTION : Style.COUNT;
    }

    /** A cell as a CSV field (unquoted): text as is, numbers by style, {@code ""} when missing. */
    public String csvCell(int row, String column) {
        Column<?> c = data.column(column);
        if (c.isMissing(row)) return "";
        if (c instanceof StringColumn s) return s.get(row);
        return style(column).csv(((NumericColumn<?>) c).getDouble(row));
    }

    /** A cell as a JSON value: a {@link String}, a {@link BigDecimal} or null when missing. */
    public Object jsonCell(int row, String column) {
        Column<?> c = data.column(column);
        if (c.isMissing(row)) return null;
        if (c instanceof StringColumn s) return s.get(row);
        return style(column).machine(((NumericColumn<?>) c).getDouble(row));
    }

    /** The header as Markdown and LaTeX show it, interval siblings folded into their estimate's column. */
    public List<String> displayHeader() {
        List<String> header = new ArrayList<>();
        for (String name : displayColumns()) {
            header.add(intervals.contains(name) ? name + " [95% CI]" : name);
        }
        return header;
    }

    /** Whether each displayed column holds numbers (right-aligned). */
    public List<Boolean> displayNumeric() {
        List<Boolean> numeric = new ArrayList<>();
        for (String name : displayColumns()) numeric.add(style(name) != Style.TEXT);
        return numeric;
    }

    /** The rows as Markdown and LaTeX show them; missing numbers are {@link Style#MISSING}. */
    public List<List<String>> displayRows() {
        List<List<String>> rows = new ArrayList<>();
        for (int r = 0; r < data.rowCount(); r++) {
            List<String> row = new ArrayList<>();
            for (String name : displayColumns()) row.add(displayCell(r, name));
            rows.add(row);
        }
        return rows;
    }

    private String displayCell(int row, String column) {
        Column<?> c = data.column(column);
        if (c instanceof StringColumn s) return c.isMissing(row) ? Style.MISSING : s.get(row);
        Style style = style(column);
        String value = style.display(value(row, column));
        if (!intervals.contains(column) || value.equals(Style.MISSING)) return value;
        return value + " [" + style.display(value(row, column + LOWER)) + ", "
                + style.display(value(row, column + UPPER)) + "]";
    }

    private double value(int row, String column) {
        Column<?> c = data.column(column);
        return c.isMissing(row) ? Double.NaN : ((NumericColumn<?>) c).getDouble(row);
    }

    // the data's columns less the interval ends, in order
    private List<String> displayColumns() {
        List<String> shown = new ArrayList<>();
        for (String name : data.columnNames()) {
            boolean end = (name.endsWith(LOWER) && intervals.contains(name.substring(0, name.length() - LOWER.length())))
                    || (name.endsWith(UPPER) && intervals.contains(name.substring(0, name.length() - UPPER.length())));
            if (!end) shown.add(name);
        }
        return shown;
    }
}
