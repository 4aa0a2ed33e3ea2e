package dev.ladder.pipeline.prompt;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The k pool examples most similar to the question: TF-IDF weighted cosine over lower-case word
 * tokens (stop words dropped, a plural "s" stripped). Ties are broken by a seeded random order of
 * the pool, so the same seed always gives the same exemplars.
 */
public final class SimilarExemplars implements ExemplarSelector {

    private static final Set<String> STOP_WORDS = Set.of("a", "an", "the", "of", "for", "to", "in", "on", "and", "or",
            "is", "are", "was", "were", "be", "by", "with", "what", "which", "who", "whom", "how", "many", "much",
            "list", "show", "give", "me", "all", "each", "every", "that", "this", "their", "its", "do", "does", "did",
            "have", "has", "there", "from", "as", "at", "it", "any");

    private final List<Example> pool;
    private final List<Map<String, Double>> vectors = new ArrayList<>();
    private final Map<String, Double> idf = new HashMap<>();
    private final int[] tieRank;

    public SimilarExemplars(List<Example> pool, long seed) {
        this.pool = List.copyOf(pool);
        Map<String, Integer> df = new HashMap<>();
        List<Map<String, Integer>> counts = new ArrayList<>();
        for (Example e : this.pool) {
            Map<String, Integer> tf = termCounts(e.question());
            counts.add(tf);
            tf.keySet().forEach(t -> df.merge(t, 1, Integer::sum));
        }
        int n = this.pool.size();
        df.forEach((t, d) -> idf.put(t, Math.log((1.0 + n) / (1.0 + d)) + 1.0));
        for (Map<String, Integer> tf : counts) vectors.add(weigh(tf));
        // seeded permutation: position in it breaks ties between equally similar examples
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) order.add(i);
        Collections.shuffle(order, new Random(seed));
        tieRank = new int[n];
        for (int i = 0; i < n; i++) tieRank[order.get(i)] = i;
    }

    @Override
    public List<Example> select(String question, int k) {
        Map<String, Double> q = weigh(termCounts(question));
        List<Integer> candidates = new ArrayList<>();
        double[] score = new double[pool.size()];
        for (int i = 0; i < pool.size(); i++) {
            if (pool.get(i).question().equals(question)) continue;
            score[i] = cosine(q, vectors.get(i));
            candidates.add(i);
        }
        candidates.sort(Comparator.<Integer>comparingDouble(i -> -score[i]).thenComparingInt(i -> tieRank[i]));
        return candidates.stream().limit(k).map(pool::get).toList();
    }

    static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        for (String w : text.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
            if (w.isEmpty() || STOP_WORDS.contains(w)) continue;
            out.add(w.length() > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.substring(0, w.length() - 1) : w);
        }
        return out;
    }

    private static Map<String, Integer> termCounts(String text) {
        Map<String, Integer> tf = new HashMap<>();
        for (String t : tokens(text)) tf.merge(t, 1, Integer::sum);
        return tf;
    }

    private Map<String, Double> weigh(Map<String, Integer> tf) {
        Map<String, Double> v = new HashMap<>();
        // words unseen in the pool weigh like the rarest pool word; they match nothing anyway
        double unseen = Math.log((1.0 + pool.size()) / 1.0) + 1.0;
        tf.forEach((t, c) -> v.put(t, c * idf.getOrDefault(t, unseen)));
        return v;
    }

    private static double cosine(Map<String, Double> a, Map<String, Double> b) {
        double dot = 0;
        for (Map.Entry<String, Double> e : a.entrySet()) dot += e.getValue() * b.getOrDefault(e.getKey(), 0.0);
        double na = Math.sqrt(a.values().stream().mapToDouble(x -> x * x).sum());
        double nb = Math.sqrt(b.values().stream().mapToDouble(x -> x * x).sum());
        return na == 0 || nb == 0 ? 0 : dot / (na * nb);
    }
}
