package dev.ladder.pipeline.search;

import dev.ladder.pipeline.kit.Intent;
import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stage 5: the validation levels, each a separate verdict with its violations.
 * <ul>
 *   <li><b>L0 static</b>: the SQL parses; every table and column is in the schema; no {@code SELECT *}; every selected
 *   column is grouped or aggregated when the query aggregates; no placeholder left unbound. A column equality between
 *   two sources that follows no foreign key (a self-join on shared values, a join on a code two tables both hold) is
 *   a <em>warning</em>: legal SQL that many gold queries write, so it costs score but neither fails the level nor
 *   sends the candidate to repair (not judged on a schema without foreign keys);</li>
 *   <li><b>L1 light execution</b>: {@code EXPLAIN}, then the guarded execution under the settings' timeout and row
 *   cap (the row cap is the LIMIT);</li>
 *   <li><b>L2 semantic</b>: the SQL's shape against the question's intent profile ({@code IntentClassifier}): an
 *   aggregate when one is asked for, a GROUP BY for a per-group answer, ORDER BY and LIMIT (the asked N) for a top-N
 *   or an extremum (MAX/MIN also answer an extremum), a year the question names, and a non-empty result;</li>
 *   <li><b>L3 recheck</b> (optional): a {@code COUNT(*)} over joined tables recomputed as {@code COUNT(DISTINCT key)}
 *   of the first table; a difference means a join multiplies the rows being counted.</li>
 * </ul>
 * A candidate is schema-valid when L0 passes and L1 (when it runs) passes; L2 and L3, and every level's warnings,
 * only cost score.
 */
final class Validation {

    /**
     * One level's verdict.
     *
     * @param level      {@code L0} to {@code L3}
     * @param passed     no violation
     * @param violations what is wrong, in words
     * @param warnings   what is suspect but legal, in words: costs the warning penalty, does not fail the level
     * @param note       what the level saw when it passed (rows returned, ...); may be null
     */
    record Verdict(String level, boolean passed, List<String> violations, List<String> warnings, String note) {
        Verdict {
            violations = List.copyOf(violations);
            warnings = List.copyOf(warnings);
        }

        static Verdict of(String level, List<String> violations, String note) {
            return new Verdict(level, violations.isEmpty(), violations, List.of(), note);
        }
    }

    private static final Pattern YEAR = Pattern.compile("\\b(1[89]\\d\\d|20\\d\\d)\\b");

    private Validation() {}

    static Verdict staticChecks(String sql, SchemaBinding b, JoinGraph graph, Schema schema, List<String> allowedJoins) {
        List<String> v = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (String p : Placeholders.names(sql)) v.add("placeholder :" + p + " has no value");
        if (!b.parsed()) {
            v.add("the SQL does not parse: " + b.failure());
            return Verdict.of("L0", v, null);
        }
        for (String t : b.unknownTables()) v.add("table " + t + " is not in the schema");
        for (SchemaBinding.UnknownColumn c : b.unknownColumns()) {
            v.add("column " + (c.qualifier() == null ? "" : c.qualifier() + ".") + c.column() + ": " + c.reason());
        }
        if (b.selectStar()) v.add("SELECT * (name the columns the question asks for)");
        for (String c : b.ungrouped()) v.add("column " + c + " is selected but neither grouped nor aggregated");
        if (!schema.foreignKeys().isEmpty()) {
            for (SchemaBinding.ColumnPair p : b.equalities()) {
                if (!graph.followsKey(p.left().table(), p.left().column(), p.right().table(), p.right().column())) {
                    warnings.add("the join " + p.left().table() + "." + p.left().column() + " = " + p.right().table() + "."
                            + p.right().column() + " follows no foreign key (allowed: "
                            + (allowedJoins.isEmpty() ? "none" : String.join("; ", allowedJoins)) + ")");
                }
            }
        }
        return new Verdict("L0", v.isEmpty(), v, warnings, null);
    }

    /** L1; the successful execution, if any, is returned with the verdict. */
    record Executed(Verdict verdict, Execution.Success result) {}

    static Executed lightExecution(Work work, String source, String sql) {
        var limits = work.ctx.settings().limits();
        Optional<Execution> plan = work.ctx.db().explain(sql, limits);
        if (plan.isPresent() && plan.get() instanceof Execution.Failure f) {
            return new Executed(Verdict.of("L1", List.of("EXPLAIN fails: " + f.error()), null), null);
        }
        Execution e = work.execute(source, sql);
        if (e instanceof Execution.Success ok) {
            int rows = ok.result().rowCount();
            return new Executed(Verdict.of("L1", List.of(), (plan.isPresent() ? "explained; " : "") + rows
                    + (rows == 1 ? " row" : " rows") + (ok.result().truncated() ? " (row cap reached)" : "")), ok);
        }
        return new Executed(Verdict.of("L1", List.of("does not execute: " + ((Execution.Failure) e).error()), null), null);
    }

    /** @param rows the rows L1 returned, null when L1 did not run or failed */
    static Verdict semanticChecks(String question, IntentProfile intent, Query q, Integer rows) {
        List<String> v = new ArrayList<>();
        var shape = q.shape();
        boolean extremumByAggregate = hasCall(q, "MAX") || hasCall(q, "MIN");
        v.addAll(intent.missingAggregation(q));
        boolean topN = intent.intent() == Intent.TOP_K || intent.wantsLimit();
        if (topN && !shape.limit() && !extremumByAggregate) {
            v.add("the question asks for the top " + (intent.limitN() == null ? "rows" : intent.limitN())
                    + "; the SQL has no LIMIT (nor MAX/MIN)");
        } else if (topN && shape.limit() && intent.limitN() != null && shape.limitCount() != null
                && shape.limitCount().longValue() != intent.limitN()) {
            v.add("the question asks for " + intent.limitN() + " rows; the SQL's LIMIT is " + shape.limitCount());
        }
        if (intent.wantsOrder() && shape.orderBy().isEmpty() && !extremumByAggregate) {
            v.add("the question asks for an order; the SQL has no ORDER BY");
        }
        Matcher m = YEAR.matcher(question);
        while (m.find()) {
            if (!q.text().contains(m.group(1))) v.add("the question names the year " + m.group(1) + "; the SQL does not");
        }
        if (rows != null && rows == 0) v.add("the SQL returns no rows");
        return Verdict.of("L2", v, null);
    }

    private static boolean hasCall(Query q, String function) {
        List<SqlToken> t = q.tokens();
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).isWord(function) && t.get(i + 1).isSymbol("(")) return true;
        }
        return false;
    }

    /**
     * L3: for a query whose outer SELECT is one {@code COUNT(*)} over joined tables without GROUP BY, the count again
     * as {@code COUNT(DISTINCT first.key)} (the first FROM table's one-column primary key). Not applicable
     * otherwise (a verdict that passes with a note).
     */
    static Verdict recheck(Work work, String source, String sql, Query q, Schema schema, Execution.Success result) {
        Optional<OuterClauses> outer = q.outer();
        if (result == null || outer.isEmpty() || q.joins() == 0) return Verdict.of("L3", List.of(), "not applicable");
        OuterClauses o = outer.get();
        if (o.setOperation || o.groupBy != null || o.items.size() != 1) return Verdict.of("L3", List.of(), "not applicable");
        String item = o.text(o.items.get(0)).replaceAll("\\s+", "").toUpperCase(Locale.ROOT);
        if (!item.startsWith("COUNT(*)") || o.sources().isEmpty() || o.sources().get(0).name() == null) {
            return Verdict.of("L3", List.of(), "not applicable");
        }
        OuterClauses.Source first = o.sources().get(0);
        Optional<Table> table = schema.table(first.name());
        if (table.isEmpty() || table.get().primaryKey().size() != 1) return Verdict.of("L3", List.of(), "not applicable");
        String key = first.alias() + "." + table.get().primaryKey().get(0);
        int start = o.tokens.get(o.items.get(0).start()).start();
        // COUNT ( * ) are the item's first four tokens
        int end = o.tokens.get(o.items.get(0).start() + 3).end();
        String again = o.sql.substring(0, start) + "COUNT(DISTINCT " + key + ")" + o.sql.substring(end);
        Execution e = work.execute(source + "-recheck", again);
        if (!(e instanceof Execution.Success ok) || ok.result().rowCount() != 1 || result.result().rowCount() != 1) {
            return Verdict.of("L3", List.of(), "the recheck did not run; nothing to compare");
        }
        Object counted = ok.result().rows().get(0).get(0);
        Object before = result.result().rows().get(0).get(0);
        if (String.valueOf(counted).equals(String.valueOf(before))) {
            return Verdict.of("L3", List.of(), "COUNT(*) equals COUNT(DISTINCT " + key + ") = " + before);
        }
        return Verdict.of("L3", List.of("COUNT(*) counts " + before + " joined rows but only " + counted + " distinct "
                + table.get().name() + ": a join multiplies the rows being counted"), null);
    }
}
