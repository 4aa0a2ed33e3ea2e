package dev.ladder.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Plain aligned text tables for the terminal. Long cells are cut with an ellipsis, except in the last column. */
final class TextTable {

    private static final int MAX_CELL = 60;

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();
    private final boolean[] rightAligned;

    TextTable(List<String> header) {
        this.header = header;
        this.rightAligned = new boolean[header.size()];
    }

    TextTable alignRight(int column) {
        rightAligned[column] = true;
        return this;
    }

    TextTable add(List<String> row) {
        rows.add(row);
        return this;
    }

    void print(PrintWriter out) {
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) width[i] = cell(header, i).length();
        for (List<String> r : rows) {
            for (int i = 0; i < width.length; i++) width[i] = Math.max(width[i], cell(r, i).length());
        }
        line(out, header, width);
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            if (i > 0) rule.append("  ");
            rule.append("-".repeat(width[i]));
        }
        out.println(rule);
        for (List<String> r : rows) line(out, r, width);
    }

    private void line(PrintWriter out, List<String> cells, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            if (i > 0) sb.append("  ");
            String c = cell(cells, i);
            String pad = " ".repeat(width[i] - c.length());
            sb.append(rightAligned[i] ? pad + c : c + (i == width.length - 1 ? "" : pad));
        }
        out.println(sb);
    }

    private String cell(List<String> cells, int i) {
        String oneLine = cells.get(i).replace("\r", " ").replace("\n", " ");
        boolean last = i == header.size() - 1;
        return last || oneLine.length() <= MAX_CELL ? oneLine : oneLine.substring(0, MAX_CELL - 1) + "…";
    }
}
