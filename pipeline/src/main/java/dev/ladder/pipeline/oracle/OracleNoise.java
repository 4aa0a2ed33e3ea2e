package dev.ladder.pipeline.oracle;

import dev.ladder.sql.mutate.Corruption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How noisy the oracle is, per answer it writes: with probability {@code format} one format defect of the kinds in
 * {@code formats} (chosen among those that fit the reply), with probability {@code semantic} one corruption of the gold
 * among {@code operators} (chosen among those that apply to the query). Draws are seeded by (noise seed, item, call,
 * request seed, candidate), so a run is repeatable and sampled candidates differ.
 *
 * <p>Written {@code none}, {@code low}, {@code high} or {@code key=value} pairs joined by commas:
 * {@code format=0.3,semantic=0.1,seed=7,ops=wrong_column+drop_conjunct,formats=fence+prose_before}; a named level may
 * start the list ({@code low,seed=3}).
 */
public record OracleNoise(double format, double semantic, Set<FormatNoise> formats, Set<Corruption> operators, long seed) {

    /** The named levels and their rates (format, semantic). */
    public static final Map<String, double[]> LEVELS = levels();

    public static final OracleNoise NONE = new OracleNoise(0, 0, EnumSet.allOf(FormatNoise.class),
            EnumSet.allOf(Corruption.class), 0);

    public OracleNoise {
        if (!(format >= 0 && format <= 1)) throw new IllegalArgumentException("format rate must be in [0, 1], got " + format);
        if (!(semantic >= 0 && semantic <= 1)) throw new IllegalArgumentException("semantic rate must be in [0, 1], got " + semantic);
        formats = formats.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(formats));
        operators = operators.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(operators));
    }

    private static Map<String, double[]> levels() {
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("none", new double[] {0, 0});
        m.put("low", new double[] {0.2, 0.1});
        m.put("high", new double[] {0.5, 0.3});
        return Collections.unmodifiableMap(m);
    }

    public boolean silent() {
        return format == 0 && semantic == 0;
    }

    /**
     * Reads a noise spec ({@code ""} and {@code none}: no noise).
     *
     * @throws IllegalArgumentException naming the part that is wrong and what is allowed
     */
    public static OracleNoise parse(String spec) {
        if (spec == null || spec.isBlank()) return NONE;
        double format = 0;
        double semantic = 0;
        long seed = 0;
        Set<FormatNoise> formats = EnumSet.allOf(FormatNoise.class);
        Set<Corruption> operators = EnumSet.allOf(Corruption.class);
        String[] parts = spec.strip().split(",");
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].strip();
            int eq = part.indexOf('=');
            if (eq < 0) {
                double[] level = LEVELS.get(part.toLowerCase(Locale.ROOT));
                if (level == null || i > 0) {
                    throw new IllegalArgumentException("oracle noise '" + part + "' is not a level (" + String.join(", ",
                            LEVELS.keySet()) + ", first) or a key=value pair (format, semantic, seed, ops, formats)");
                }
                format = level[0];
                semantic = level[1];
                continue;
            }
            String key = part.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            String value = part.substring(eq + 1).strip();
            switch (key) {
                case "format" -> format = rate(key, value);
                case "semantic" -> semantic = rate(key, value);
                case "seed" -> {
                    try {
                        seed = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("oracle noise seed '" + value + "' is not an integer");
                    }
                }
                case "ops" -> operators = names(key, value, Corruption.class);
                case "formats" -> formats = names(key, value, FormatNoise.class);
                default -> throw new IllegalArgumentException("oracle noise key '" + key
                        + "' is unknown; known: format, semantic, seed, ops, formats");
            }
        }
        return new OracleNoise(format, semantic, formats, operators, seed);
    }

    private static double rate(String key, String value) {
        try {
            double r = Double.parseDouble(value);
            if (r >= 0 && r <= 1) return r;
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("oracle noise " + key + " '" + value + "' is not a rate between 0 and 1");
    }

    private static <E extends Enum<E>> Set<E> names(String key, String value, Class<E> type) {
        Set<E> out = EnumSet.noneOf(type);
        for (String name : value.split("\\+")) {
            String n = name.strip().toUpperCase(Locale.ROOT).replace('-', '_');
            try {
                out.add(Enum.valueOf(type, n));
            } catch (IllegalArgumentException e) {
                List<String> known = new ArrayList<>();
                for (E c : type.getEnumConstants()) known.add(c.name().toLowerCase(Locale.ROOT));
                throw new IllegalArgumentException("oracle noise " + key + ": '" + name.strip() + "' is unknown; known: "
                        + String.join(", ", known));
            }
        }
        return out;
    }

    /** The spec in one canonical form (what a run records): {@code none}, or every key. */
    public String label() {
        if (silent()) return "none";
        StringBuilder b = new StringBuilder();
        b.append("format=").append(fmt(format)).append(",semantic=").append(fmt(semantic)).append(",seed=").append(seed);
        if (!formats.equals(EnumSet.allOf(FormatNoise.class))) b.append(",formats=").append(joined(formats));
        if (!operators.equals(EnumSet.allOf(Corruption.class))) b.append(",ops=").append(joined(operators));
        return b.toString();
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static String joined(Set<? extends Enum<?>> set) {
        return set.stream().sorted(Comparator.comparingInt(Enum::ordinal))
                .map(e -> e.name().toLowerCase(Locale.ROOT)).reduce((a, b) -> a + "+" + b).orElse("");
    }
}
