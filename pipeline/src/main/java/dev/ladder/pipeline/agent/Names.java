package dev.ladder.pipeline.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** Words of identifiers and of questions, normalised the same way so that the two can be compared. */
final class Names {

    /** camelCase, PascalCase, ACRONYMWord, letter/digit boundaries, underscores, dashes and spaces. */
    private static final Pattern SPLIT = Pattern.compile(
            "(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])|[_\\s\\-$]+");

    /** Words ending in s that are already singular (or whose plural is the same). */
    private static final Set<String> SINGULAR_S = Set.of(
            "status", "series", "species", "news", "bus", "gas", "analysis", "basis", "axis", "campus",
            "bonus", "census", "virus", "corpus", "genus", "canvas", "alias", "atlas", "thesis", "always",
            "this", "its", "has", "was", "is", "does", "yes", "plus", "minus", "less", "ess");

    private Names() {}

    /** The lower-case, singular words of an identifier: {@code creditLimit} -> [credit, limit]. */
    static List<String> identifierWords(String identifier) {
        List<String> out = new ArrayList<>();
        for (String part : SPLIT.split(identifier)) {
            if (!part.isEmpty()) out.add(singular(part.toLowerCase(Locale.ROOT)));
        }
        return out;
    }

    /** The identifier's words run together: {@code product_lines} and {@code productLine} both give "productline". */
    static String key(String identifier) {
        return String.join("", identifierWords(identifier));
    }

    /** A crude English singular, applied alike to column words and question words (so it need only be consistent). */
    static String singular(String word) {
        if (word.length() <= 3 || SINGULAR_S.contains(word) || !word.endsWith("s")) return word;
        if (word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word;
        if (word.endsWith("ies") && word.length() > 4) return word.substring(0, word.length() - 3) + "y";
        if (word.endsWith("sses") || word.endsWith("xes") || word.endsWith("ches") || word.endsWith("shes")
                || word.endsWith("zes") || word.endsWith("uses")) {
            return word.substring(0, word.length() - 2);
        }
        return word.substring(0, word.length() - 1);
    }
}
