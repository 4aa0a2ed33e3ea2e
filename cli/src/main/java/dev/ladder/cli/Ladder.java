package dev.ladder.cli;

import dev.ladder.inference.device.TorchSetupException;
import dev.ladder.sql.db.InfrastructureError;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code ladder} command line. Exit codes: 0 ok, 1 the query or job failed, 2 user error. */
@Command(name = "ladder",
        mixinStandardHelpOptions = true,
        versionProvider = Ladder.Version.class,
        description = "Text-to-SQL research with local open models: databases, benchmarks, the ablation ladder.",
        subcommands = {DbCommand.class, SqlCommand.class, BenchCommand.class, TestSuiteCommand.class, EvalCommand.class, ModelCommand.class, EnvCommand.class, GenerateCommand.class, ServeCommand.class, AdaptersCommand.class, AskCommand.class, RunCommand.class, MergeCommand.class, ReportCommand.class, ViewCommand.class, CommandLine.HelpCommand.class})
public final class Ladder {

    public static final int USER_ERROR = 2;
    /** The job failed: the database stopped answering (docs/faults.md), or an internal error. */
    public static final int FAILED = 1;

    @Option(names = "--data-dir", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "Folder with benchmark data (e.g. classicmodels/mysqlsampledatabase.sql); default: $LADDER_DATA_DIR.")
    void setDataDir(Path dir) {
        System.setProperty("ladder.data.dir", dir.toAbsolutePath().toString());
    }

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the CLI with the given streams (tests call this in-process). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new Ladder());
        helpOnEveryGroup(cli);
        return execute(cli, args, out, err);
    }

    /** Every group command answers {@code --help}, {@code -h} and {@code help} as the root does. */
    static void helpOnEveryGroup(CommandLine cli) {
        for (CommandLine sub : cli.getSubcommands().values()) {
            if (sub.getSubcommands().isEmpty() || sub.getCommand() instanceof CommandLine.HelpCommand) continue;
            sub.getCommandSpec().mixinStandardHelpOptions(true);
            if (!sub.getSubcommands().containsKey("help")) sub.addSubcommand("help", new CommandLine.HelpCommand());
            helpOnEveryGroup(sub);
        }
    }

    /** Runs {@code cli} with Ladder's error handling: user errors are one line (exit 2), bugs one line (exit 1). */
    static int execute(CommandLine cli, String[] args, PrintWriter out, PrintWriter err) {
        cli.setOut(out);
        cli.setErr(err);
        // every numeric flag within its range before any command runs (FlagBounds: one table)
        cli.setExecutionStrategy(FlagBounds::checkAndRun);
        cli.setParameterExceptionHandler((ex, a) -> {
            CommandLine sub = ex.getCommandLine();
            err.println("ladder: " + ex.getMessage() + suggestion(ex) + " (see '" + sub.getCommandSpec().qualifiedName()
                    + " --help')");
            return USER_ERROR;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof UserError || ex instanceof TorchSetupException) {
                err.println("ladder: " + ex.getMessage());
                return USER_ERROR;
            }
            if (ex instanceof InfrastructureError) {
                // nothing was scored from the failure; a rerun resumes where this stopped
                err.println("ladder: " + ex.getMessage());
                return FAILED;
            }
            return internalError(ex, err);
        });
        try {
            return cli.execute(args);
        } catch (OutOfMemoryError e) {
            // what a setting past its bound used to do (a 24-line trace after minutes): one line, how much, what to do
            err.println("ladder: out of memory: the JVM's heap (" + (Runtime.getRuntime().maxMemory() >> 20) + " MiB) is "
                    + "full; ask for less (candidates, max_new_tokens, row_cap, --limit) or give it more with "
                    + "LADDER_JAVA_OPTS=-Xmx...");
            return FAILED;
        } catch (StackOverflowError e) {
            // picocli passes Errors through; this one is a bug in Ladder, not a broken JVM
            return internalError(e, err);
        } catch (NoClassDefFoundError e) {
            // a jar missing from the classpath (a hand-made bundle, a half-finished build): the installation, not a bug
            err.println("ladder: this installation lacks the class " + e.getMessage() + " (its jar is not on the"
                    + " classpath; ./scripts/setup builds a complete one)");
            return FAILED;
        }
    }

    /** For a mistyped option or subcommand, the closest one the command has ({@code ; did you mean --limit?}). */
    static String suggestion(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u)) return "";
        List<String> s = u.getSuggestions();
        return s == null || s.isEmpty() ? "" : "; did you mean " + s.get(0) + "?";
    }

    /** A bug: one line naming the exception; the stack trace only with LADDER_DEBUG=1 (or -Dladder.debug=true). */
    static int internalError(Throwable ex, PrintWriter err) {
        String message = ex.getMessage() == null ? "" : ex.getMessage().strip().lines().findFirst().orElse("");
        err.println("ladder: internal error: " + ex.getClass().getName() + (message.isEmpty() ? "" : ": " + message)
                + " (please report; run with LADDER_DEBUG=1 for the stack trace)");
        if (debug()) ex.printStackTrace(err);
        err.flush();
        return FAILED;
    }

    static boolean debug() {
        String env = System.getenv("LADDER_DEBUG");
        return Boolean.getBoolean("ladder.debug") || (env != null && !env.isBlank() && !env.equals("0"));
    }

    /** Ladder's version from the build (eval/src/main/resources/ladder-version.properties), or "unknown". */
    static String version() {
        Properties p = new Properties();
        try (InputStream in = Ladder.class.getResourceAsStream("/ladder-version.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    /** Version from the build (eval/src/main/resources/ladder-version.properties). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "ladder " + version(),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
            };
        }
    }
}
