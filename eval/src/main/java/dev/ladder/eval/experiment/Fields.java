package dev.ladder.eval.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.pipeline.strategy.Bound;
import dev.ladder.pipeline.strategy.KnobSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * Typed reads of one YAML mapping of an experiment file; every failure is an {@link ExperimentException} naming the
 * field's full path. A key set to {@code null} reads as absent (its default).
 */
final class Fields implements KnobSource {

    final String source;
    final String path;
    private final ObjectNode node;

    private Fields(String source, String path, ObjectNode node) {
        this.source = source;
        this.path = path;
        this.node = node;
    }

    /** The mapping at {@code path}; anything else is an error. */
    static Fields of(String source, String path, JsonNode n) {
        if (n instanceof ObjectNode o) return new Fields(source, path, o);
        throw new ExperimentException(source, path.isEmpty() ? "top level" : path,
                "expected a mapping of 'key: value' lines, got " + describe(n));
    }

    String field(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    ExperimentException error(String field, String problem) {
        return new ExperimentException(source, field, problem);
    }

    /** A problem at {@code key} of this mapping, or at the mapping itself when key is null. */
    @Override
    public ExperimentException problem(String key, String problem) {
        return error(key == null ? (path.isEmpty() ? "top level" : path) : field(key), problem);
    }

    /** Rejects keys outside {@code known}, suggesting the nearest known one (a typo must not be ignored). */
    void allowOnly(List<String> known) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                String near = nearest(key, known);
                throw error(field(key), "unknown field" + (near == null ? "" : " (did you mean '" + near + "'?)")
                        + "; known fields here: " + String.join(", ", known));
            }
        }
    }

    List<String> keys() {
        List<String> out = new ArrayList<>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }

    /** The value, or null when the key is absent or null. */
    JsonNode get(String key) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : v;
    }

    @Override
    public boolean has(String key) {
        return get(key) != null;
    }

    @Override
    public String text(String key) {
        JsonNode v = get(key);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    @Override
    public String string(String key, String dflt) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        if (!v.isTextual()) throw error(field(key), "expected a string, got " + describe(v));
        if (v.asText().isBlank()) throw error(field(key), "is empty; give a value or remove the line for the default");
        return v.asText();
    }

    String requiredString(String key, String hint) {
        String s = string(key, null);
        if (s == null) throw error(field(key), "missing; " + hint);
        return s;
    }

    /** One of {@code allowed}, matched exactly (the suggestion catches case and typos). */
    String choice(String key, String dflt, List<String> allowed, String what) {
        String s = string(key, dflt);
        if (!allowed.contains(s)) throw error(field(key), unknownValue(what, s, allowed));
        return s;
    }

    /** An integer within {@code bound} (an int's range at most), or {@code dflt} when the key is absent. */
    @Override
    public Integer integer(String key, Integer dflt, Bound bound) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        checkIntegral(key, v, bound);
        if (!v.canConvertToInt()) throw error(field(key), "expected an integer, got " + describe(v));
        return v.intValue();
    }

    /** A finite number within {@code bound}, or {@code dflt} when the key is absent. */
    @Override
    public double number(String key, double dflt, Bound bound) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        if (!v.isNumber()) throw error(field(key), "expected a number, got " + describe(v));
        // 1e999 reads as Infinity: a number, but no setting means anything with it
        if (!Double.isFinite(v.doubleValue())) throw error(field(key), "expected a finite number, got " + v.asText());
        within(key, v, bound);
        return v.doubleValue();
    }

    /** An integer as YAML wrote it, its size checked against {@code bound} before it must fit a Java type. */
    private void checkIntegral(String key, JsonNode v, Bound bound) {
        if (!v.isIntegralNumber()) throw error(field(key), "expected an integer, got " + describe(v));
        within(key, v, bound);
    }

    /** The one check of a number against its bound, where the file is read. */
    private void within(String key, JsonNode v, Bound bound) {
        String problem = bound.problem(v.doubleValue(), v.asText());
        if (problem != null) throw error(field(key), problem);
    }

    @Override
    public boolean bool(String key, boolean dflt) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        if (!v.isBoolean()) throw error(field(key), "expected true or false, got " + describe(v));
        return v.booleanValue();
    }

    @Override
    public long longValue(String key, long dflt, Bound bound) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        if (!v.canConvertToLong()) throw error(field(key), "expected an integer, got " + describe(v));
        checkIntegral(key, v, bound);
        return v.longValue();
    }

    /** A list of 64-bit integers (any values: seeds are labels), at most {@code most} of them. */
    List<Long> longList(String key, List<Long> dflt, int most) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        if (!v.isArray()) throw error(field(key), "expected a list of integers such as [0, 1, 2], got " + describe(v));
        if (v.size() > most) {
            throw error(field(key), "lists " + v.size() + " values; at most " + most + " are allowed (the bounds and why: "
                    + Bound.WHY + ")");
        }
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode e = v.get(i);
            if (!e.isIntegralNumber() || !e.canConvertToLong()) {
                throw error(field(key) + "[" + i + "]", "expected an integer, got " + describe(e));
            }
            out.add(e.longValue());
        }
        return out;
    }

    @Override
    public List<String> stringList(String key, List<String> dflt) {
        JsonNode v = get(key);
        if (v == null) return dflt;
        if (!v.isArray()) throw error(field(key), "expected a list of strings, got " + describe(v));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode e = v.get(i);
            if (!e.isTextual() || e.asText().isEmpty()) {
                throw error(field(key) + "[" + i + "]", "expected a non-empty string, got " + describe(e));
            }
            out.add(e.asText());
        }
        return out;
    }

    static String unknownValue(String what, String value, List<String> allowed) {
        String near = nearest(value, allowed);
        return "unknown " + what + " '" + value + "'" + (near == null ? "" : " (did you mean '" + near + "'?)")
                + "; known: " + String.join(", ", allowed);
    }

    static String describe(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return "nothing";
        if (n.isTextual()) return "the string '" + n.asText() + "'";
        if (n.isBoolean()) return "the boolean " + n.asText();
        if (n.isNumber()) return "the number " + n.asText();
        if (n.isArray()) return "a list";
        if (n.isObject()) return "a mapping";
        return n.getNodeType().name().toLowerCase(Locale.ROOT);
    }

    /** The known name closest to {@code s} by edit distance (case-insensitive), if it is close enough to be a typo. */
    static String nearest(String s, List<String> known) {
        String best = null;
        int bestD = Integer.MAX_VALUE;
        String lower = s.toLowerCase(Locale.ROOT);
        for (String k : known) {
            // agent-9 is not a typo of agent-0: a different number means a different thing
            if (!lower.equals(k.toLowerCase(Locale.ROOT)) && digitless(lower).equals(digitless(k.toLowerCase(Locale.ROOT)))) continue;
            int d = LevenshteinDistance.getDefaultInstance().apply(lower, k.toLowerCase(Locale.ROOT));
            if (d < bestD) {
                bestD = d;
                best = k;
            }
        }
        // about a third of the word may be wrong: 'strategy' still finds 'strategies'
        return best != null && bestD <= Math.max(2, (s.length() + 2) / 3) ? best : null;
    }

    private static String digitless(String s) {
        return s.replaceAll("[0-9]", "");
    }
}
