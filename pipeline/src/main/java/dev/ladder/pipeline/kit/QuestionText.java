package dev.ladder.pipeline.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A question split into words, numbers, quoted values and punctuation, with lower-case and singular forms. */
public final class QuestionText {

    public enum Kind { WORD, NUMBER, VALUE, POSSESSIVE, PUNCT }

    /**
     * @param text  as written
     * @param lower lower case
     * @param norm  lower case and singular ({@link Names#singular}); numbers without thousands separators
     */
    public record Token(Kind kind, String text, String lower, String norm) {
        boolean isWord() {
            return kind == Kind.WORD;
        }

        boolean is(String word) {
            return kind == Kind.WORD && lower.equals(word);
        }

        /** A word that starts with a capital letter or is all capitals. */
        boolean capitalized() {
            return kind == Kind.WORD && Character.isUpperCase(text.charAt(0));
        }

        boolean hasDigit() {
            return text.chars().anyMatch(Character::isDigit);
        }
    }

    // possessive 's / s' first, then values (quoted, e-mail addresses, URLs), numbers (1,000.5), words, other characters
    private static final Pattern TOKEN = Pattern.compile(
            "(?<poss>(?<=\\p{L})['\u2019]s\\b|(?<=s)['\u2019](?=\\s|$))"
            + "|(?<value>(?<![\\p{L}\\p{N}])'[^']*'|\"[^\"]*\"|\u2018[^\u2019]*\u2019|\u201c[^\u201d]*\u201d"
            + "|[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+|https?://\\S+)"
            + "|(?<number>\\d+(?:,\\d{3})*(?:\\.\\d+)?(?![\\p{L}_]))"
            + "|(?<word>[\\p{L}\\p{N}_]+)"
            + "|(?<punct>\\S)");

    private final List<Token> tokens;

    private QuestionText(List<Token> tokens) {
        this.tokens = List.copyOf(tokens);
    }

    public static QuestionText of(String question) {
        String text = question.replaceAll("(?i)\\be-mail", "email");
        List<Token> out = new ArrayList<>();
        Matcher m = TOKEN.matcher(text);
        while (m.find()) {
            String t = m.group();
            if (m.group("poss") != null) {
                out.add(new Token(Kind.POSSESSIVE, t, "'s", "'s"));
            } else if (m.group("value") != null) {
                out.add(new Token(Kind.VALUE, t, t.toLowerCase(Locale.ROOT), t));
            } else if (m.group("number") != null) {
                out.add(new Token(Kind.NUMBER, t, t, t.replace(",", "")));
            } else if (m.group("word") != null) {
                String lower = t.toLowerCase(Locale.ROOT);
                out.add(new Token(Kind.WORD, t, lower, Names.singular(lower)));
            } else {
                out.add(new Token(Kind.PUNCT, t, t, t));
            }
        }
        return new QuestionText(out);
    }

    public List<Token> tokens() {
        return tokens;
    }

    int size() {
        return tokens.size();
    }

    Token at(int i) {
        return tokens.get(i);
    }

    /** Lower-case text at i, or "" outside the question (so look-ahead and look-behind need no bounds checks). */
    String lower(int i) {
        return i >= 0 && i < tokens.size() ? tokens.get(i).lower() : "";
    }

    Kind kind(int i) {
        return i >= 0 && i < tokens.size() ? tokens.get(i).kind() : Kind.PUNCT;
    }

    boolean is(int i, String word) {
        return i >= 0 && i < tokens.size() && tokens.get(i).is(word);
    }

    /** True at a clause boundary: outside the question or on punctuation other than an apostrophe or hyphen. */
    boolean boundary(int i) {
        if (i < 0 || i >= tokens.size()) return true;
        Token t = tokens.get(i);
        return t.kind() == Kind.PUNCT && !t.text().equals("-") && !t.text().equals("'");
    }

    /** A capitalised word that is not the first word of a sentence (a proper name such as Paris or EMEA). */
    boolean properName(int i) {
        if (i <= 0 || i >= tokens.size() || !tokens.get(i).capitalized()) return false;
        Token prev = tokens.get(i - 1);
        if (prev.kind() == Kind.PUNCT && (prev.text().equals(".") || prev.text().equals("?")
                || prev.text().equals("!") || prev.text().equals(":"))) {
            return false;
        }
        return !tokens.get(i).text().equals("I");
    }
}
