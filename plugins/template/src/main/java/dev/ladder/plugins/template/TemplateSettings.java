package dev.ladder.plugins.template;

import dev.ladder.pipeline.strategy.SettingsBlock;

/**
 * The template's knobs: the {@code template} block of experiment files ({@code settings: {template: {check: false}}}).
 * A number added here carries its range ({@code @Bounded}, a maximum from {@code SettingBounds}); the record's
 * constructor checks what a range cannot say. Each switch is a mechanism an ablation turns off.
 *
 * @param check on: the answer is executed before it is returned, and an answer that does not execute is recorded in
 *              the error analysis; off: the cleaned reply is the answer (the ablation of the check)
 * @param hint  on: the prompt's question ends with the package's {@code hint.txt}; off: the standard prompt
 */
public record TemplateSettings(boolean check, boolean hint) {

    public static final TemplateSettings DEFAULT = new TemplateSettings(true, false);

    /** The block with its defaults: experiment files name it {@code template}, and rung comparisons list its keys. */
    public static final SettingsBlock<TemplateSettings> BLOCK = SettingsBlock.of("template", TemplateSettings.class, DEFAULT);
}
