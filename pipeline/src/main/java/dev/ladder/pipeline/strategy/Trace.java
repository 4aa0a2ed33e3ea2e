package dev.ladder.pipeline.strategy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How a strategy reached its answer: every model call, every candidate's cleaning, clamping, projection, execution
 * and score, repair attempts, and the decision.
 *
 * @param questionId      {@link Question#id()}
 * @param strategy        the strategy's name
 * @param sql             the final SQL ({@code ""} when none)
 * @param chosen          the candidate the final SQL comes from ({@code standard}, {@code tabular}, {@code sample-2},
 *                        {@code repair}, {@code fallback}), or {@code none}
 * @param decision        the rule that chose it, in words
 * @param promptTokens    prompt tokens over all model calls
 * @param generatedTokens generated tokens over all model calls
 * @param millis          wall time of the whole answer
 * @param steps           in the order they happened
 * @param engineEvents    what the engine did on the way that is not part of the answer (retries after a server's 429,
 *                        a dropped connection), or null for nothing
 */
public record Trace(String questionId, String strategy, String sql, String chosen, String decision, int promptTokens,
                    int generatedTokens, long millis, List<TraceStep> steps, List<String> engineEvents) {

    private static final ObjectMapper JSON = StableJson.mapper().setSerializationInclusion(JsonInclude.Include.NON_NULL);

    public Trace {
        Objects.requireNonNull(questionId, "questionId");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(sql, "sql");
        steps = List.copyOf(steps);
        // none is left out of the JSON: a trace without engine events reads as it always did
        engineEvents = engineEvents == null || engineEvents.isEmpty() ? null : List.copyOf(engineEvents);
    }

    public Trace(String questionId, String strategy, String sql, String chosen, String decision, int promptTokens,
                 int generatedTokens, long millis, List<TraceStep> steps) {
        this(questionId, strategy, sql, chosen, decision, promptTokens, generatedTokens, millis, steps, null);
    }

    /** This trace with the engine's events added after its own. */
    public Trace withEngineEvents(List<String> events) {
        if (events.isEmpty()) return this;
        List<String> all = new ArrayList<>(engineEvents == null ? List.of() : engineEvents);
        all.addAll(events);
        return new Trace(questionId, strategy, sql, chosen, decision, promptTokens, generatedTokens, millis, steps, all);
    }

    /** The steps of one kind, in order. */
    public <T extends TraceStep> List<T> steps(Class<T> kind) {
        return steps.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    /** One JSON object on one line (no line break inside; null fields left out). */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads {@link #toJson()} back. */
    public static Trace fromJson(String json) {
        try {
            return JSON.readValue(json, Trace.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A readable, multi-line account (ends with a line break). */
    public String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append("question ").append(questionId).append(", strategy ").append(strategy).append('\n');
        for (TraceStep s : steps) {
            String src = s.source() == null ? "" : " " + s.source();
            if (s instanceof TraceStep.Generate g) {
                sb.append("  generate").append(src).append(": ").append(g.sampling()).append(", ")
                        .append(g.outputs().size()).append(g.outputs().size() == 1 ? " output" : " outputs")
                        .append(", prompt ").append(g.promptTokens()).append(" tokens, generated ")
                        .append(g.generatedTokens()).append(" tokens, prefill ").append(g.prefillMillis())
                        .append(" ms, decode ").append(g.decodeMillis()).append(" ms");
                if (!g.stopStrings().isEmpty()) {
                    sb.append(", stops ").append(String.join(" ", g.stopStrings().stream().map(Trace::quoted).toList()));
                }
                sb.append('\n');
                for (int i = 0; i < g.outputs().size(); i++) {
                    sb.append("    ").append(g.sources().get(i)).append(" (").append(g.finishReasons().get(i))
                            .append("): ").append(oneLine(g.outputs().get(i))).append('\n');
                }
                for (String note : g.notes()) sb.append("    noise ").append(oneLine(note)).append('\n');
            } else if (s instanceof TraceStep.Clean c) {
                sb.append("  clean").append(src).append(": ");
                if (c.sql() == null) sb.append("rejected: ").append(c.rejection());
                else sb.append(oneLine(c.sql()));
                if (!c.steps().isEmpty()) sb.append("  [").append(String.join(", ", c.steps())).append(']');
                sb.append('\n');
            } else if (s instanceof TraceStep.Intent i) {
                sb.append("  intent: ").append(i.intent());
                if (i.wantsOrder()) sb.append(", order");
                if (i.wantsLimit()) sb.append(", limit").append(i.limitN() == null ? "" : " " + i.limitN());
                if (i.wantsDistinct()) sb.append(", distinct");
                if (i.wantsGrouping()) sb.append(", grouping");
                if (!i.namedFields().isEmpty()) sb.append(", fields ").append(i.namedFields());
                sb.append('\n');
            } else if (s instanceof TraceStep.Clamp c) {
                sb.append("  clamp").append(src).append(": ");
                sb.append(c.applied().isEmpty() ? "nothing to clamp" : String.join(", ", c.applied()) + " -> " + oneLine(c.after()));
                sb.append('\n');
            } else if (s instanceof TraceStep.Project p) {
                sb.append("  project").append(src).append(": ");
                sb.append(p.applied().isEmpty() ? "projection kept" : String.join(", ", p.applied()) + " -> " + oneLine(p.after()));
                sb.append('\n');
            } else if (s instanceof TraceStep.Execute e) {
                sb.append("  execute").append(src).append(": ");
                if (e.ok()) sb.append("ok, ").append(e.rows()).append(e.rows() == 1 ? " row" : " rows").append(e.truncated() ? " (truncated)" : "");
                else sb.append(e.errorKind()).append(": ").append(oneLine(e.errorMessage()));
                sb.append(e.cached() ? ", same SQL as before" : ", " + e.millis() + " ms").append('\n');
            } else if (s instanceof TraceStep.Score sc) {
                sb.append("  score").append(src).append(": ").append(String.format(Locale.ROOT, "%.3f", sc.total()))
                        .append(sc.passesIntentGate() ? ", passes the intent gate" : ", fails the intent gate");
                if (!sc.parts().isEmpty()) sb.append(' ').append(parts(sc.parts()));
                if (!sc.reasons().isEmpty()) sb.append("; ").append(String.join("; ", sc.reasons()));
                sb.append('\n');
            } else if (s instanceof TraceStep.Keep k) {
                sb.append("  keep").append(src).append(": ").append(k.form());
                if (k.reason() != null && !k.reason().isEmpty()) sb.append(" (").append(k.reason()).append(')');
                sb.append('\n');
            } else if (s instanceof TraceStep.Subset sub) {
                sb.append("  subset: ").append(String.join(", ", sub.tables()));
                if (!sub.joinHints().isEmpty()) sb.append("; joins ").append(String.join("; ", sub.joinHints()));
                sb.append('\n');
            } else if (s instanceof TraceStep.Stage st) {
                sb.append("  ").append(st.stage()).append(src).append(": ").append(oneLine(st.summary())).append('\n');
            } else if (s instanceof TraceStep.Repair r) {
                sb.append("  repair").append(src).append(": ").append(oneLine(r.failedSql())).append("  <- ")
                        .append(oneLine(r.error())).append('\n');
            }
        }
        sb.append("answer (").append(chosen).append(", ").append(decision).append("): ")
                .append(sql.isEmpty() ? "(none)" : oneLine(sql)).append('\n');
        sb.append("tokens: prompt ").append(promptTokens).append(", generated ").append(generatedTokens)
                .append("; ").append(millis).append(" ms\n");
        return sb.toString();
    }

    private static String parts(Map<String, Double> parts) {
        List<String> out = new ArrayList<>();
        parts.forEach((k, v) -> out.add(k + "=" + String.format(Locale.ROOT, "%.2f", v)));
        return "(" + String.join(" ", out) + ")";
    }

    /** A stop string in quotes, its line breaks and other control characters escaped. */
    private static String quoted(String stop) {
        return "\"" + escaped(stop.replace("\n", "\\n")) + "\"";
    }

    /** One line, control characters escaped (raw model output can hold anything), long texts shortened. */
    private static String oneLine(String s) {
        if (s == null) return "";
        String out = escaped(s.strip().replaceAll("\\s*\\R\\s*", " "));
        return out.length() > 600 ? out.substring(0, 600) + " ... (" + out.length() + " chars)" : out;
    }

    /** Control and unassigned characters as Java-style unicode escapes. */
    private static String escaped(String line) {
        StringBuilder out = new StringBuilder();
        line.codePoints().forEach(c -> {
            if (Character.isISOControl(c) || Character.getType(c) == Character.UNASSIGNED) {
                out.append(String.format(Locale.ROOT, "\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    /** Collects steps while a strategy works; {@link #build} seals them. */
    public static final class Builder {
        private final String questionId;
        private final String strategy;
        private final long startNanos = System.nanoTime();
        private final List<TraceStep> steps = new ArrayList<>();

        public Builder(String questionId, String strategy) {
            this.questionId = questionId;
            this.strategy = strategy;
        }

        public Builder add(TraceStep step) {
            steps.add(Objects.requireNonNull(step, "step"));
            return this;
        }

        public List<TraceStep> steps() {
            return List.copyOf(steps);
        }

        public Trace build(String sql, String chosen, String decision) {
            int prompt = 0;
            int generated = 0;
            for (TraceStep s : steps) {
                if (s instanceof TraceStep.Generate g) {
                    prompt += g.promptTokens();
                    generated += g.generatedTokens();
                }
            }
            long millis = (System.nanoTime() - startNanos) / 1_000_000;
            return new Trace(questionId, strategy, sql, chosen, decision, prompt, generated, millis, steps);
        }
    }
}
