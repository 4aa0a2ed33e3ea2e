package dev.ladder.pipeline.kit;

import dev.ladder.pipeline.kit.QuestionText.Token;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The intent rules' word knowledge as code outside this package reads it (the leak check, docs/agent.md "Generality and
 * leak check"): the word lists of {@code intent-lexicon.txt}, and the words of a text as the intent rules see them.
 */
public final class QuestionWords {

    /**
     * One word of a text.
     *
     * @param lower lower case, as most rules compare it
     * @param norm  lower case and singular ({@link Names#singular}), as the noun lists are written
     */
    public record Word(String lower, String norm) {}

    private QuestionWords() {}

    /** The class-path resource the intent rules read their word lists from. */
    public static String lexiconResource() {
        return Lexicon.RESOURCE;
    }

    /** The intent rules' word lists, by name, in file order. */
    public static Map<String, Set<String>> lexicon() {
        return Lexicon.get().lists();
    }

    /** Word lists in the lexicon's format ({@code name: word word ...}); closes {@code in}. */
    public static Map<String, Set<String>> readLexicon(InputStream in, String where) {
        return Lexicon.parse(in, where);
    }

    /**
     * The words and numbers of {@code text}, tokenised as questions are ({@link QuestionText}): possessives and
     * punctuation are left out, a quoted value or e-mail address gives the words inside it.
     */
    public static List<Word> words(String text) {
        List<Word> out = new ArrayList<>();
        for (Token t : QuestionText.of(text).tokens()) {
            switch (t.kind()) {
                case WORD -> out.add(new Word(t.lower(), t.norm()));
                case NUMBER -> out.add(new Word(t.norm(), t.norm()));
                case VALUE -> {
                    // a quoted value loses its quotes, an address its @ and slashes (so this ends)
                    String inner = t.text();
                    if ("'\"\u2018\u201c".indexOf(inner.charAt(0)) >= 0) inner = inner.substring(1, inner.length() - 1);
                    out.addAll(words(inner.replaceAll("[^\\p{L}\\p{N}'\u2019,.]+", " ")));
                }
                case POSSESSIVE, PUNCT -> { }
            }
        }
        return out;
    }
}
