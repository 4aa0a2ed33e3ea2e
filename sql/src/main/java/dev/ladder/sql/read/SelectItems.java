package dev.ladder.sql.read;

import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

/** Which SELECT item an expression of a parsed query stands for (ORDER BY keys name items by position or alias). */
public final class SelectItems {

    private SelectItems() {}

    /**
     * Index of the SELECT item that {@code e} names: an ordinal in range, an unqualified column equal to an item's
     * alias, or the same expression text (case-insensitive); -1 when it names none.
     */
    public static int indexOf(PlainSelect select, Expression e) {
        List<SelectItem<?>> items = select.getSelectItems();
        if (e instanceof LongValue pos) {
            return pos.getValue() >= 1 && pos.getValue() <= items.size() ? (int) pos.getValue() - 1 : -1;
        }
        for (int i = 0; i < items.size(); i++) {
            SelectItem<?> item = items.get(i);
            if (e instanceof Column c && c.getTable() == null && item.getAlias() != null
                    && unquote(item.getAlias().getName()).equalsIgnoreCase(unquote(c.getColumnName()))) {
                return i;
            }
            if (item.getExpression() != null && item.getExpression().toString().equalsIgnoreCase(e.toString())) return i;
        }
        return -1;
    }

    /** A parsed identifier without backticks or double quotes (JSqlParser keeps them in names). */
    public static String unquote(String name) {
        return name.replace("`", "").replace("\"", "");
    }
}
