package dev.ladder.pipeline.strategy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The closed range a numeric component of a settings record must lie in, checked where a file is read
 * ({@link SettingsBlock#read}); every numeric component of a block carries one. The maxima come from
 * {@link SettingBounds}, which says why each is what it is.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Bounded {
    /** The smallest value allowed. */
    double min();

    /** The largest value allowed (a constant of {@link SettingBounds}). */
    double max();
}
