package dev.ladder.pipeline.prompt;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.ChatMlFormat;
import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.inference.text.Llama3ChatFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The text-to-SQL prompt, shared by every prompt-based rung (k = 0, k = 3, the agent's first turn) and by the
 * QLoRA training set, so that a fine-tuned model is asked exactly what it was trained on.
 *
 * <p>Two messages: the system instruction ({@code system.txt}) and one user message ({@code user.txt}) holding the
 * schema summary, the exemplar block and the question, ending with the cue {@code SQL:}. The exemplar block
 * ({@code exemplars.txt}, one {@code exemplar.txt} per example, separated by a blank line, then a blank line) is
 * empty for k = 0: k = 0 and k = 3 differ in that block only.
 *
 * <p>Why exemplars sit inside the user message rather than as earlier user/assistant turns: (1) the prompt is the
 * same two messages whatever k is, so the rungs differ in one contiguous span of text; (2) the completion format
 * joins messages without role labels, where prior turns would run together as unlabelled text, while a
 * {@code Question:/SQL:} block reads the same in every format; (3) the schema is shown once, before the examples
 * that use it; (4) a training prompt holds no assistant turn other than the one being learnt.
 *
 * <p>Inference: {@link #prompt} is {@code format.format(messages(...))}, the text that ends where the model's answer
 * begins. Training: the same text as prompt and {@link #answerTurn} as completion — the gold SQL and the format's
 * end of turn ({@link #endOfTurn}). For {@code llama3-chat}, {@code prompt + answerTurn(sql)} is byte for byte what
 * Meta's chat template writes for the conversation with the SQL as assistant message. The class knows nothing of
 * metrics or benchmarks.
 */
public final class SqlPrompt {

    /** Resource names of the templates (see {@link PromptTemplates}). */
    public static final String SYSTEM = "system";
    public static final String USER = "user";
    public static final String EXEMPLARS = "exemplars";
    public static final String EXEMPLAR = "exemplar";

    /** A training pair: exactly the inference prompt, and what the model should write after it. */
    public record Training(String prompt, String completion) {}

    private final PromptFormat format;
    private final PromptTemplate system;
    private final PromptTemplate user;
    private final PromptTemplate exemplars;
    private final PromptTemplate exemplar;

    private SqlPrompt(PromptFormat format) {
        this.format = Objects.requireNonNull(format, "format");
        this.system = PromptTemplates.load(SYSTEM);
        this.user = PromptTemplates.load(USER);
        this.exemplars = PromptTemplates.load(EXEMPLARS);
        this.exemplar = PromptTemplates.load(EXEMPLAR);
        endOfTurn(format); // fail early for a format whose end of turn is unknown
    }

    /** The standard prompt in the given format ({@code PromptFormats.byName} or {@code forModel}). */
    public static SqlPrompt of(PromptFormat format) {
        return new SqlPrompt(format);
    }

    public PromptFormat format() {
        return format;
    }

    /**
     * The system and user messages.
     *
     * @param schemaSummary {@code SchemaRenderer.summary(schema)}; trailing line breaks are dropped
     * @param exemplars     solved examples in prompt order (empty for k = 0); never the question itself
     * @param question      the question, as asked
     */
    public List<ChatMessage> messages(String schemaSummary, List<Example> exemplars, String question) {
        Objects.requireNonNull(schemaSummary, "schemaSummary");
        Objects.requireNonNull(exemplars, "exemplars");
        Objects.requireNonNull(question, "question");
        String userText = user.fill(Map.of(
                "schema", stripTrailing(schemaSummary),
                "exemplars", exemplarBlock(exemplars),
                "question", question.strip()));
        return List.of(ChatMessage.system(system.text()), ChatMessage.user(userText));
    }

    /** The exemplar block as it appears in the user message: empty for none, else the block and a blank line. */
    public String exemplarBlock(List<Example> examples) {
        if (examples.isEmpty()) return "";
        List<String> parts = new ArrayList<>();
        for (Example e : examples) {
            parts.add(exemplar.fill(Map.of("question", e.question().strip(), "sql", e.sql().strip())));
        }
        return exemplars.fill(Map.of("examples", String.join("\n\n", parts))) + "\n\n";
    }

    /** The inference prompt: the formatted messages, ending where the model's answer begins. */
    public String prompt(String schemaSummary, List<Example> exemplars, String question) {
        return format.format(messages(schemaSummary, exemplars, question));
    }

    /**
     * What the model writes after {@link #prompt} for this SQL: the SQL (surrounding whitespace stripped) and the
     * end of turn. In the completion format the answer starts with one space, as the {@code SQL: ...} lines of the
     * exemplars do after the prompt's closing {@code SQL:} cue.
     */
    public String answerTurn(String sql) {
        Objects.requireNonNull(sql, "sql");
        String lead = format instanceof CompletionFormat ? " " : "";
        return lead + sql.strip() + endOfTurn(format);
    }

    /** Prompt and completion for one training item. */
    public Training training(String schemaSummary, List<Example> exemplars, String question, String sql) {
        return new Training(prompt(schemaSummary, exemplars, question), answerTurn(sql));
    }

    /**
     * The text that closes an answer: {@code <|eot_id|>} for {@code llama3-chat}, {@code <|im_end|>} for
     * {@code chatml}; for {@code completion} the end-of-text token matching the format's BOS
     * ({@code <|end_of_text|>} after Llama 3's {@code <|begin_of_text|>}), or nothing when the format writes no BOS
     * (then the trainer appends its tokenizer's EOS).
     *
     * @throws IllegalArgumentException for a format Ladder does not know
     */
    public static String endOfTurn(PromptFormat format) {
        if (format instanceof Llama3ChatFormat) return Llama3ChatFormat.END_OF_TURN;
        if (format instanceof ChatMlFormat) return ChatMlFormat.IM_END;
        if (format instanceof CompletionFormat c) {
            return c.bos().equals(Llama3ChatFormat.BEGIN_OF_TEXT) ? LLAMA3_END_OF_TEXT : "";
        }
        throw new IllegalArgumentException("no end of turn known for prompt format '" + format.name() + "'");
    }

    /** Llama 3's EOS token text (base models end a document with it). */
    public static final String LLAMA3_END_OF_TEXT = "<|end_of_text|>";

    private static String stripTrailing(String s) {
        int end = s.length();
        while (end > 0 && Character.isWhitespace(s.charAt(end - 1))) end--;
        return s.substring(0, end);
    }
}
