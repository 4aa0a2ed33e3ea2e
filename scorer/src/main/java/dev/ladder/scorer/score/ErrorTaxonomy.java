package dev.ladder.scorer.score;

import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.scorer.score.em.OrderUnit;
import dev.ladder.scorer.score.em.SqlUnit;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Explains a wrong prediction by the first component in which it differs from the gold SQL. Both queries are read by
 * exact match's walker ({@link ExactMatch#forTaxonomy}); its {@link SqlUnit}s and their {@link SqlUnit.Structure}
 * give every query level: the query, its set-operation branches, and every query nested in it (derived tables, CTE
 * bodies, subqueries). The components, tested in this order, are:
 * <ol>
 *   <li>{@code wrong-table}: the sets of base tables differ;</li>
 *   <li>{@code wrong-join}: the join kinds (one per join) or the sets of join column pairs differ;</li>
 *   <li>{@code wrong-column}: the sets of referenced columns differ (a column whose table is unknown matches the same
 *       name in any table);</li>
 *   <li>{@code wrong-aggregation}: per level, the aggregate calls, GROUP BY keys or HAVING differ;</li>
 *   <li>{@code wrong-filter}: per level, the WHERE and ON conjuncts that are no join pair differ;</li>
 *   <li>{@code wrong-projection-or-order}: per level, the SELECT items in order, DISTINCT, ORDER BY or LIMIT
 *       differ;</li>
 *   <li>{@code other}: none of these differ (set operations, ...), or a query nests too deeply to parse ({@link dev.ladder.sql.read.Query#tooComplex}).</li>
 * </ol>
 * A query the parser rejects (or that is no SELECT) is read lexically ({@link Query#tables()}): different table sets
 * give {@code wrong-table}, equal ones {@code other}. Per-level texts are compared as sorted lists, so a CTE and the
 * same derived table compare equal. docs/report.md has the rules in full.
 */
public final class ErrorTaxonomy {

    private final ExactMatch reader;

    /**
     * @param schema the database's schema, which tells the table of an unqualified column (null: only aliases and
     *               single-table SELECTs tell it)
     */
    public ErrorTaxonomy(Schema schema) {
        this.reader = ExactMatch.forTaxonomy(schema);
    }

    /**
     * The error class of one prediction; never throws.
     *
     * @param gold             the gold SQL
     * @param predicted        the predicted SQL ({@code ""} or null when there was none)
     * @param executes         the prediction ran without error
     * @param executionCorrect the prediction's result matched the gold result
     */
    public ErrorClass classify(String gold, String predicted, boolean executes, boolean executionCorrect) {
        if (executionCorrect) return ErrorClass.CORRECT;
        if (!executes || predicted == null || predicted.isBlank()) return ErrorClass.NOT_EXECUTABLE;
        if (gold == null || gold.isBlank()) return ErrorClass.OTHER;
        Query g = Query.read(gold);
        Query p = Query.read(predicted);
        if (g.tooComplex() || p.tooComplex()) return ErrorClass.OTHER;
        Optional<Select> gs = g.select();
        Optional<Select> ps = p.select();
        if (gs.isEmpty() || ps.isEmpty()) {
            return g.tables().names().equals(p.tables().names()) ? ErrorClass.OTHER : ErrorClass.WRONG_TABLE;
        }
        List<Level> gl;
        List<Level> pl;
        try {
            gl = levels(reader.analyse(gs.get()));
            pl = levels(reader.analyse(ps.get()));
        } catch (IllegalArgumentException e) {
            return ErrorClass.OTHER; // a construct the walker cannot read: no component can be blamed
        }
        if (!union(gl, Level::tables).equals(union(pl, Level::tables))) return ErrorClass.WRONG_TABLE;
        if (!joins(gl).equals(joins(pl))
                || !union(gl, l -> l.structure().joinPairs()).equals(union(pl, l -> l.structure().joinPairs()))) {
            return ErrorClass.WRONG_JOIN;
        }
        if (!sameColumns(union(gl, l -> l.structure().columns()), union(pl, l -> l.structure().columns()))) {
            return ErrorClass.WRONG_COLUMN;
        }
        if (!texts(gl, Level::aggregation).equals(texts(pl, Level::aggregation))) return ErrorClass.WRONG_AGGREGATION;
        if (!texts(gl, Level::filter).equals(texts(pl, Level::filter))) return ErrorClass.WRONG_FILTER;
        if (!texts(gl, Level::projection).equals(texts(pl, Level::projection))) {
            return ErrorClass.WRONG_PROJECTION_OR_ORDER;
        }
        return ErrorClass.OTHER;
    }

    /** One SELECT and its depth: 0 for the query and its set-operation branches, one more per nesting. */
    private record Level(SqlUnit unit, int depth) {

        SqlUnit.Structure structure() {
            return unit.structure();
        }

        /** The FROM units that are base tables (the others are nested queries, levels of their own). */
        List<String> tables() {
            return unit.tables().stream().filter(t -> !t.startsWith("(")).toList();
        }

        String aggregation() {
            if (structure().aggregates().isEmpty() && unit.groupBy().isEmpty() && unit.having().isEmpty()) return "";
            return "aggregates " + new TreeSet<>(structure().aggregates()) + " group by " + unit.groupBy() + " having "
                    + unit.having();
        }

        String filter() {
            return String.join(" and ", structure().filter());
        }

        String projection() {
            StringBuilder sb = new StringBuilder().append(depth).append(": ");
            if (unit.keywords().contains("distinct")) sb.append("distinct ");
            sb.append(String.join(", ", structure().items()));
            if (!unit.orderBy().isEmpty()) {
                sb.append(" order by ").append(unit.orderBy().stream().map(OrderUnit::toString)
                        .collect(Collectors.joining(", ")));
            }
            if (unit.limit() != null) sb.append(" limit ").append(unit.limit());
            return sb.toString();
        }
    }

    private static List<Level> levels(SqlUnit query) {
        List<Level> out = new ArrayList<>();
        addLevels(query, 0, out, Collections.newSetFromMap(new IdentityHashMap<>()));
        return out;
    }

    /** A CTE read in several places is one unit, and one level. */
    private static void addLevels(SqlUnit unit, int depth, List<Level> out, Set<SqlUnit> seen) {
        for (SqlUnit branch = unit; branch != null && seen.add(branch); branch = branch.setRight()) {
            out.add(new Level(branch, depth));
            for (SqlUnit sub : branch.structure().subqueries()) addLevels(sub, depth + 1, out, seen);
        }
    }

    private static Set<String> union(List<Level> levels, Function<Level, Collection<String>> part) {
        Set<String> out = new TreeSet<>();
        for (Level l : levels) out.addAll(part.apply(l));
        return out;
    }

    private static List<String> joins(List<Level> levels) {
        return levels.stream().flatMap(l -> l.structure().joins().stream()).sorted().toList();
    }

    /** The non-empty per-level texts of one component, sorted. */
    private static List<String> texts(List<Level> levels, Function<Level, String> part) {
        return levels.stream().map(part).filter(t -> !t.isEmpty()).sorted().toList();
    }

    /** Equal sets, or equal once a column whose table is unknown may stand for the same name in any table. */
    private static boolean sameColumns(Set<String> a, Set<String> b) {
        return a.equals(b) || covered(a, b) && covered(b, a);
    }

    private static boolean covered(Set<String> from, Set<String> by) {
        for (String c : from) {
            if (by.stream().noneMatch(o -> name(o).equals(name(c))
                    && (table(c) == null || table(o) == null || table(c).equals(table(o))))) {
                return false;
            }
        }
        return true;
    }

    private static String name(String column) {
        return column.substring(column.lastIndexOf('.') + 1);
    }

    /** The table part of {@code table.column}; null for a bare name. */
    private static String table(String column) {
        int dot = column.lastIndexOf('.');
        return dot < 0 ? null : column.substring(0, dot);
    }
}
