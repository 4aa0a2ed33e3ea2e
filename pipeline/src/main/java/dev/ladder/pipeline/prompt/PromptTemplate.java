package dev.ladder.pipeline.prompt;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A prompt text with {@code {{name}}} placeholders (name: lower-case letters, digits, underscore).
 *
 * @param name the resource name it was loaded under (for error messages), e.g. {@code user}
 * @param text the template text
 */
public record PromptTemplate(String name, String text) {

    static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z0-9_]+)}}");

    public PromptTemplate {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(text, "text");
    }

    /** The placeholder names in order of first appearance. */
    public Set<String> placeholders() {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) out.add(m.group(1));
        return out;
    }

    /**
     * The text with every placeholder replaced by its value, in one pass: a value is inserted as it is and never
     * scanned for placeholders itself (a question may contain braces).
     *
     * @throws IllegalArgumentException naming the template and the placeholder when a placeholder has no value, or
     *                                  a value names no placeholder of this template (a typo would otherwise vanish)
     */
    public String fill(Map<String, String> values) {
        Objects.requireNonNull(values, "values");
        Set<String> wanted = placeholders();
        for (String key : values.keySet()) {
            if (!wanted.contains(key)) {
                throw new IllegalArgumentException("prompt template '" + name + "' has no placeholder {{" + key
                        + "}} (it has " + wanted.stream().map(p -> "{{" + p + "}}").toList() + ")");
            }
        }
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder(text.length() + 256);
        int last = 0;
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("prompt template '" + name + "': no value for placeholder {{"
                        + m.group(1) + "}}");
            }
            out.append(text, last, m.start()).append(value);
            last = m.end();
        }
        return out.append(text, last, text.length()).toString();
    }
}
