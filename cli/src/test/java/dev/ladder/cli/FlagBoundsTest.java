package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ladder.pipeline.strategy.Bound;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Every numeric flag of every command has a range ({@link FlagBounds}), the range is checked before the command runs,
 * and a value past it is one line, exit 2; a huge {@code settings.candidates} in an experiment is one line too.
 */
class FlagBoundsTest {

    @TempDir static Path tmp;

    @BeforeAll
    static void data() {
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
    }

    @Test
    void everyNumericFlagOfEveryCommandHasARangeAndEveryRangeAFlag() {
        Map<String, OptionSpec> numeric = numericFlags();
        assertThat(numeric.keySet()).as("numeric flags without a range in FlagBounds")
                .allSatisfy(k -> assertThat(FlagBounds.BOUNDS).containsKey(k));
        assertThat(FlagBounds.BOUNDS.keySet()).as("ranges in FlagBounds naming no numeric flag")
                .allSatisfy(k -> assertThat(numeric).containsKey(k));
        assertThat(positionalNumbers(root())).as("numeric positional parameters (FlagBounds checks options)").isEmpty();
    }

    @Test
    void docsListEveryFlagWithItsRange() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "experiments.md"));
        FlagBounds.BOUNDS.forEach((key, bound) ->
                assertThat(docs).as(key).contains("| `ladder " + key + "` | " + bound.describe()));
    }

    @Test
    void everyFlagAcceptsItsBoundAndRefusesOnePast() {
        for (Map.Entry<String, Bound> e : FlagBounds.BOUNDS.entrySet()) {
            Bound b = e.getValue();
            if (b.equals(Bound.ANY_LONG)) continue;   // a seed: any 64-bit integer, nothing past it to write
            boolean integral = integral(numericFlags().get(e.getKey()));
            String flag = e.getKey().substring(e.getKey().lastIndexOf(' ') + 1);
            assertThat(problem(e.getKey(), text(b.max(), integral))).as(e.getKey() + " at its maximum").isNull();
            assertThat(problem(e.getKey(), text(b.min(), integral))).as(e.getKey() + " at its minimum").isNull();
            String above = text(integral ? b.max() + 1 : Math.nextUp(b.max()), integral);
            assertThat(problem(e.getKey(), above)).as(e.getKey() + " " + above)
                    .isEqualTo(flag + " must be <= " + Bound.format(b.max()) + ", got " + above
                            + " (the bounds and why: docs/experiments.md#bounds)");
            String below = text(integral ? b.min() - 1 : Math.nextDown(b.min()), integral);
            assertThat(problem(e.getKey(), below)).as(e.getKey() + " " + below)
                    .isEqualTo(flag + " must be >= " + Bound.format(b.min()) + ", got " + below);
        }
    }

    @Test
    void aHugeCandidateCountIsOneLineAndWritesNothing() throws Exception {
        Path out = tmp.resolve("never-written");
        Path yaml = tmp.resolve("huge.yaml");
        Files.writeString(yaml, """
                name: huge
                benchmark: classicmodels
                models:
                  oracle: {engine: oracle}
                strategies: [agent-2]
                settings:
                  candidates: 1000000000
                scorers: {ts: none}
                """);
        LadderCliTest.Run r = LadderCliTest.run("run", yaml.toString(), "--out", out.toString(), "--limit", "1");
        assertThat(r.code()).isEqualTo(Ladder.USER_ERROR);
        assertThat(r.err()).isEqualTo("ladder: " + yaml + ": settings.candidates: must be <= " + SettingBounds.CANDIDATES
                + ", got 1000000000 (the bounds and why: docs/experiments.md#bounds)\n");
        assertThat(r.out()).isEmpty();
        assertThat(out).doesNotExist();
        // the same through --set on ask, and as a flag
        LadderCliTest.Run set = LadderCliTest.run("ask", "--model", "oracle", "--set", "candidates=1000000000",
                "classicmodels", "a question");
        assertThat(set.code()).isEqualTo(Ladder.USER_ERROR);
        assertThat(set.err()).isEqualTo("ladder: --set: settings.candidates: must be <= " + SettingBounds.CANDIDATES
                + ", got 1000000000 (the bounds and why: docs/experiments.md#bounds)\n");
        LadderCliTest.Run flag = LadderCliTest.run("ask", "--model", "oracle", "--candidates", "1000000000",
                "classicmodels", "a question");
        assertThat(flag.code()).isEqualTo(Ladder.USER_ERROR);
        assertThat(flag.err()).isEqualTo("ladder: --candidates must be <= " + SettingBounds.CANDIDATES
                + ", got 1000000000 (the bounds and why: docs/experiments.md#bounds)\n");
        LadderCliTest.Run limit = LadderCliTest.run("run", yaml.toString(), "--limit", "99999999");
        assertThat(limit.err()).isEqualTo("ladder: --limit must be <= " + SettingBounds.ITEMS
                + ", got 99999999 (the bounds and why: docs/experiments.md#bounds)\n");
        LadderCliTest.Run nan = LadderCliTest.run("sql", "--timeout", "NaN", "classicmodels", "SELECT 1");
        assertThat(nan.code()).isEqualTo(Ladder.USER_ERROR);
        assertThat(nan.err()).isEqualTo("ladder: --timeout: expected a finite number, got NaN (NaN and infinity are not allowed)\n");
    }

    /** What the range check says of {@code key} set to {@code value} (null: nothing), parsed as the command line would be. */
    private static String problem(String key, String value) {
        String[] words = key.split(" ");
        CommandLine cli = root();
        CommandLine command = cli;
        List<String> args = new ArrayList<>();
        for (int i = 0; i < words.length - 1; i++) {
            command = command.getSubcommands().get(words[i]);
            args.add(words[i]);
        }
        args.add(words[words.length - 1]);
        args.add(value);
        args.addAll(required(command.getCommandSpec()));
        Throwable thrown = catchThrowable(() -> FlagBounds.check(cli.parseArgs(args.toArray(String[]::new))));
        if (thrown == null) return null;
        assertThat(thrown).as(key).isInstanceOf(CommandLine.ExecutionException.class).hasCauseInstanceOf(UserError.class);
        return thrown.getCause().getMessage();
    }

    /** Stand-ins for what a command requires besides the flag (the range check reads the parsed line only). */
    private static List<String> required(CommandSpec spec) {
        List<String> args = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            if (o.required() && o.group() == null) args.addAll(List.of(o.longestName(), "x"));
        }
        for (var group : spec.argGroups()) {
            if (group.multiplicity().min() > 0) args.addAll(List.of(group.options().get(0).longestName(), "x"));
        }
        for (PositionalParamSpec p : spec.positionalParameters()) {
            for (int i = 0; i < p.arity().min(); i++) args.add("x");
        }
        return args;
    }

    private static CommandLine root() {
        CommandLine cli = new CommandLine(new Ladder());
        Ladder.helpOnEveryGroup(cli);
        return cli;
    }

    private static Map<String, OptionSpec> numericFlags() {
        Map<String, OptionSpec> out = new LinkedHashMap<>();
        collect(root(), out);
        return out;
    }

    private static void collect(CommandLine command, Map<String, OptionSpec> out) {
        for (OptionSpec o : command.getCommandSpec().options()) {
            if (FlagBounds.numeric(o)) out.put(FlagBounds.key(command.getCommandSpec(), o), o);
        }
        for (CommandLine sub : command.getSubcommands().values()) collect(sub, out);
    }

    private static List<String> positionalNumbers(CommandLine command) {
        List<String> out = new ArrayList<>();
        for (PositionalParamSpec p : command.getCommandSpec().positionalParameters()) {
            Class<?> t = p.type();
            if (t != boolean.class && (t.isPrimitive() || Number.class.isAssignableFrom(t))) {
                out.add(command.getCommandSpec().qualifiedName() + " " + p.paramLabel());
            }
        }
        for (CommandLine sub : command.getSubcommands().values()) out.addAll(positionalNumbers(sub));
        return out;
    }

    private static boolean integral(OptionSpec o) {
        Class<?> t = o.type();
        if (Collection.class.isAssignableFrom(t)) t = o.auxiliaryTypes()[0];
        return t != double.class && t != Double.class;
    }

    private static String text(double d, boolean integral) {
        return integral ? Long.toString((long) d) : Double.toString(d);
    }
}
