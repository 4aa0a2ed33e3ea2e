package dev.ladder.pipeline.prompt;

import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.PromptFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prompt texts by name: {@code load("user")} reads the class-path resource
 * {@code dev/ladder/pipeline/prompt/user.txt} (UTF-8). The file's final line break(s) are not part of the
 * template, so an editor that adds one changes nothing; everything else, including blank lines inside, is kept
 * byte for byte. Templates are read once per JVM.
 */
public final class PromptTemplates {

    /** Class-path folder of the prompt resources. */
    public static final String FOLDER = "dev/ladder/pipeline/prompt/";

    private static final Map<String, PromptTemplate> CACHE = new ConcurrentHashMap<>();

    private PromptTemplates() {}

    /**
     * @param name a resource name without folder and {@code .txt}, e.g. {@code system}
     * @throws IllegalArgumentException naming the resource when there is none by that name
     */
    public static PromptTemplate load(String name) {
        return load(FOLDER, name);
    }

    /**
     * A template from a pipeline's own folder: {@code load("dev/ladder/pipeline/search/", "sketch")} reads
     * {@code dev/ladder/pipeline/search/sketch.txt}.
     *
     * @param folder a class-path folder ending in {@code /}
     */
    public static PromptTemplate load(String folder, String name) {
        Objects.requireNonNull(folder, "folder");
        Objects.requireNonNull(name, "name");
        return CACHE.computeIfAbsent(folder + name, key -> read(folder, name));
    }

    /**
     * A pipeline's chat prompt: its folder's {@code system.txt} as the system message, the filled {@code template} as
     * the user message, formatted for the model.
     */
    public static String chat(PromptFormat format, String folder, String template,
                              Map<String, String> values) {
        String user = load(folder, template).fill(values);
        return format.format(List.of(ChatMessage.system(load(folder, "system").text()),
                ChatMessage.user(user)));
    }

    private static PromptTemplate read(String folder, String name) {
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("bad prompt template name '" + name + "' (letters, digits, - and _ only)");
        }
        String resource = folder + name + ".txt";
        try (InputStream in = PromptTemplates.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no prompt template '" + name + "': resource " + resource
                        + " is not on the class path");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\r\n", "\n");
            int end = text.length();
            while (end > 0 && text.charAt(end - 1) == '\n') end--;
            return new PromptTemplate(name, text.substring(0, end));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read prompt template " + resource, e);
        }
    }
}
