package dev.ladder.pipeline.search;

import java.util.List;
import java.util.Map;

/**
 * One SQL candidate of the sketch call.
 *
 * @param source       its name in the trace ({@code sketch-1} ...)
 * @param written      the SQL as the model wrote it, placeholders included
 * @param sql          the SQL with the placeholders the model gave values for bound ({@link Placeholders#bind})
 * @param declared     the entities the model declared for it (channel one of the entity extraction)
 * @param placeholders lower-case placeholder name -> value as given (null: the model did not know)
 * @param notes        the model's note on what the candidate assumes (may be null)
 */
public record Sketch(String source, String written, String sql, Entities declared, Map<String, String> placeholders,
                     String notes) {

    /** Placeholders left in {@link #sql}. */
    public List<String> unbound() {
        return Placeholders.names(sql);
    }
}
