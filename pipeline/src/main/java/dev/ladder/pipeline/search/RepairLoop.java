package dev.ladder.pipeline.search;

import dev.ladder.pipeline.strategy.JsonReply;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ladder.pipeline.strategy.Work;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Stage 6: the minimal-edit repair loop. Each round hands the best candidate not yet repaired that has violations to
 * the model ({@code repair.txt}: its SQL, entities, evidence package, allowed joins, violations, and every statement
 * tried so far) and asks for a minimal edit as JSON ({@code sql}, {@code confidence}, {@code changes}) with the entities
 * the edit uses ({@code tables}, {@code columns}, {@code joins}, as a sketch declares them). A repaired candidate is
 * scored by the sketches' rule, its declared entities against its SQL included; the entity channels' disagreements
 * are not handed to the repair as problems (they describe the model's account of its SQL, not the SQL).
 *
 * <p>Memory: a candidate is repaired at most once, and a reply whose SQL was already judged (any sketch or earlier
 * repair) is not judged again. The loop stops early when the best candidate is schema-valid and scores at least
 * {@link SearchSettings#threshold}; after {@link SearchSettings#rounds} rounds; after two rounds in a row without a
 * better candidate; or when no candidate with violations is left to repair.
 */
final class RepairLoop {

    static final String REPAIR = "repair";

    /**
     * @param best   the best candidate at the end (null when there was none)
     * @param rounds repair rounds run
     * @param stop   why the loop stopped, in words
     */
    record Outcome(Evaluated best, List<Evaluated> all, int rounds, String stop) {}

    /** One round's record in the trace. */
    record Round(int round, String subject, String sql, Double confidence, List<String> changes, String outcome) {}

    private RepairLoop() {}

    static Outcome run(Work work, SearchSettings s, CandidateEvaluation evaluation, List<Evaluated> candidates,
                       Set<String> memory, List<String> tried) {
        List<Evaluated> all = new ArrayList<>(candidates);
        Evaluated best = null;
        for (Evaluated e : all) if (e.beats(best)) best = e;
        if (good(best, s)) return new Outcome(best, all, 0, "early stop: " + best.source() + " is schema-valid and scores "
                + fmt(best.score()) + " >= " + fmt(s.threshold()));
        if (s.rounds() == 0) return new Outcome(best, all, 0, "repair is off (rounds: 0)");
        Set<String> repaired = new HashSet<>();
        int withoutImprovement = 0;
        for (int round = 1; round <= s.rounds(); round++) {
            Evaluated subject = all.stream()
                    .filter(e -> !repaired.contains(e.source()) && !e.violations().isEmpty())
                    .sorted(Comparator.comparing((Evaluated e) -> !e.valid()).thenComparing(e -> -e.score()))
                    .findFirst().orElse(null);
            if (subject == null) {
                return new Outcome(best, all, round - 1, "no candidate with violations is left to repair");
            }
            repaired.add(subject.source());
            String source = REPAIR + "-" + round;
            String prompt = SearchPrompts.repair(work.ctx.format(), work.ctx.db().dialect(), work.ctx.schemaSummary(),
                    work.question.text(), subject.sql(), String.join(", ", subject.fromSql().tables()),
                    String.join(", ", subject.fromSql().columns().stream().map(Entities.ColumnRef::toString).toList()),
                    lines(subject.evidence().allowedJoins()), evidenceText(subject.evidence()),
                    lines(subject.violations()), lines(tried));
            String reply = work.generate(List.of(Work.Call.json(source, prompt, s.tokensPerSketch()).kind(SearchTeacher.REPAIR))).get(0).raw();
            JsonReply.Parsed parsed = JsonReply.parse(reply);
            String sql = parsed.ok() ? JsonReply.text(parsed.object(), "sql") : null;
            boolean improved = false;
            if (sql == null || sql.isBlank()) {
                String why = parsed.ok() ? "the reply has no \"sql\" text" : parsed.error();
                StageSteps.add(work, source, REPAIR, "round " + round + " on " + subject.source() + ": " + why
                        + "; nothing to judge", new Round(round, subject.source(), null, null, List.of(), why));
            } else {
                String cleaned = evaluation.cleaned(source, sql);
                Double confidence = confidence(parsed.object());
                List<String> changes = changes(parsed.object());
                if (!memory.add(normal(cleaned))) {
                    StageSteps.add(work, source, REPAIR, "round " + round + " on " + subject.source()
                            + ": repeats a statement already tried", new Round(round, subject.source(), cleaned,
                            confidence, changes, "repeats a statement already tried"));
                } else {
                    tried.add(cleaned);
                    StageSteps.add(work, source, REPAIR, "round " + round + " on " + subject.source() + ": "
                            + (changes.isEmpty() ? "no change notes" : String.join("; ", changes)),
                            new Round(round, subject.source(), cleaned, confidence, changes, "judged"));
                    // the entities the repair declares, checked and penalised as a sketch's are
                    Evaluated e = evaluation.evaluate(source, cleaned, Sketches.declared(parsed.object()));
                    all.add(e);
                    if (e.beats(best)) {
                        best = e;
                        improved = true;
                    }
                }
            }
            withoutImprovement = improved ? 0 : withoutImprovement + 1;
            if (good(best, s)) {
                return new Outcome(best, all, round, "early stop: " + best.source() + " is schema-valid and scores "
                        + fmt(best.score()) + " >= " + fmt(s.threshold()));
            }
            if (withoutImprovement >= 2) return new Outcome(best, all, round, "two rounds without improvement");
        }
        return new Outcome(best, all, s.rounds(), "the round limit (" + s.rounds() + ") is reached");
    }

    static boolean good(Evaluated e, SearchSettings s) {
        return e != null && e.valid() && e.score() >= s.threshold();
    }

    /** The form memory compares: whitespace runs as one space, trailing semicolons off, case folded. */
    static String normal(String sql) {
        return sql.strip().replaceAll(";+$", "").replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    /** The evidence as the repair prompt shows it: suggestions first, then what retrieval ranks highest. */
    static String evidenceText(Evidence e) {
        List<String> out = new ArrayList<>();
        for (Evidence.Replacement r : e.replacements()) {
            out.add(r.written() + " is not in the schema; the nearest legal name is " + r.suggestion());
        }
        for (Evidence.JoinSuggestion j : e.joinSuggestions()) {
            out.add(j.table() + " is not joined to " + j.connectTo() + (j.path().isEmpty()
                    ? "; no foreign-key path connects them" : "; the foreign-key path: " + String.join(" AND ", j.path())));
        }
        out.add("tables recalled for this candidate (similarity to the question): " + String.join(", ", e.recalledTables().stream()
                .map(a -> a.table() + " (" + fmt(a.score()) + ")").toList()));
        if (!e.alignedJoins().isEmpty()) {
            out.add("joins most related to the question: " + String.join("; ", e.alignedJoins().stream()
                    .map(j -> j.condition() + " (" + fmt(j.score()) + ")").toList()));
        }
        out.add("columns most related to the question: " + String.join(", ", e.alignedColumns().stream()
                .map(a -> a.table() + "." + a.column() + " (" + fmt(a.score()) + ")").toList()));
        return String.join("\n", out);
    }

    private static Double confidence(JsonNode o) {
        JsonNode c = o.get("confidence");
        return c != null && c.isNumber() ? c.asDouble() : null;
    }

    private static List<String> changes(JsonNode o) {
        JsonNode c = o.get("changes");
        List<String> out = new ArrayList<>();
        if (c != null && c.isArray()) for (JsonNode n : c) if (n.isTextual()) out.add(n.asText());
        if (c != null && c.isTextual()) out.add(c.asText());
        return out;
    }

    static String lines(List<String> items) {
        return items.isEmpty() ? "(none)" : String.join("\n", items.stream().map(i -> "- " + i).toList());
    }

    static String fmt(double x) {
        return String.format(Locale.ROOT, "%.2f", x);
    }

    /** The review package's view of a candidate. */
    static Map<String, Object> summary(Evaluated e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", e.source());
        m.put("sql", e.sql());
        m.put("valid", e.valid());
        m.put("score", e.score());
        m.put("violations", e.violations());
        m.put("warnings", e.warnings());
        m.put("validation_warnings", e.validationWarnings());
        return m;
    }
}
