package dev.ladder.pipeline.strategy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The YAML key of a settings record's component when it is not the component's name in snake case
 * ({@code highConfidence} read as {@code high_confidence_threshold}). See {@link SettingsBlock}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Knob {
    /** The key in experiment files. */
    String value();
}
