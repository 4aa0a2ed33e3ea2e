package dev.ladder.pipeline.gsr;

import dev.ladder.inference.PromptFormat;
import dev.ladder.pipeline.prompt.PromptTemplates;
import java.util.List;
import java.util.Map;

/**
 * GSR's prompts, from its own resource folder ({@code dev/ladder/pipeline/gsr/}), each with the pipeline's system
 * instruction: {@code decompose.txt} (clauses), {@code pre-sql.txt}, {@code explore.txt} (the masked schema),
 * {@code correct.txt} (the Second-SQL), {@code refine.txt} (the Final-SQL) and {@code format-fix.txt} (an output that
 * is not SQL).
 */
final class GsrPrompts {

    static final String FOLDER = "dev/ladder/pipeline/gsr/";

    private GsrPrompts() {}


    static String hint(String hint) {
        return hint == null || hint.isBlank() ? "(none)" : hint.strip();
    }

    static String chat(PromptFormat format, String template, Map<String, String> values) {
        return PromptTemplates.chat(format, FOLDER, template, values);
    }

    static String lines(List<String> items) {
        return items.isEmpty() ? "(none)" : String.join("\n", items.stream().map(i -> "- " + i).toList());
    }
}
