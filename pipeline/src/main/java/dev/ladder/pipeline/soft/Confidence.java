package dev.ladder.pipeline.soft;

import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stage 4: how much an attempt's execution suggests it is right, with the terms of the method's published code:
 * {@code +0.6} when it runs; a row-count term of {@code +0.2} for a row count in {@code [minRows, maxRows]} and
 * {@code −0.1} above it (a result the row cap cut counts as above: it has more rows than were read), nothing for no
 * rows or fewer than {@code minRows}; {@code +0.2} when no issue is detected; {@code −0.05} per issue; clamped to
 * {@code [0, 1]}. Issues: an empty result, a column that is NULL in every returned row, and a cartesian-looking join
 * (several tables, no column equality between any two, no subquery). An attempt that does not run scores 0, with its
 * error as the issue.
 */
public record Confidence(double value, boolean runs, Integer rows, List<String> issues, Map<String, Double> terms) {

    public static final double RUNS = 0.6;
    public static final double ROWS_IN_RANGE = 0.2;
    public static final double ROWS_ABOVE_RANGE = -0.1;
    public static final double NO_ISSUES = 0.2;
    public static final double PER_ISSUE = -0.05;

    public Confidence {
        issues = List.copyOf(issues);
        terms = Collections.unmodifiableMap(new LinkedHashMap<>(terms));
    }

    static Confidence of(Execution e, Query q, SchemaBinding b, SoftSettings s) {
        if (e instanceof Execution.Failure f) {
            return new Confidence(0, false, null, List.of("it does not run: " + f.error()), Map.of());
        }
        QueryResult r = ((Execution.Success) e).result();
        Map<String, Double> terms = new LinkedHashMap<>();
        terms.put("runs", RUNS);
        int rows = r.rowCount();
        double rowTerm = r.truncated() || rows > s.maxRows() ? ROWS_ABOVE_RANGE
                : rows > 0 && rows >= s.minRows() ? ROWS_IN_RANGE : 0;
        terms.put("rows", rowTerm);
        List<String> issues = new ArrayList<>();
        if (rows == 0) issues.add("the result is empty");
        for (int c = 0; c < r.columns().size() && rows > 0; c++) {
            final int col = c;
            if (r.rows().stream().allMatch(row -> row.get(col) == null)) {
                issues.add("column " + r.columns().get(c) + " is NULL in every row");
            }
        }
        if (b.parsed() && b.tables().size() > 1 && b.equalities().isEmpty() && q.subqueries() == 0
                && q.setOperations() == 0) {
            issues.add("it reads " + String.join(", ", b.tables()) + " with no join condition between them (a cartesian product)");
        }
        terms.put("no issues", issues.isEmpty() ? NO_ISSUES : 0.0);
        if (!issues.isEmpty()) terms.put("issues", Math.round(PER_ISSUE * issues.size() * 1000) / 1000.0);
        double value = Math.max(0, Math.min(1, terms.values().stream().mapToDouble(Double::doubleValue).sum()));
        return new Confidence(Math.round(value * 1000) / 1000.0, true, rows, issues, terms);
    }
}
