package dev.ladder.cli;

import dev.ladder.pipeline.strategy.Bound;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.sql.db.UserError;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The range of every numeric flag of every command, checked in one place before the command runs: a value outside is
 * one line, {@code ladder: --limit must be <= 10000000, got 99999999999 (...)}, exit 2 (a {@link UserError}). A flag that
 * mirrors an experiment setting has that setting's range; the maxima and why: {@link SettingBounds}. A command's own
 * code checks only what a range cannot say ({@code --k} is 0 or 3, {@code --context} fits the model).
 */
final class FlagBounds {

    /** {@code "COMMAND --flag"} (the command as typed after {@code ladder}) to the flag's range. */
    static final Map<String, Bound> BOUNDS = table();

    private FlagBounds() {}

    private static Map<String, Bound> table() {
        Map<String, Bound> m = new LinkedHashMap<>();
        // what an experiment's settings say, on the command line
        m.put("run --limit", new Bound(1, SettingBounds.ITEMS));
        m.put("bench ladder --limit", new Bound(1, SettingBounds.ITEMS));
        m.put("bench ladder --sample", new Bound(1, SettingBounds.ITEMS));
        m.put("run --batch-width", new Bound(1, SettingBounds.BATCH_WIDTH));
        m.put("bench ladder --batch-width", new Bound(1, SettingBounds.BATCH_WIDTH));
        m.put("ask --max-tokens", new Bound(1, SettingBounds.TOKENS));
        m.put("ask --candidates", new Bound(0, SettingBounds.CANDIDATES));
        m.put("ask --temperature", new Bound(0, SettingBounds.TEMPERATURE));
        m.put("ask --seed", Bound.ANY_LONG);
        m.put("ask --rows", new Bound(1, SettingBounds.ROWS));
        m.put("eval --tolerance", new Bound(0, SettingBounds.TOLERANCE));
        m.put("sql --timeout", new Bound(0.001, SettingBounds.STATEMENT_SECONDS));
        m.put("sql --max-rows", new Bound(1, SettingBounds.ROWS));
        // one model call
        m.put("generate --max-tokens", new Bound(1, SettingBounds.TOKENS));
        m.put("generate -n", new Bound(1, SettingBounds.CANDIDATES));
        m.put("generate --temperature", new Bound(0, SettingBounds.TEMPERATURE));
        m.put("generate --top-p", new Bound(0, 1));
        m.put("generate --top-k", new Bound(0, SettingBounds.VOCABULARY));
        m.put("generate --seed", Bound.ANY_LONG);
        m.put("model logits --generate", new Bound(0, SettingBounds.TOKENS));
        m.put("model plan --rows", new Bound(1, SettingBounds.BATCH_ROWS));
        m.put("model plan --context", new Bound(2, SettingBounds.CONTEXT));
        m.put("model plan --prefill-tokens", new Bound(1, SettingBounds.CONTEXT));
        m.put("model make-tiny --seed", Bound.ANY_LONG);
        // engine benchmarks and the server
        m.put("bench generate --batches", new Bound(1, SettingBounds.BATCH_ROWS));
        m.put("bench generate --prompt-tokens", new Bound(1, SettingBounds.CONTEXT));
        m.put("bench generate --new-tokens", new Bound(2, SettingBounds.TOKENS));
        m.put("bench generate --threads", new Bound(1, SettingBounds.THREADS));
        m.put("bench linear --rows", new Bound(1, SettingBounds.BATCH_ROWS));
        m.put("bench linear --threads", new Bound(1, SettingBounds.THREADS));
        m.put("bench linear --repeats", new Bound(1, SettingBounds.REPEATS));
        m.put("bench serve --requests", new Bound(1, SettingBounds.REQUESTS));
        m.put("bench serve --concurrency", new Bound(1, SettingBounds.CONCURRENT));
        m.put("bench serve --max-tokens", new Bound(1, SettingBounds.TOKENS));
        m.put("bench serve --max-batch-rows", new Bound(1, SettingBounds.BATCH_ROWS));
        m.put("bench serve --batch-wait-ms", new Bound(0, SettingBounds.BATCH_WAIT_MS));
        m.put("bench readers --show", new Bound(0, SettingBounds.LISTED));
        m.put("serve --port", new Bound(0, SettingBounds.PORT));
        m.put("serve --max-batch-rows", new Bound(1, SettingBounds.BATCH_ROWS));
        m.put("serve --batch-wait-ms", new Bound(0, SettingBounds.BATCH_WAIT_MS));
        m.put("serve --max-queue", new Bound(1, SettingBounds.QUEUE));
        m.put("view --port", new Bound(0, SettingBounds.PORT));
        // adapters and test suites
        m.put("adapters merge --shards", new Bound(0, SettingBounds.SHARDS));
        m.put("adapters make-tiny --rank", new Bound(1, SettingBounds.RANK));
        m.put("adapters make-tiny --seed", Bound.ANY_LONG);
        m.put("adapters export-train --k", new Bound(0, 3));
        m.put("testsuite build --size", new Bound(1, SettingBounds.SUITE_DATABASES));
        m.put("testsuite build --seed", Bound.ANY_LONG);
        m.put("testsuite build --max-candidates", new Bound(1, SettingBounds.SUITE_CANDIDATES));
        m.put("testsuite build --per-database", new Bound(0, SettingBounds.SUITE_CANDIDATES));
        m.put("testsuite build --time-limit", new Bound(1, SettingBounds.SUITE_SECONDS));
        m.put("testsuite bench --repeat", new Bound(1, SettingBounds.REPEATS));
        return Collections.unmodifiableMap(m);
    }

    /** Checks the flags, then runs the command as picocli would. */
    static int checkAndRun(ParseResult parsed) {
        check(parsed);
        return new CommandLine.RunLast().execute(parsed);
    }

    /**
     * The first numeric flag given outside its range, as a user error of its command (the execution handler prints
     * it as the command's own errors: one line, exit 2).
     *
     * @throws CommandLine.ExecutionException of a {@link UserError} naming the flag, the value and the bound
     */
    static void check(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            for (OptionSpec o : p.matchedOptions()) {
                Bound bound = BOUNDS.get(key(p.commandSpec(), o));
                if (bound == null) continue;
                for (Number n : numbers(o.getValue())) {
                    String problem = bound.problem(n.doubleValue(), String.valueOf(n));
                    if (problem != null) {
                        String message = o.longestName() + (problem.startsWith("must") ? " " : ": ") + problem;
                        throw new CommandLine.ExecutionException(p.commandSpec().commandLine(), message,
                                new UserError(message));
                    }
                }
            }
        }
    }

    /** {@code "bench generate --batches"}: the command as typed after {@code ladder}, and the flag's longest name. */
    static String key(CommandSpec command, OptionSpec option) {
        String q = command.qualifiedName(" ");
        int space = q.indexOf(' ');
        return (space < 0 ? "" : q.substring(space + 1) + " ") + option.longestName();
    }

    /** Whether an option takes numbers (one, or a list of them). */
    static boolean numeric(OptionSpec o) {
        Class<?> t = o.type();
        if (Collection.class.isAssignableFrom(t)) t = o.auxiliaryTypes()[0];
        return t != boolean.class && (t.isPrimitive() || Number.class.isAssignableFrom(t));
    }

    private static List<Number> numbers(Object value) {
        if (value instanceof Number n) return List.of(n);
        if (value instanceof Collection<?> c) return c.stream().filter(Number.class::isInstance).map(Number.class::cast).toList();
        return List.of();
    }
}
