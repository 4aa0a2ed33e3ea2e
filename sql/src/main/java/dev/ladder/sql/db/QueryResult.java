package dev.ladder.sql.db;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Rows of a successful query, with values already in canonical form (see {@link Values}).
 *
 * @param columns   column labels as the database reports them (aliases included)
 * @param rows      at most the row cap; each row has {@code columns.size()} values, SQL NULL is {@code null}
 * @param truncated true when the query had more rows than the cap and only the first ones are kept
 * @param elapsedMillis wall time of execute + fetch
 */
public record QueryResult(List<String> columns, List<List<Object>> rows, boolean truncated, long elapsedMillis) {

    public QueryResult {
        columns = List.copyOf(columns);
        // rows may hold nulls, so List.copyOf cannot be used for the inner lists
        rows = rows.stream().map(r -> Collections.unmodifiableList(new ArrayList<>(r))).toList();
    }

    public int rowCount() {
        return rows.size();
    }
}
