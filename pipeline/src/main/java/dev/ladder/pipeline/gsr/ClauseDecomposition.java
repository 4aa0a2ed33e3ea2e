package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.strategy.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Stage 1: the question (and its hint) split into simple clauses by the model ({@code decompose.txt}). The clauses do
 * not depend on the database, so a reply is kept per model object and prompt for the run ({@code RunCaches}): the
 * ablation rungs of one run decompose each question once (the trace says when a reply was reused, and the row counts
 * it as a cached call). Greedy replies only: a sampled reply is never reused.
 */
final class ClauseDecomposition {

    static final String SOURCE = "decompose";
    /** A reply lists at most this many clauses. */
    static final int MAX_CLAUSES = 12;

    /** The clauses, and whether the reply came from the cache. */
    record Clauses(List<String> clauses, boolean reused) {}

    private ClauseDecomposition() {}

    static Clauses run(Work work, SqlCalls calls, GsrSettings g) {
        String prompt = GsrPrompts.chat(work.ctx.format(), "decompose", Map.of(
                "question", work.question.text().strip(), "hint", GsrPrompts.hint(work.question.hint())));
        if (g.temperature() > 0) return new Clauses(parse(calls.text(SOURCE, prompt, GsrTeacher.CLAUSES, Map.of())), false);
        // greedy: the same model asked the same prompt writes the same reply, so GSR's ablations of one run share it
        // (the model object is the key: two models of one name never share a reply; the item too: items answered
        // together never share one, whichever asks first)
        int before = work.ctx.caches().repliesReusedOnThisThread();
        String reply = work.ctx.caches().reply(List.of("gsr-decompose", work.ctx.model(), work.question.id(),
                        g.maxTokens(), prompt),
                () -> calls.text(SOURCE, prompt, GsrTeacher.CLAUSES, Map.of()));
        return new Clauses(parse(reply), work.ctx.caches().repliesReusedOnThisThread() > before);
    }

    /** Bulleted or numbered lines; without any, every non-empty line; at most {@link #MAX_CLAUSES}. */
    static List<String> parse(String reply) {
        List<String> bulleted = new ArrayList<>();
        List<String> plain = new ArrayList<>();
        for (String line : reply.split("\\R")) {
            String s = line.strip();
            if (s.isEmpty()) continue;
            String item = s.replaceFirst("^([-*•]|\\d+[.)])\\s+", "");
            if (!item.equals(s)) bulleted.add(item.strip());
            else plain.add(s);
        }
        List<String> out = bulleted.isEmpty() ? plain : bulleted;
        return List.copyOf(out.subList(0, Math.min(MAX_CLAUSES, out.size())));
    }
}
