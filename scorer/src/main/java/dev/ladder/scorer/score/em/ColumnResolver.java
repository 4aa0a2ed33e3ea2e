package dev.ladder.scorer.score.em;

import static dev.ladder.scorer.score.em.SqlNames.lower;
import static dev.ladder.scorer.score.em.SqlNames.unquote;

import dev.ladder.scorer.score.em.ComponentExtractor.AliasMode;
import dev.ladder.scorer.score.em.ComponentExtractor.Ctx;
import dev.ladder.scorer.score.em.ComponentExtractor.Found;
import dev.ladder.scorer.score.em.ComponentExtractor.Texts;
import dev.ladder.scorer.score.em.ComponentExtractor.UnsupportedSqlException;
import dev.ladder.sql.read.NameScope.Source;
import dev.ladder.sql.read.NameScope;
import java.util.List;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;

/**
 * Column references for {@link ComponentExtractor}: resolved through the FROM sources of the SELECT being read, then
 * those of the queries around it (correlated subqueries), then the schema; a SELECT alias where the clause allows one.
 * Strict extraction rejects a name no source or schema table has, so a query that cannot run never matches.
 */
final class ColumnResolver {

    /** MySQL time units: JSqlParser reads TIMESTAMPDIFF(MONTH, a, b)'s unit as a column. */
    private static final Set<String> TIME_UNITS = Set.of("microsecond", "second", "minute", "hour", "day", "week",
            "month", "quarter", "year", "second_microsecond", "minute_microsecond", "minute_second",
            "hour_microsecond", "hour_second", "hour_minute", "day_microsecond", "day_second", "day_minute",
            "day_hour", "year_month");

    private final ComponentExtractor query;
    private final boolean strict;
    private final Texts texts;
    private final SchemaIndex schema;

    ColumnResolver(ComponentExtractor query) {
        this.query = query;
        this.strict = query.strict;
        this.texts = query.texts;
        this.schema = query.schema;
    }

    /** What EM calls a table source: its lower-case name as written (known to the schema or not); null otherwise. */
    static String tableOf(Source src) {
        return src.kind() == NameScope.Kind.TABLE ? src.written() : null;
    }

    /** The sort key that breaks ties deterministically when several sources of one scope have a column. */
    private static String key(Source src) {
        return src.kind() == NameScope.Kind.TABLE ? src.written() : "<" + src.id() + ">";
    }

    /** The source of this SELECT's FROM that a column names, or null (unqualified among several, or another scope's). */
    static Source localSource(Column c, NameScope scope) {
        Table t = c.getTable();
        if (t == null || t.getName() == null) return scope.sources().size() == 1 ? scope.sources().get(0) : null;
        String qualifier = lower(unquote(t.getName()));
        return scope.local(qualifier);
    }

    String column(Column c, Ctx ctx) {
        String rawName = c.getColumnName();
        String name = lower(unquote(rawName));
        Table t = c.getTable();
        String qualifier = t == null || t.getName() == null ? null : lower(unquote(t.getName()));
        if (qualifier == null) {
            if (ctx.mode() == AliasMode.ALIAS_FIRST && ctx.aliases().containsKey(name)) return alias(name, ctx);
            Source resolved = sourceOf(name, ctx.env().scope());
            if (resolved != null) return reference(resolved, name, ctx.env().found());
            if (ctx.mode() == AliasMode.COLUMN_FIRST && ctx.aliases().containsKey(name)) return alias(name, ctx);
            if (quotedString(c, ctx)) return literal(new StringValue(rawName.substring(1, rawName.length() - 1)));
            NameScope scope = ctx.env().scope();
            if (strict && !ctx.aliases().containsKey(name) && !TIME_UNITS.contains(name) && allKnownTables(scope)) {
                throw new UnsupportedSqlException("unknown column " + name);
            }
            if (scope != null && scope.sources().size() == 1) return reference(scope.sources().get(0), name, ctx.env().found());
            return found(name, ctx.env().found());
        }
        Source src = ctx.env().scope() == null ? null : ctx.env().scope().qualified(qualifier);
        if (src != null) {
            if (strict && src.table() != null && !src.has(name)) {
                throw new UnsupportedSqlException("unknown column " + qualifier + "." + name);
            }
            return reference(src, name, ctx.env().found());
        }
        if (strict && allKnownTables(ctx.env().scope())) {
            throw new UnsupportedSqlException("unknown table or alias " + qualifier + " in " + qualifier + "." + name);
        }
        return found(schema.hasTable(qualifier) ? schema.column(qualifier, name) : qualifier + "." + name, ctx.env().found());
    }

    /** A column of a FROM source: its text, recorded with the bare name where the source is no base table. */
    private String reference(Source src, String name, Found found) {
        String text = qualify(src, name);
        if (found != null) found.columns.add(tableOf(src) != null ? text : name);
        return text;
    }

    /** A column reference no FROM source answers for, recorded as written. */
    private static String found(String text, Found found) {
        if (found != null) found.columns.add(text);
        return text;
    }

    /** A USING column of one side of a join: the first of its sources (by key) that has it, else the only one. */
    String among(String name, List<Source> sources, Found found) {
        NameScope side = new NameScope(null);
        sources.forEach(side::add);
        Source src = sourceOf(name, side);
        if (src == null && sources.size() == 1) src = sources.get(0);
        return src == null ? found(name, found) : reference(src, name, found);
    }

    /**
     * Whether every source in scope is a schema table with known columns (a name none of them has then
     * cannot run); derived tables and CTEs make the answer unsure, and unsure never rejects.
     */
    private boolean allKnownTables(NameScope start) {
        if (start == null || !schema.known()) return false;
        boolean any = false;
        for (NameScope s = start; s != null; s = s.parent()) {
            for (Source src : s.sources()) {
                if (src.table() == null) return false;
                any = true;
            }
        }
        return any;
    }

    /** MySQL reads a "double-quoted" name that is no column (and no alias) as a string literal. */
    boolean quotedString(Column c, Ctx ctx) {
        String raw = c.getColumnName();
        if (c.getTable() != null && c.getTable().getName() != null) return false;
        if (raw == null || raw.length() < 2 || !raw.startsWith("\"") || !raw.endsWith("\"")) return false;
        String name = lower(unquote(raw));
        return sourceOf(name, ctx.env().scope()) == null && !ctx.aliases().containsKey(name);
    }

    private String alias(String name, Ctx ctx) {
        return ex(ctx.aliases().get(name), ctx.with(AliasMode.NONE));
    }

    String tableStar(Table t, Ctx ctx) {
        String qualifier = lower(unquote(t.getName()));
        Source src = ctx.env().scope() == null ? null : ctx.env().scope().qualified(qualifier);
        if (src != null) return texts == Texts.TAXONOMY && tableOf(src) == null ? "*" : key(src) + ".*";
        return qualifier + ".*";
    }

    /** The source of an unqualified column: in the nearest scope that has it, the first by key; null when none. */
    private static Source sourceOf(String name, NameScope start) {
        for (NameScope s = start; s != null; s = s.parent()) {
            Source best = null;
            for (Source src : s.sources()) {
                if (src.has(name) && (best == null || key(src).compareTo(key(best)) < 0)) best = src;
            }
            if (best != null) return best;
        }
        return null;
    }

    private String qualify(Source src, String name) {
        if (tableOf(src) != null) return schema.column(tableOf(src), name);
        if (texts == Texts.TAXONOMY) return name;
        int i = src.outputs().indexOf(name);
        return "<" + src.id() + ">." + (i >= 0 ? "#" + (i + 1) : name);
    }

    // ------------------------------------------------------------------ the other readers

    private String literal(Expression e) {
        return query.expressions().literal(e);
    }

    private String ex(Expression expr, Ctx ctx) {
        return query.expressions().ex(expr, ctx);
    }
}
