package dev.ladder.pipeline.kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The word lists of {@code intent-lexicon.txt}: cue words are data, the rules around them are code. */
public final class Lexicon {

    static final String RESOURCE = "dev/ladder/pipeline/kit/intent-lexicon.txt";
    private static final Lexicon INSTANCE = load();

    private final Map<String, Set<String>> lists;
    private final List<String> numberWords;

    private Lexicon(Map<String, Set<String>> lists) {
        this.lists = lists;
        this.numberWords = List.copyOf(list("number"));
    }

    public static Lexicon get() {
        return INSTANCE;
    }

    /** The named list; a missing name is a programming error, so it fails loudly. */
    public Set<String> list(String name) {
        Set<String> words = lists.get(name);
        if (words == null) throw new IllegalArgumentException("no word list '" + name + "' in " + RESOURCE);
        return words;
    }

    public boolean in(String name, String word) {
        return list(name).contains(word);
    }

    /** 1..20 for "one".."twenty", else null. */
    public Integer numberWord(String word) {
        int i = numberWords.indexOf(word);
        return i < 0 ? null : i + 1;
    }

    /** The lists by name, for {@link QuestionWords}. */
    Map<String, Set<String>> lists() {
        return lists;
    }

    private static Lexicon load() {
        InputStream in = Lexicon.class.getClassLoader().getResourceAsStream(RESOURCE);
        if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
        return new Lexicon(parse(in, RESOURCE));
    }

    /** Lines {@code name: word word ...}; blank lines and {@code #} comments are skipped. Closes {@code in}. */
    static Map<String, Set<String>> parse(InputStream in, String where) {
        Map<String, Set<String>> lists = new LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) continue;
                int colon = line.indexOf(':');
                if (colon < 0) throw new IllegalStateException("bad line in " + where + ": " + line);
                Set<String> words = new LinkedHashSet<>(Arrays.asList(line.substring(colon + 1).strip().split("\\s+")));
                lists.put(line.substring(0, colon).strip(), Collections.unmodifiableSet(words));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Collections.unmodifiableMap(lists);
    }
}
