package dev.ladder.example.vote;

import dev.ladder.pipeline.prompt.SqlPrompt;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.post.SqlPostProcessor.Cleaned;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Self-consistency by execution: the greedy candidate and {@code samples} sampled ones of the standard prompt, each
 * cleaned and executed; the candidates whose results are equal as multisets of rows form a group, and the answer is
 * the largest group's first candidate (ties: the group whose first candidate came first, so the greedy one wins a
 * tie). Candidates that do not execute do not vote. When none executes, the greedy candidate's text is the answer and
 * the error analysis says so.
 */
public final class ExecutionVoteStrategy implements Strategy {

    public static final String NAME = "execution-vote";
    /** The error-analysis categories this strategy writes (the report counts them by rung). */
    public static final List<String> CATEGORIES = List.of("none-executes", "split-vote");

    private static final String GREEDY = "greedy";
    private static final String SAMPLES = "samples";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean usesSeed(Settings settings) {
        return settings.of(VoteSettings.BLOCK).samples() > 0;
    }

    @Override
    public Answer answer(Question question, StrategyContext ctx) {
        VoteSettings s = ctx.settings().of(VoteSettings.BLOCK);
        Work work = new Work(question, ctx, NAME);
        String prompt = SqlPrompt.of(ctx.format()).prompt(ctx.schemaSummary(),
                ctx.settings().k() == 0 ? List.of() : ctx.exemplars().select(question.text(), ctx.settings().k()),
                question.text());
        List<Work.Call> calls = new ArrayList<>();
        calls.add(Work.Call.greedy(GREEDY, prompt));
        if (s.samples() > 0) {
            List<String> names = new ArrayList<>();
            for (int i = 1; i <= s.samples(); i++) names.add("sample-" + i);
            calls.add(new Work.Call(SAMPLES, names, prompt, true, ctx.settings().poolSeed(), 0, null, s.temperature()));
        }
        List<Work.Output> outputs = work.generate(calls);
        String greedyText = null;
        // result signature -> the candidates that gave it, in call order
        Map<List<String>, List<String>> groups = new LinkedHashMap<>();
        Map<String, String> sqlOf = new LinkedHashMap<>();
        for (Work.Output out : outputs) {
            Cleaned c = work.clean(out);
            if (!c.ok()) continue;
            if (out.source().equals(GREEDY)) greedyText = c.sql();
            Execution e = work.execute(out.source(), c.sql());
            if (!(e instanceof Execution.Success ok)) continue;
            sqlOf.put(out.source(), c.sql());
            if (!s.vote()) {
                return work.answer(c.sql(), out.source(), "the first candidate that executes (vote off)");
            }
            groups.computeIfAbsent(signature(ok.result()), k -> new ArrayList<>()).add(out.source());
        }
        if (groups.isEmpty()) {
            work.stage(null, "error-analysis", CATEGORIES.get(0), null);
            String sql = greedyText == null ? "" : greedyText;
            return work.answer(sql, sql.isEmpty() ? "none" : GREEDY, "no candidate executes; the greedy text");
        }
        List<String> winners = null;
        for (List<String> g : groups.values()) {
            if (winners == null || g.size() > winners.size()) winners = g;
        }
        int voters = groups.values().stream().mapToInt(List::size).sum();
        work.stage(null, "vote", winners.size() + " of " + voters + " executing candidates agree ("
                + groups.size() + " distinct results)", Map.of("groups", List.copyOf(groups.values())));
        if (2 * winners.size() <= voters && groups.size() > 1) work.stage(null, "error-analysis", CATEGORIES.get(1), null);
        String chosen = winners.get(0);
        return work.answer(sqlOf.get(chosen), chosen, "the largest group of agreeing results (" + winners.size()
                + " of " + voters + ")");
    }

    /** The result as a sorted list of its rows' texts: equal multisets of rows give equal signatures. */
    private static List<String> signature(QueryResult r) {
        List<String> rows = new ArrayList<>(r.rows().size());
        for (List<Object> row : r.rows()) rows.add(String.join("\u0001", row.stream().map(v -> Objects.toString(v, "\u0000")).toList()));
        rows.sort(null);
        return rows;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
