package dev.ladder.inference.engine;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the caller knows when an engine identifies or loads a model: the model's id (null on a command), where
 * loading says what it does (null for nowhere), and facts by type (the workload a memory plan allows for, the database
 * scope the oracle answers in...). An engine takes the facts it needs and ignores the others, so a caller that knows
 * more need not know which engine wants it.
 */
public record EngineContext(String id, PrintWriter log, List<Object> facts) {

    public EngineContext {
        facts = List.copyOf(facts);
    }

    public static EngineContext of(String id, PrintWriter log, Object... facts) {
        List<Object> given = new ArrayList<>();
        for (Object f : facts) if (f != null) given.add(f);
        return new EngineContext(id, log, given);
    }

    /** The first fact of a type, if the caller gave one. */
    public <T> Optional<T> fact(Class<T> type) {
        return facts.stream().filter(type::isInstance).map(type::cast).findFirst();
    }

    /** This context with one more fact, ahead of any of its type. */
    public EngineContext with(Object fact) {
        List<Object> more = new ArrayList<>();
        more.add(fact);
        more.addAll(facts);
        return new EngineContext(id, log, more);
    }

    /** Says a line on the log, if there is one. */
    public void say(String line) {
        if (log == null) return;
        log.println(line);
        log.flush();
    }
}
