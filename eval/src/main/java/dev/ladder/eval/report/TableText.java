package dev.ladder.eval.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** A {@link ReportTable} as CSV, as a Markdown table and as a booktabs LaTeX tabular. */
final class TableText {

    private TableText() {
    }

    /**
     * RFC 4180 with {@code \n} line ends. Commons CSV quotes a field holding a comma, quote or line break and, to be
     * safe for readers, also an empty first field, one starting with a space, a control character or one of
     * {@code !"#}, and one ending in whitespace; the same table always gives the same bytes.
     */
    private static final CSVFormat CSV = CSVFormat.RFC4180.builder().setRecordSeparator('\n').build();

    /** CSV: a header of the raw column names, then one line per row. */
    static String csv(ReportTable table) {
        StringBuilder out = new StringBuilder();
        List<String> columns = table.columns();
        try (CSVPrinter printer = new CSVPrinter(out, CSV)) {
            printer.printRecord(columns);
            for (int r = 0; r < table.rowCount(); r++) {
                int row = r;
                printer.printRecord(columns.stream().map(c -> table.csvCell(row, c)));
            }
        } catch (IOException e) {
            // a StringBuilder does not fail
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** A GitHub-flavoured Markdown table: text columns left-aligned, numbers right-aligned. */
    static String markdown(ReportTable table) {
        StringBuilder out = new StringBuilder();
        out.append(mdRow(table.displayHeader()));
        StringBuilder rule = new StringBuilder("|");
        for (boolean numeric : table.displayNumeric()) rule.append(numeric ? " ---: |" : " :--- |");
        out.append(rule).append('\n');
        for (List<String> row : table.displayRows()) out.append(mdRow(row));
        return out.toString();
    }

    /**
     * A booktabs tabular ready for {@code \input} inside a table environment; needs the booktabs package.
     * Text is escaped, {@code —} becomes {@code ---}, a leading minus becomes {@code $-$}.
     */
    static String latex(ReportTable table) {
        StringBuilder out = new StringBuilder();
        out.append("% ").append(table.title()).append(" (ladder report: ").append(table.id())
                .append(".tex; needs \\usepackage{booktabs})\n");
        StringBuilder spec = new StringBuilder();
        for (boolean numeric : table.displayNumeric()) spec.append(numeric ? 'r' : 'l');
        out.append("\\begin{tabular}{").append(spec).append("}\n");
        out.append("\\toprule\n");
        out.append(texRow(table.displayHeader(), table.displayNumeric(), false));
        out.append("\\midrule\n");
        for (List<String> row : table.displayRows()) out.append(texRow(row, table.displayNumeric(), true));
        out.append("\\bottomrule\n");
        out.append("\\end{tabular}\n");
        return out.toString();
    }

    /** The text with LaTeX's special characters escaped. */
    static String texEscape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '\\' -> out.append("\\textbackslash{}");
                case '&', '%', '$', '#', '_', '{', '}' -> out.append('\\').append(ch);
                case '~' -> out.append("\\textasciitilde{}");
                case '^' -> out.append("\\textasciicircum{}");
                case '<' -> out.append("\\textless{}");
                case '>' -> out.append("\\textgreater{}");
                case '|' -> out.append("\\textbar{}");
                case '—' -> out.append("---");
                default -> out.append(ch);
            }
        }
        return out.toString();
    }

    private static String texRow(List<String> cells, List<Boolean> numeric, boolean body) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) out.append(" & ");
            String cell = cells.get(i);
            String tex = texEscape(cell);
            if (body && numeric.get(i) && cell.startsWith("-")) tex = "$-$" + tex.substring(1);
            // a row starting with [ would be read as the optional argument of the previous \\
            if (tex.startsWith("[")) tex = "{[}" + tex.substring(1);
            out.append(tex);
        }
        return out.append(" \\\\\n").toString();
    }

    private static String mdRow(List<String> cells) {
        StringBuilder out = new StringBuilder("|");
        for (String cell : cells) out.append(' ').append(cell.replace("|", "\\|").replace('\n', ' ')).append(" |");
        return out.append('\n').toString();
    }
}
