package dev.ladder.cli;

import dev.ladder.scorer.io.TextFiles;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.db.Values;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "sql", mixinStandardHelpOptions = true,
        description = "Run one read-only query through guarded execution and print the result. The SQL is an argument, "
                + "--file PATH, or '-' for standard input (for queries longer than the command line allows).")
final class SqlCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Parameters(index = "0", paramLabel = "DB") String database;
    @Parameters(index = "1", arity = "0..1", paramLabel = "SQL", description = "The query, or '-' to read it from standard input.")
    String sql;
    @Option(names = "--file", paramLabel = "PATH", description = "Read the query from this UTF-8 file.") Path file;
    @Mixin DatabaseOptions options = new DatabaseOptions();
    @Option(names = "--timeout", defaultValue = "10", paramLabel = "SECONDS",
            description = "Statement time limit (default ${DEFAULT-VALUE}).") double timeoutSeconds;
    @Option(names = "--max-rows", defaultValue = "10000", paramLabel = "N",
            description = "Row cap (default ${DEFAULT-VALUE}).") int maxRows;

    @Override
    public Integer call() {
        String query = query();
        ExecutionLimits limits = new ExecutionLimits(Duration.ofMillis((long) (timeoutSeconds * 1000)), maxRows);
        PrintWriter out = spec.commandLine().getOut();
        try (Database db = options.open(database)) {
            Execution ex = db.execute(query, limits);
            if (ex instanceof Execution.Failure f) {
                spec.commandLine().getErr().println("error: " + f.error().kind() + ": " + f.error().message());
                return 1;
            }
            QueryResult r = ((Execution.Success) ex).result();
            TextTable table = new TextTable(r.columns());
            for (List<Object> row : r.rows()) table.add(row.stream().map(Values::render).toList());
            table.print(out);
            out.println("(" + r.rowCount() + (r.rowCount() == 1 ? " row" : " rows")
                    + (!r.truncated() ? "" : r.rowCount() >= maxRows ? ", truncated at --max-rows " + maxRows
                            : ", truncated at the byte bound (" + (limits.byteCap() >> 20) + " MiB per result, "
                            + (ExecutionLimits.MAX_VALUE_BYTES >> 20) + " MiB per value)")
                    + ", " + r.elapsedMillis() + " ms)");
            return 0;
        }
    }

    /** Exactly one of SQL, --file PATH and '-' (stdin) gives the query. */
    private String query() {
        if (file != null && sql != null) {
            throw new UserError("give the SQL one way only (an argument, --file PATH or '-' for stdin); got both "
                    + (sql.equals("-") ? "'-'" : "an SQL argument") + " and --file");
        }
        if (file != null) {
            if (!Files.isRegularFile(file)) throw new UserError("no such SQL file: " + file);
            return TextFiles.read(file);
        }
        if (sql == null) throw new UserError("missing SQL: give it as an argument, with --file PATH or as '-' to read standard input");
        if (sql.equals("-")) return TextFiles.read(System.in, "stdin");
        return sql;
    }
}
