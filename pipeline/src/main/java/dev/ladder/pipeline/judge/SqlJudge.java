package dev.ladder.pipeline.judge;

import dev.ladder.inference.CallTag;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.Sampling;
import dev.ladder.pipeline.prompt.PromptTemplates;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An LLM judge of one SQL answer: given the schema, the question, the SQL and what it returned, the model answers
 * {@code CORRECT: YES|NO} with its reasoning ({@code judge/judge.txt}). Greedy (temperature 0), at most
 * {@link #MAX_TOKENS} tokens. The progressive pipeline's semantic reward and the {@code judge} scorer both ask it, so
 * the pipeline's reward and the metric are the same judgement.
 */
public final class SqlJudge {

    public static final String FOLDER = "dev/ladder/pipeline/judge/";
    public static final int MAX_TOKENS = 512;
    /** The kind of a judge's call ({@code CallTag}), and the fact naming the SQL under judgement. */
    public static final String KIND = "judge";
    public static final String FACT_SQL = "sql";
    /** Result rows the judge sees. */
    public static final int ROWS = 10;

    /**
     * {@code CORRECT} as a word, then anything a chat model puts between it and the verdict (Markdown emphasis, a
     * colon, dash or equals sign, brackets, quotes, line breaks), then YES or NO: {@code **CORRECT**: YES},
     * {@code Correct: **No**}, {@code CORRECT = [YES]}. Not {@code INCORRECT} or {@code CORRECTNESS}.
     */
    private static final Pattern VERDICT = Pattern.compile("(?i)(?<![A-Za-z])CORRECT(?![A-Za-z])[\\s*_:=\\-\\[(\"'`]*(YES|NO)\\b");
    private static final Pattern REASONING = Pattern.compile("(?is)REASONING\\s*[:=-]?\\s*(.+)");

    /**
     * The judge's answer.
     *
     * @param correct   YES or NO; null when the reply holds no verdict in a form it reads (unknown: counted apart, never
     *                  read as NO)
     * @param reasoning its reasoning, or the whole reply when it gave none in the asked form
     * @param prompt    the prompt asked (for caching and traces)
     * @param raw       the reply as written
     */
    public record Verdict(Boolean correct, String reasoning, String prompt, String raw, int promptTokens,
                          int generatedTokens) {
        public boolean yes() {
            return Boolean.TRUE.equals(correct);
        }
    }

    private SqlJudge() {}

    public static String prompt(LanguageModel judge, Dialect dialect, Schema schema, String question, String sql,
                                Execution execution) {
        return prompt(judge, FOLDER, "judge", dialect, schema, question, sql, execution);
    }

    /**
     * A judge prompt from another template with the same placeholders and the same reply form (a pipeline's own
     * reward prompt: its requests then never share a generation-cache entry with the {@code judge} metric's).
     */
    public static String prompt(LanguageModel judge, String folder, String template, Dialect dialect, Schema schema,
                                String question, String sql, Execution execution) {
        return PromptTemplates.chat(judge.promptFormat(), folder, template, Map.of(
                "dialect", dialect.label(), "schema", SchemaRenderer.summary(schema).stripTrailing(),
                "question", question.strip(), "sql", sql.isBlank() ? "(none)" : sql.strip(),
                "result", summary(execution)));
    }

    public static Verdict judge(LanguageModel judge, Dialect dialect, Schema schema, String question, String sql,
                                Execution execution) {
        return judge(judge, dialect, schema, "", question, sql, execution);
    }

    /** As above, saying which benchmark item the question is ({@code ""}: none), as the oracle engine needs. */
    public static Verdict judge(LanguageModel judge, Dialect dialect, Schema schema, String item, String question,
                                String sql, Execution execution) {
        String prompt = prompt(judge, dialect, schema, question, sql, execution);
        Completion c = judge.generate(List.of(new GenerationRequest(prompt, null, MAX_TOKENS, Sampling.GREEDY, 1, 0,
                Set.of(), List.of(), new CallTag(KIND, item, Map.of(FACT_SQL, sql))))).get(0);
        Candidate out = c.candidates().isEmpty() ? null : c.candidates().get(0);
        String raw = out == null ? "" : out.text();
        return read(raw, prompt, c.promptTokens(), out == null ? 0 : out.tokenIds().size());
    }

    /** Reads a reply: the first {@code CORRECT: YES/NO}, and the text after {@code REASONING:}. */
    public static Verdict read(String raw, String prompt, int promptTokens, int generatedTokens) {
        Matcher v = VERDICT.matcher(raw);
        Boolean correct = v.find() ? v.group(1).equalsIgnoreCase("YES") : null;
        Matcher r = REASONING.matcher(raw);
        String reasoning = r.find() ? r.group(1).strip() : raw.strip();
        if (reasoning.length() > 1000) reasoning = reasoning.substring(0, 1000) + "...";
        return new Verdict(correct, reasoning, prompt, raw, promptTokens, generatedTokens);
    }

    /** What the query returned, as the judge sees it: the row count and the first rows, or the error. */
    public static String summary(Execution e) {
        if (e == null) return "(not executed)";
        if (e instanceof Execution.Failure f) return "an error: " + f.error();
        QueryResult r = ((Execution.Success) e).result();
        List<String> lines = new ArrayList<>();
        lines.add(r.rowCount() + (r.rowCount() == 1 ? " row" : " rows") + (r.truncated() ? " (at least)" : "")
                + (r.rowCount() > ROWS ? "; the first " + ROWS + ":" : ":"));
        lines.add(String.join(" | ", r.columns()));
        for (List<Object> row : r.rows().subList(0, Math.min(ROWS, r.rows().size()))) {
            List<String> cells = new ArrayList<>();
            for (Object o : row) {
                String s = o == null ? "NULL" : String.valueOf(o).replaceAll("\\s+", " ");
                cells.add(s.length() > 60 ? s.substring(0, 60) + "..." : s);
            }
            lines.add(String.join(" | ", cells));
        }
        return String.join("\n", lines);
    }
}
