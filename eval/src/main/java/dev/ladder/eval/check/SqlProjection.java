package dev.ladder.eval.check;

import dev.ladder.sql.read.Query;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;

/** The outermost SELECT list of a query, as column names where items are plain columns. */
final class SqlProjection {

    private SqlProjection() {}

    /** Names of the plain-column items of the outermost (first, for set operations) SELECT, in order. */
    static List<String> plainColumns(String sql) {
        List<String> out = new ArrayList<>();
        if (!(Query.read(sql).statement().orElse(null) instanceof Select s)) return out;
        Select body = s;
        if (body instanceof SetOperationList list) body = list.getSelects().get(0);
        if (!(body instanceof PlainSelect p)) return out;
        for (SelectItem<?> item : p.getSelectItems()) {
            if (item.getExpression() instanceof Column c) out.add(c.getColumnName().replace("`", ""));
        }
        return out;
    }
}
