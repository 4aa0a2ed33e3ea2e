package dev.ladder.pipeline.strategy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A pipeline's block under {@code settings:} in experiment files, bound to its settings record: one key per record
 * component (the component's name in snake case, or its {@link Knob}), read over a base value key by key, written
 * back in component order. Every numeric component carries its range ({@link Bounded}, the maxima from
 * {@link SettingBounds}), checked as the file is read; the record's canonical constructor checks the rest (what
 * spans components, such as {@code max_rows >= min_rows}), and a refusal whose message starts with a key
 * ({@code "max_rows must be >= min_rows (5), got 2"}) is reported at that key.
 *
 * <p>Components may be {@code int}, {@code long}, {@code double}, {@code boolean}, {@code String} or
 * {@code List<String>}; an {@code Integer} or {@code Double} marked {@link Follows} is a shared knob unless the block
 * overrides it: null (written as the knob's name, {@code max_tokens: max_new_tokens}) is the rung's value, which
 * {@link #resolve} fills in, and a number is the block's own (within its own {@link Bounded} range).
 *
 * @param <T> the settings record
 */
public final class SettingsBlock<T extends Record> {

    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9_]*");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * A component and its key; {@code follows}: the shared knob a null value stands for (null: it follows none);
     * {@code bound}: a number's range (null for other values).
     */
    private record Component(String key, RecordComponent component, String follows, Bound bound) {}

    private final String key;
    private final Class<T> type;
    private final T defaults;
    private final List<Component> components;
    private final Constructor<T> constructor;
    private final String factorName;
    private final Function<T, String> factorLine;

    private SettingsBlock(String key, Class<T> type, T defaults, String factorName, Function<T, String> factorLine) {
        if (!KEY.matcher(key).matches()) throw new IllegalArgumentException("a settings block key is snake case, got '" + key + "'");
        this.key = key;
        this.type = Objects.requireNonNull(type, "type");
        this.defaults = type.cast(Objects.requireNonNull(defaults, "defaults"));
        this.factorName = factorName;
        this.factorLine = factorLine;
        List<Component> list = new ArrayList<>();
        List<Class<?>> types = new ArrayList<>();
        for (RecordComponent rc : type.getRecordComponents()) {
            Knob knob = rc.getAnnotation(Knob.class);
            String k = knob != null ? knob.value() : snakeCase(rc.getName());
            if (!KEY.matcher(k).matches()) throw new IllegalArgumentException(type.getName() + "." + rc.getName() + ": key '" + k + "' is not snake case");
            if (list.stream().anyMatch(c -> c.key().equals(k))) throw new IllegalArgumentException(type.getName() + ": key '" + k + "' twice");
            Follows follows = rc.getAnnotation(Follows.class);
            if (follows != null) {
                checkFollower(type, rc, follows.value());
            } else if (!supported(rc)) {
                throw new IllegalArgumentException(type.getName() + "." + rc.getName() + ": a settings block holds int, long, "
                        + "double, boolean, String and List<String> values (Integer, Double with @Follows), not "
                        + rc.getGenericType().getTypeName());
            }
            list.add(new Component(k, rc, follows == null ? null : follows.value(), bound(type, rc)));
            types.add(rc.getType());
        }
        this.components = List.copyOf(list);
        checkDefaults();
        try {
            this.constructor = type.getDeclaredConstructor(types.toArray(Class<?>[]::new));
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(type.getName() + " has no canonical constructor", e);
        }
    }

    /**
     * The block {@code key} bound to {@code type}, whose value is {@code defaults} where a file says nothing. A rung
     * comparison names it by the key (underscores as spaces) and lists every value ({@link #withFactor} words it).
     */
    public static <T extends Record> SettingsBlock<T> of(String key, Class<T> type, T defaults) {
        return new SettingsBlock<>(key, type, defaults, key.replace('_', ' '), null);
    }

    /** This block with its own factor: the name a rung comparison gives it and the line that says what takes effect. */
    public SettingsBlock<T> withFactor(String name, Function<T, String> line) {
        return new SettingsBlock<>(key, type, defaults, Objects.requireNonNull(name), Objects.requireNonNull(line));
    }

    /** The key under {@code settings:}, e.g. {@code gsr}. */
    public String key() {
        return key;
    }

    public Class<T> type() {
        return type;
    }

    public T defaults() {
        return defaults;
    }

    /** The keys the block accepts, in component order. */
    public List<String> keys() {
        return components.stream().map(Component::key).toList();
    }

    /** What a rung comparison calls this block's settings. */
    public String factorName() {
        return factorName;
    }

    /** One line of what takes effect: the pipeline's wording, else {@code key=value} for every key. */
    public String factorLine(T value) {
        if (factorLine != null) return factorLine.apply(value);
        List<String> parts = new ArrayList<>();
        for (Component c : components) {
            Object v = get(c, value);
            String text = v == null && c.follows() != null ? c.follows()
                    : v instanceof Boolean b ? (b ? "on" : "off")
                    : v instanceof Double d ? plain(d).toPlainString()
                    : v instanceof List<?> l ? String.join("|", l.stream().map(String::valueOf).toList())
                    : String.valueOf(v);
            parts.add(c.key() + "=" + text);
        }
        return String.join(" ", parts);
    }

    /** {@code value} as this block's record (a settings map holds records by key). */
    public T cast(Object value) {
        return type.cast(value);
    }

    /**
     * The block read from {@code in} over {@code base}: a key the mapping leaves out keeps base's value. Unknown keys
     * are the caller's to refuse (it knows the file's wording for them); a value the record refuses is reported at
     * its key.
     */
    public T read(KnobSource in, T base) {
        Object[] args = new Object[components.size()];
        for (int i = 0; i < args.length; i++) {
            Component c = components.get(i);
            Object was = get(c, base);
            Class<?> t = c.component().getType();
            if (c.follows() != null) args[i] = readFollower(in, c, was);
            else if (t == int.class) args[i] = in.integer(c.key(), (Integer) was, c.bound());
            else if (t == long.class) args[i] = in.longValue(c.key(), (Long) was, c.bound());
            else if (t == double.class) args[i] = in.number(c.key(), (Double) was, c.bound());
            else if (t == boolean.class) args[i] = in.bool(c.key(), (Boolean) was);
            else if (t == String.class) args[i] = in.string(c.key(), (String) was);
            else args[i] = in.stringList(c.key(), castList(was));
        }
        return construct(args, in);
    }

    /** The record of these values; a refusal is reported at its key through {@code in} (none: thrown as it is). */
    private T construct(Object[] args, KnobSource in) {
        try {
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            if (in != null && e.getCause() instanceof IllegalArgumentException refused) {
                String m = String.valueOf(refused.getMessage());
                for (Component c : components) {
                    if (m.startsWith(c.key() + " ")) throw in.problem(c.key(), m.substring(c.key().length() + 1));
                }
                throw in.problem(null, m);
            }
            throw new IllegalStateException(type.getName() + " failed to construct", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(type.getName() + " cannot be constructed", e);
        }
    }

    /** A follower's value: absent, as in the base; the knob's name, the rung's (null); else a number of its own. */
    private static Object readFollower(KnobSource in, Component c, Object was) {
        String text = in.text(c.key());
        if (text != null) {
            if (text.equals(c.follows())) return null;
            throw in.problem(c.key(), "expected a number, or " + c.follows() + " for the rung's, got '" + text + "'");
        }
        if (c.component().getType() == Integer.class) return in.integer(c.key(), (Integer) was, c.bound());
        if (!in.has(c.key())) return was;
        return in.number(c.key(), 0, c.bound());
    }

    /**
     * {@code value} as a strategy sees it: each {@link Follows} component the block leaves to the rung (null) set to
     * the rung's value of its knob in {@code shared}.
     */
    public T resolve(T value, SharedKnobs shared) {
        if (components.stream().allMatch(c -> c.follows() == null || get(c, value) != null)) return value;
        Map<String, Object> knobs = SharedKnobs.BLOCK.values(shared);
        Object[] args = new Object[components.size()];
        for (int i = 0; i < args.length; i++) {
            Component c = components.get(i);
            Object v = get(c, value);
            args[i] = v == null && c.follows() != null ? knobs.get(c.follows()) : v;
        }
        return construct(args, null);
    }

    /** Every numeric key with its range, in component order (docs/experiments.md lists them). */
    public Map<String, Bound> bounds() {
        Map<String, Bound> out = new LinkedHashMap<>();
        for (Component c : components) if (c.bound() != null) out.put(c.key(), c.bound());
        return out;
    }

    /** Every key with its value as the record holds it (a follower left to the rung: null), in component order. */
    public Map<String, Object> values(T value) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Component c : components) out.put(c.key(), get(c, value));
        return out;
    }

    /**
     * Every key with its value, in component order (numbers as plain decimals, so they read back the same; a follower
     * left to the rung as the name of its knob).
     */
    public ObjectNode write(T value) {
        ObjectNode out = NODES.objectNode();
        for (Component c : components) {
            Object v = get(c, value);
            if (v == null && c.follows() != null) out.put(c.key(), c.follows());
            else if (v instanceof Integer n) out.put(c.key(), n);
            else if (v instanceof Long n) out.put(c.key(), n);
            else if (v instanceof Double d) out.put(c.key(), plain(d));
            else if (v instanceof Boolean b) out.put(c.key(), b);
            else if (v instanceof String s) out.put(c.key(), s);
            else if (v instanceof List<?> l) {
                ArrayNode a = out.putArray(c.key());
                l.forEach(x -> a.add(String.valueOf(x)));
            } else out.putNull(c.key());
        }
        return out;
    }

    @Override
    public String toString() {
        return "settings." + key + " (" + type.getSimpleName() + ")";
    }

    private Object get(Component c, T value) {
        try {
            return c.component().getAccessor().invoke(value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + type.getName() + "." + c.component().getName(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> castList(Object o) {
        return (List<String>) o;
    }

    /** A follower is an Integer following an int knob or a Double following a double knob of {@link SharedKnobs}. */
    private static void checkFollower(Class<?> type, RecordComponent rc, String knob) {
        Class<?> wanted = null;
        for (RecordComponent shared : SharedKnobs.class.getRecordComponents()) {
            Knob named = shared.getAnnotation(Knob.class);
            if ((named != null ? named.value() : snakeCase(shared.getName())).equals(knob)) {
                wanted = shared.getType() == int.class ? Integer.class
                        : shared.getType() == double.class ? Double.class : null;
            }
        }
        if (wanted == null || rc.getType() != wanted) {
            throw new IllegalArgumentException(type.getName() + "." + rc.getName() + ": @Follows(\"" + knob + "\") needs "
                    + "an int or double shared knob of that name and an Integer or Double component to match");
        }
    }

    /** A number's range from its {@link Bounded}; null for other values; a number without one is refused. */
    private static Bound bound(Class<?> type, RecordComponent rc) {
        Class<?> t = rc.getType();
        boolean numeric = t == int.class || t == long.class || t == double.class || t == Integer.class || t == Double.class;
        Bounded b = rc.getAnnotation(Bounded.class);
        if (numeric && b == null) {
            throw new IllegalArgumentException(type.getName() + "." + rc.getName() + ": a numeric setting needs its range, "
                    + "@Bounded(min = ..., max = ...) with a maximum from SettingBounds");
        }
        if (!numeric && b != null) throw new IllegalArgumentException(type.getName() + "." + rc.getName() + ": @Bounded on a value that is no number");
        return b == null ? null : Bound.of(b);
    }

    /** The defaults lie within every range (a block whose defaults a file could not state is a mistake in code). */
    private void checkDefaults() {
        for (Component c : components) {
            if (c.bound() != null && get(c, defaults) instanceof Number n && !c.bound().contains(n.doubleValue())) {
                throw new IllegalArgumentException(type.getName() + ": the default " + c.key() + " " + n
                        + " is outside its range " + c.bound().describe());
            }
        }
    }

    private static boolean supported(RecordComponent rc) {
        Class<?> t = rc.getType();
        if (t == int.class || t == long.class || t == double.class || t == boolean.class || t == String.class) return true;
        return t == List.class && rc.getGenericType() instanceof ParameterizedType p
                && p.getActualTypeArguments()[0] == String.class;
    }

    /** {@code maxIndexedValues} → {@code max_indexed_values}; {@code tableK} → {@code table_k}. */
    static String snakeCase(String camel) {
        StringBuilder b = new StringBuilder();
        for (char ch : camel.toCharArray()) {
            if (Character.isUpperCase(ch)) b.append('_').append(Character.toLowerCase(ch));
            else b.append(ch);
        }
        return b.toString();
    }

    /** The shortest plain decimal of {@code d} (no exponent): it reads back as the same double. */
    public static BigDecimal plain(double d) {
        return BigDecimal.valueOf(d).stripTrailingZeros();
    }
}
