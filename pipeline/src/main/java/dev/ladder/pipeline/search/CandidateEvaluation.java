package dev.ladder.pipeline.search;

import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.post.SqlPostProcessor;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Stages 2 to 5 for one candidate, with the score: post-processing, the two entity channels, the evidence package,
 * the validation levels the settings switch on, and {@code score = wt·table + wc·column + wj·join − penalties}. Every
 * stage writes its step into the trace.
 */
final class CandidateEvaluation {

    private final Work work;
    private final SearchSettings s;
    private final Retrieval retrieval;
    private final JoinGraph graph;
    private final IntentProfile intent;

    CandidateEvaluation(Work work, SearchSettings s, Retrieval retrieval, JoinGraph graph, IntentProfile intent) {
        this.work = work;
        this.s = s;
        this.retrieval = retrieval;
        this.graph = graph;
        this.intent = intent;
    }

    /** The post-processed SQL (what is judged and remembered), or the text itself when post-processing rejects it. */
    String cleaned(String source, String sql) {
        SqlPostProcessor.Cleaned c = work.clean(new Work.Output(source, sql));
        return c.ok() ? c.sql() : sql.strip();
    }

    Evaluated evaluate(String source, String sql, Entities declared) {
        Schema schema = work.ctx.schema();
        Query q = Query.read(sql, work.ctx.db().dialect());
        SchemaBinding b = q.binding(schema);

        EntityExtraction.Extracted ex = EntityExtraction.extract(declared, b, s.entityCheck());
        StageSteps.add(work, source, "entities", "tables " + ex.fromSql().tables() + (ex.warnings().isEmpty() ? ""
                : "; " + ex.warnings().size() + " disagreement" + (ex.warnings().size() == 1 ? "" : "s") + ": "
                        + String.join("; ", ex.warnings())), ex);

        Evidence evidence = retrieval.evidence(source, b, predictedTables(declared, ex.fromSql()));
        StageSteps.add(work, source, "evidence", String.format(Locale.ROOT,
                "tables %.2f, columns %.2f, joins %.2f; %d replacement%s, %d join suggestion%s", evidence.tableScore(),
                evidence.columnScore(), evidence.joinScore(), evidence.replacements().size(),
                evidence.replacements().size() == 1 ? "" : "s", evidence.joinSuggestions().size(),
                evidence.joinSuggestions().size() == 1 ? "" : "s"), evidence);

        List<Validation.Verdict> verdicts = new ArrayList<>();
        Validation.Verdict l0 = Validation.staticChecks(sql, b, graph, schema, evidence.allowedJoins());
        verdicts.add(traced(source, l0));
        boolean valid = l0.passed();
        Execution.Success result = null;
        if (s.executionCheck()) {
            if (b.parsed() && Placeholders.names(sql).isEmpty()) {
                Validation.Executed l1 = Validation.lightExecution(work, source, sql);
                verdicts.add(traced(source, l1.verdict()));
                result = l1.result();
            } else {
                verdicts.add(traced(source, Validation.Verdict.of("L1", List.of("not run: the SQL "
                        + (b.parsed() ? "has unbound placeholders" : "does not parse")), null)));
            }
            valid &= result != null;
        }
        if (s.semanticChecks()) {
            verdicts.add(traced(source, Validation.semanticChecks(work.question.text(), intent, q,
                    result == null ? null : result.result().rowCount())));
        }
        if (s.sampledRecheck()) verdicts.add(traced(source, Validation.recheck(work, source, sql, q, schema, result)));

        Map<String, Double> parts = new LinkedHashMap<>();
        parts.put("table", evidence.tableScore());
        parts.put("column", evidence.columnScore());
        parts.put("join", evidence.joinScore());
        double score = s.tableWeight() * evidence.tableScore() + s.columnWeight() * evidence.columnScore()
                + s.joinWeight() * evidence.joinScore();
        List<String> penalties = new ArrayList<>();
        for (String w : ex.warnings()) penalties.add(String.format(Locale.ROOT, "-%.2f entity: %s", s.warningPenalty(), w));
        score -= s.warningPenalty() * ex.warnings().size();
        for (Validation.Verdict v : verdicts) {
            for (String x : v.violations()) penalties.add(String.format(Locale.ROOT, "-%.2f %s: %s", s.violationPenalty(), v.level(), x));
            score -= s.violationPenalty() * v.violations().size();
            for (String x : v.warnings()) penalties.add(String.format(Locale.ROOT, "-%.2f %s warning: %s", s.warningPenalty(), v.level(), x));
            score -= s.warningPenalty() * v.warnings().size();
        }
        score = Retrieval.round(score);
        Evaluated e = new Evaluated(source, sql, declared, ex.fromSql(), ex.warnings(), evidence, verdicts, parts,
                penalties, score, valid);
        StageSteps.add(work, source, "score", String.format(Locale.ROOT, "%.3f, %s", score,
                valid ? "schema-valid" : "not schema-valid") + (penalties.isEmpty() ? "" : "; " + penalties.size()
                + " penalt" + (penalties.size() == 1 ? "y" : "ies")), Map.of("score", score, "valid", valid,
                "parts", parts, "penalties", penalties));
        return e;
    }

    /** The tables the candidate's sketch predicts: those it declares, else those its SQL reads. */
    private static List<String> predictedTables(Entities declared, Entities fromSql) {
        return declared.tables() != null && !declared.tables().isEmpty() ? declared.tables() : fromSql.tables();
    }

    private Validation.Verdict traced(String source, Validation.Verdict v) {
        String summary = (v.passed() ? "passed" + (v.note() == null ? "" : " (" + v.note() + ")")
                : v.violations().size() + (v.violations().size() == 1 ? " violation: " : " violations: ")
                        + String.join("; ", v.violations()))
                + (v.warnings().isEmpty() ? "" : "; " + v.warnings().size() + (v.warnings().size() == 1 ? " warning: "
                        : " warnings: ") + String.join("; ", v.warnings()));
        StageSteps.add(work, source, "validate-" + v.level(), summary, v);
        return v;
    }
}
