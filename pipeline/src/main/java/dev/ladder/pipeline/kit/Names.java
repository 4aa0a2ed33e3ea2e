package dev.ladder.pipeline.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The one normalisation of words the pipelines compare: identifier parts and question words are split, lower-cased and
 * folded by the same rules ({@link #parts}, {@link #singular}, {@link #stem}), so the two sides always agree.
 */
public final class Names {

    /** camelCase, PascalCase, ACRONYMWord and letter/digit boundaries inside an alphanumeric run. */
    private static final Pattern CAMEL = Pattern.compile(
            "(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])");

    /** Words ending in s that are already singular (or whose plural is the same). */
    private static final Set<String> SINGULAR_S = Set.of(
            "status", "series", "species", "news", "bus", "gas", "analysis", "basis", "axis", "campus",
            "bonus", "census", "virus", "corpus", "genus", "canvas", "alias", "atlas", "thesis", "always",
            "this", "its", "has", "was", "is", "does", "yes", "plus", "minus", "less", "ess");

    /** Irregular plurals; regular ones are handled by {@link #singular}. */
    private static final Map<String, String> IRREGULAR = Map.of(
            "people", "person", "children", "child", "men", "man", "women", "woman", "mice", "mouse");

    /** General English function words (and request verbs): never content words of a question or identifier. */
    public static final Set<String> STOPWORDS = Set.of(
            "a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "into", "onto", "about",
            "and", "or", "but", "nor", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does",
            "did", "has", "have", "had", "having", "what", "which", "who", "whom", "whose", "where", "when",
            "why", "how", "many", "much", "list", "show", "give", "find", "display", "return", "get", "tell",
            "me", "my", "i", "we", "us", "our", "you", "your", "they", "them", "their", "it", "its", "he", "she",
            "his", "her", "him", "this", "that", "these", "those", "there", "here", "each", "every", "all",
            "any", "some", "per", "please", "as", "than", "then", "so", "such", "only", "also", "both", "either",
            "neither", "same", "other", "another", "very", "can", "could", "would", "should", "will", "shall",
            "may", "might", "must", "if", "whether", "not", "no", "yet", "just", "among", "between", "across",
            "within", "without", "over", "under", "after", "before", "during", "since", "until", "again",
            "ever", "never", "whole", "together", "along", "via", "one", "once");

    private Names() {}

    /**
     * Lower-cased pieces of an identifier at non-alphanumeric, camelCase and letter/digit boundaries:
     * {@code salesRepEmployeeNumber} -> sales, rep, employee, number; {@code order_details} -> order, details.
     */
    public static List<String> parts(String identifier) {
        List<String> out = new ArrayList<>();
        for (String chunk : identifier.split("[^\\p{L}\\p{N}]+")) {
            for (String p : CAMEL.split(chunk)) if (!p.isEmpty()) out.add(p.toLowerCase(Locale.ROOT));
        }
        return out;
    }

    /** The lower-case, singular words of an identifier: {@code creditLimit} -> [credit, limit]. */
    public static List<String> identifierWords(String identifier) {
        return parts(identifier).stream().map(Names::singular).toList();
    }

    /** The identifier's words run together: {@code product_lines} and {@code productLine} both give "productline". */
    static String key(String identifier) {
        return String.join("", identifierWords(identifier));
    }

    /**
     * A crude English singular of a lower-case word, applied alike to identifier words and question words (so it need
     * only be consistent): -ies and -ie become -y (categories, category; movies, movie), -sses, -xes, -ches, -shes and
     * the -uses of a listed singular (buses, statuses) lose -es, any other final -s goes unless the word ends in -ss,
     * -us or -is or is listed as singular (sizes, size; clauses, clause).
     * Words of three letters or fewer are left alone.
     */
    static String singular(String word) {
        int n = word.length();
        if (n <= 3 || SINGULAR_S.contains(word)) return word;
        if (word.endsWith("ies") && n > 4) return word.substring(0, n - 3) + "y";
        if (word.endsWith("ie")) return word.substring(0, n - 2) + "y";
        if (!word.endsWith("s") || word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word;
        // -uses only for words listed as singular in -us (buses, statuses; not clauses, causes); -zes keeps its e (sizes)
        if (word.endsWith("sses") || word.endsWith("xes") || word.endsWith("ches") || word.endsWith("shes")
                || word.endsWith("uses") && SINGULAR_S.contains(word.substring(0, n - 2))) {
            return word.substring(0, n - 2);
        }
        return word.substring(0, n - 1);
    }

    /**
     * Folds inflections so that both sides of a comparison agree (it is not a linguistic stemmer: what matters is
     * that a question word and an identifier part fold alike). Irregular plurals by table, then {@link #singular};
     * -ied becomes -y; then -ed and -ing go when three letters remain (ordered, order; shipping, ship: a doubled final
     * consonant other than l, s, z is undoubled), and a final -e goes from words of five letters or more, not after
     * another e (priced, price -> pric; employee stays). Words of three letters or fewer are left alone.
     */
    public static String stem(String word) {
        String w = word.toLowerCase(Locale.ROOT);
        String irregular = IRREGULAR.get(w);
        if (irregular != null) return irregular;
        if (w.length() <= 3) return w;
        w = singular(w);
        int n = w.length();
        String base = null;
        if (w.endsWith("ied") && n > 4) return w.substring(0, n - 3) + "y";
        if (w.endsWith("ed") && !w.endsWith("eed") && n - 2 >= 3) base = w.substring(0, n - 2);
        else if (w.endsWith("ing") && n - 3 >= 3) base = w.substring(0, n - 3);
        if (base != null) {
            int b = base.length();
            char last = base.charAt(b - 1);
            if (b >= 4 && last == base.charAt(b - 2) && "aeiouylsz".indexOf(last) < 0) base = base.substring(0, b - 1);
            w = base;
        }
        n = w.length();
        if (n >= 5 && w.endsWith("e") && !w.endsWith("ee")) w = w.substring(0, n - 1);
        return w;
    }
}
