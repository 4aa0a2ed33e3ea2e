package dev.ladder.pipeline.gsr;

import dev.ladder.pipeline.kit.AskWithFix;
import dev.ladder.pipeline.strategy.Work;
import dev.ladder.sql.post.SqlPostProcessor;
import java.util.List;
import java.util.Map;

/**
 * GSR's model calls: each has the pipeline's token budget and temperature (greedy at 0; else sampled with its own
 * seed, the cell's sampler base plus the call's number) and no stop strings. A call that should give SQL is
 * post-processed; when no statement can be read from it, one format-fix call asks for the statement alone
 * ({@code format-fix.txt}), and when that fails too the caller keeps what it had.
 */
final class SqlCalls {

    private final Work work;
    private final GsrSettings g;
    private int calls;

    SqlCalls(Work work, GsrSettings g) {
        this.work = work;
        this.g = g;
    }

    /** The raw text of one call asking for {@code kind} (see {@link GsrTeacher}). */
    String text(String source, String prompt, String kind, Map<String, String> facts) {
        long seed = work.ctx.settings().samplerBase() + calls++;
        return work.generate(List.of(Work.Call.free(source, prompt, g.maxTokens(), g.temperature(), seed)
                .kind(kind, facts))).get(0).raw();
    }

    /** The cleaned SQL of one call (with the format fallback), or null when none can be read. */
    String sql(String source, String prompt) {
        // the reply and the fixed reply are cleaned under their own sources (the trace tells them apart)
        AskWithFix.Outcome<String> r = AskWithFix.ask(
                () -> text(source, prompt, GsrTeacher.SQL_BLOCK, Map.of()),
                raw -> cleaned(source, raw),
                (raw, error) -> {
                    String fix = GsrPrompts.chat(work.ctx.format(), "format-fix", Map.of(
                            "dialect", work.ctx.db().dialect().label(),
                            "reply", raw.strip().isEmpty() ? "(empty)" : raw.strip(), "error", error));
                    return text(source + "-format", fix, GsrTeacher.SQL_BLOCK, Map.of());
                },
                raw -> cleaned(source + "-format", raw));
        return r.ok() ? r.value() : null;
    }

    private AskWithFix.Reading<String> cleaned(String source, String raw) {
        SqlPostProcessor.Cleaned c = work.clean(new Work.Output(source, raw));
        return c.ok() ? AskWithFix.Reading.of(c.sql()) : AskWithFix.Reading.failed(c.rejection());
    }
}
