package dev.ladder.inference.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Every registered {@link Engine} (found with {@link ServiceLoader} on the class path), by name. Two engines of one
 * name, or an engine without a usable name, are refused when the registry is first read.
 */
public final class Engines {

    private static final class Holder {
        static final Engines REGISTRY = new Engines(discover());
    }

    private final Map<String, Engine> byName = new LinkedHashMap<>();

    /** A registry of these engines (the process-wide one is {@link #registry()}). */
    public Engines(List<Engine> engines) {
        List<Engine> sorted = new ArrayList<>(engines);
        sorted.sort(Comparator.comparingInt(Engine::order).thenComparing(Engine::name));
        for (Engine e : sorted) {
            String n = e.name();
            if (n == null || !n.matches("[a-z][a-z0-9_-]*")) {
                throw new IllegalStateException("engine " + e.getClass().getName() + " has no usable name ('" + n
                        + "'; lower-case letters, digits, '_' and '-')");
            }
            Engine before = byName.putIfAbsent(n, e);
            if (before != null) {
                throw new IllegalStateException("engine '" + n + "' is registered twice: " + before.getClass().getName()
                        + " and " + e.getClass().getName());
            }
        }
    }

    /** The engines on the class path. */
    public static Engines registry() {
        return Holder.REGISTRY;
    }

    private static List<Engine> discover() {
        List<Engine> out = new ArrayList<>();
        ServiceLoader.load(Engine.class, Engines.class.getClassLoader()).forEach(out::add);
        return out;
    }

    /** Every engine's name, in {@link Engine#order()}. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** The names of the engines a command may name with {@code --engine}. */
    public List<String> commandLineNames() {
        return byName.values().stream().filter(Engine::onCommandLine).map(Engine::name).toList();
    }

    /** The names of the engines that run a model folder in this process. */
    public List<String> inProcessNames() {
        return byName.values().stream().filter(Engine::inProcess).map(Engine::name).toList();
    }

    /** The engine of a name, if one is registered. */
    public Optional<Engine> find(String name) {
        return Optional.ofNullable(name == null ? null : byName.get(name));
    }

    /**
     * The engine of a name.
     *
     * @throws IllegalArgumentException naming the known engines, for a name none has
     */
    public Engine byName(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException("unknown engine '" + name + "'; known: "
                + String.join(", ", names())));
    }
}
