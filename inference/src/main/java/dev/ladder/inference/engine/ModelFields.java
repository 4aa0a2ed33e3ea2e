package dev.ladder.inference.engine;

/**
 * A model as an experiment file ({@code models.ID}) or a command's flags give it: the engine's name and each field's
 * value as text. Errors name where the field is written ({@code models.base.adapter} in a file, {@code --adapter} on a
 * command), so one rule of an engine reads right in both.
 */
public interface ModelFields {

    /** The engine the model names (as written: {@code auto} stays {@code auto}). */
    String engine();

    /** A field's value as text, or null when the model does not set it. */
    String get(String field);

    /** Where a field is written, for messages: {@code models.base.adapter}, {@code --adapter}; null: the model itself. */
    String where(String field);

    /** The error to throw for a field's value the engine refuses: one line naming the field and the reason. */
    RuntimeException refuse(String field, String reason);

    /** A field's value, or {@code dflt} when the model does not set it. */
    default String get(String field, String dflt) {
        String v = get(field);
        return v == null ? dflt : v;
    }

    /** Whether a field is set to something other than its default (a flag left at its default is not set). */
    default boolean sets(String field, String dflt) {
        String v = get(field);
        return v != null && !v.strip().equalsIgnoreCase(dflt);
    }
}
