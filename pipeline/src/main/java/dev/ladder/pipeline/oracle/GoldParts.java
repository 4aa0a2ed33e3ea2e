package dev.ladder.pipeline.oracle;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.read.Conditions;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A statement taken apart the way the pipelines' structured calls ask for it: the tables and columns it binds, its
 * joins, and its outermost clauses as text (each WHERE conjunct on its own). Teachers build sketches, clauses and
 * sub-tasks from it. Read through the one reading of SQL ({@link Query}).
 *
 * @param tables     schema tables read (schema spelling)
 * @param columns    {@code table.column} of every bound column, in first-use order
 * @param joins      column equalities between two tables: {@code [left table, right table, "a.x = b.y"]}
 * @param select     the SELECT list as written (without the keyword)
 * @param from       the FROM clause as written (without the keyword), "" when none
 * @param conditions the WHERE clause's top-level conjuncts as written
 * @param groupBy    the GROUP BY clause as written (with its keywords), "" when none; likewise the next three
 */
public record GoldParts(List<String> tables, List<String> columns, List<List<String>> joins, String select, String from,
                        List<String> conditions, String groupBy, String having, String orderBy, String limit) {

    public static GoldParts of(String sql, Schema schema, Dialect dialect) {
        Query q = Query.read(sql, dialect);
        SchemaBinding b = q.binding(schema);
        Set<String> columns = new LinkedHashSet<>();
        b.columns().forEach(c -> columns.add(c.table() + "." + c.column()));
        List<List<String>> joins = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (SchemaBinding.ColumnPair p : b.equalities()) {
            String on = p.left().table() + "." + p.left().column() + " = " + p.right().table() + "." + p.right().column();
            if (seen.add(on)) joins.add(List.of(p.left().table(), p.right().table(), on));
        }
        Optional<OuterClauses> outer = q.outer();
        if (outer.isEmpty()) {
            return new GoldParts(b.tables(), List.copyOf(columns), joins, sql, "", List.of(), "", "", "", "");
        }
        OuterClauses o = outer.get();
        String select = o.items.isEmpty() ? "" : o.sql.substring(o.tokens.get(o.items.get(0).start()).start(),
                o.tokens.get(o.items.get(o.items.size() - 1).end() - 1).end());
        return new GoldParts(List.copyOf(new LinkedHashSet<>(b.tables())), List.copyOf(columns), joins, select,
                o.from == null ? "" : afterKeyword(o, o.from), conjuncts(o), text(o, o.groupBy), text(o, o.having),
                text(o, o.orderBy), text(o, o.limit));
    }

    private static String text(OuterClauses o, OuterClauses.Clause c) {
        return c == null ? "" : o.text(c);
    }

    private static String afterKeyword(OuterClauses o, OuterClauses.Clause c) {
        return c.end() - c.start() < 2 ? "" : o.text(new OuterClauses.Clause(c.start() + 1, c.end()));
    }

    /** WHERE's top-level conjuncts ({@link Conditions}: the whole condition when an OR stands at its top). */
    private static List<String> conjuncts(OuterClauses o) {
        if (o.where == null) return List.of();
        List<String> out = new ArrayList<>();
        for (OuterClauses.Clause c : Conditions.conjuncts(o.tokens, o.where.start() + 1, o.where.end())) out.add(o.text(c));
        return out;
    }
}
