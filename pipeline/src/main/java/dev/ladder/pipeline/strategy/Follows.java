package dev.ladder.pipeline.strategy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A pipeline setting that is a shared knob unless the block overrides it: the component ({@code Integer} or
 * {@code Double}) is null where the block leaves it to the rung, and {@link Settings#of} hands the strategy the rung's
 * value of the knob named here ({@code max_new_tokens}, {@code sample_temperature}). Files and the resolved config
 * write the knob's name for "the rung's" and a number for an override. See {@link SettingsBlock}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Follows {
    /** The shared knob's key ({@link SharedKnobs}). */
    String value();
}
