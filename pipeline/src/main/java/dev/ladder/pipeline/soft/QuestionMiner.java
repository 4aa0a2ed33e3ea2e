package dev.ladder.pipeline.soft;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import opennlp.tools.postag.POSModel;
import opennlp.tools.postag.POSTaggerME;
import opennlp.tools.tokenize.TokenizerME;
import opennlp.tools.tokenize.TokenizerModel;

/**
 * Stage 1: the entities and relations of a question, mined with Apache OpenNLP (Apache-2.0) and its Universal
 * Dependencies English models (tokenizer and part-of-speech tagger, Apache-2.0, from Maven Central; they run offline).
 *
 * <p>What replaces the original's pieces: OpenNLP has no offline English named-entity or dependency model under an
 * Apache-compatible licence on Maven Central, so
 * <ul>
 *   <li><b>entities</b> are noun phrases read from the tags: maximal runs of adjectives, nouns, proper nouns and
 *   numbers that end in a noun, proper noun or number; quoted strings are entities as they stand;</li>
 *   <li><b>relations</b> (the original's subject/object dependency pairs) are pairs of consecutive noun phrases joined
 *   by a verb, auxiliary or preposition only ("customers <i>who placed</i> orders", "orders <i>of</i> customers").</li>
 * </ul>
 * Thread-safe: the models are shared; each call makes its own tagger.
 */
public final class QuestionMiner {

    /** The model files inside the {@code opennlp-models-*-en} 1.3.0 jars. */
    static final String TOKENIZER = "/opennlp-en-ud-ewt-tokens-1.3-2.5.4.bin";
    static final String TAGGER = "/opennlp-en-ud-ewt-pos-1.3-2.5.4.bin";

    private static final Pattern QUOTED = Pattern.compile("[\"'‘’“”]([^\"'‘’“”]{1,80})[\"'‘’“”]");

    /**
     * What the question yields.
     *
     * @param tokens    the tokens with their universal part-of-speech tags ({@code word/TAG})
     * @param entities  noun phrases and quoted strings, in order
     * @param relations pairs of noun phrases joined by a verb or preposition
     */
    public record Mined(List<String> tokens, List<String> entities, List<Relation> relations) {}

    /** Two noun phrases and what joins them. */
    public record Relation(String left, String via, String right) {}

    private static TokenizerModel tokenizerModel;
    private static POSModel taggerModel;

    private QuestionMiner() {}

    private static synchronized void load() {
        if (taggerModel != null) return;
        try (InputStream tok = QuestionMiner.class.getResourceAsStream(TOKENIZER);
             InputStream pos = QuestionMiner.class.getResourceAsStream(TAGGER)) {
            if (tok == null || pos == null) {
                throw new IllegalStateException("the OpenNLP English models are not on the class path "
                        + "(org.apache.opennlp:opennlp-models-tokenizer-en and -pos-en 1.3.0)");
            }
            tokenizerModel = new TokenizerModel(tok);
            taggerModel = new POSModel(pos);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the OpenNLP models: " + e.getMessage(), e);
        }
    }

    public static Mined mine(String question) {
        load();
        String[] tokens = new TokenizerME(tokenizerModel).tokenize(question);
        String[] tags = new POSTaggerME(taggerModel).tag(tokens);
        List<String> tagged = new ArrayList<>();
        for (int i = 0; i < tokens.length; i++) tagged.add(tokens[i] + "/" + tags[i]);

        Set<String> entities = new LinkedHashSet<>();
        Matcher q = QUOTED.matcher(question);
        while (q.find()) entities.add(q.group(1).strip());
        // noun phrases as token spans [start, end)
        List<int[]> phrases = new ArrayList<>();
        int i = 0;
        while (i < tokens.length) {
            if (!modifier(tags[i]) && !head(tags[i])) {
                i++;
                continue;
            }
            int start = i;
            int lastHead = -1;
            while (i < tokens.length && (modifier(tags[i]) || head(tags[i]))) {
                if (head(tags[i])) lastHead = i;
                i++;
            }
            if (lastHead >= 0) phrases.add(new int[] {start, lastHead + 1});
        }
        for (int[] p : phrases) entities.add(text(tokens, p));
        List<Relation> relations = new ArrayList<>();
        for (int k = 0; k + 1 < phrases.size(); k++) {
            int[] a = phrases.get(k);
            int[] b = phrases.get(k + 1);
            List<String> between = new ArrayList<>();
            boolean linking = b[0] > a[1];
            for (int t = a[1]; t < b[0]; t++) {
                if (!link(tags[t])) {
                    linking = false;
                    break;
                }
                between.add(tokens[t]);
            }
            if (linking) relations.add(new Relation(text(tokens, a), String.join(" ", between), text(tokens, b)));
        }
        return new Mined(tagged, List.copyOf(entities), relations);
    }

    private static String text(String[] tokens, int[] span) {
        return String.join(" ", Arrays.asList(tokens).subList(span[0], span[1]));
    }

    private static boolean head(String tag) {
        return tag.equals("NOUN") || tag.equals("PROPN") || tag.equals("NUM");
    }

    private static boolean modifier(String tag) {
        return tag.equals("ADJ");
    }

    /** What may stand between the two phrases of a relation: verbs, auxiliaries, prepositions, particles, pronouns. */
    private static boolean link(String tag) {
        return tag.equals("VERB") || tag.equals("AUX") || tag.equals("ADP") || tag.equals("PART") || tag.equals("PRON")
                || tag.equals("SCONJ");
    }
}
