package dev.ladder.cli;

import dev.ladder.sql.db.ClassicModels;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.db.UserError;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "db", description = "Inspect and load databases.",
        subcommands = {DbCommand.Info.class, DbCommand.SchemaCmd.class, DbCommand.Load.class})
final class DbCommand extends GroupCommand {

    @Command(name = "info", mixinStandardHelpOptions = true,
            description = "Tables with row counts and foreign keys.")
    static final class Info implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DB", description = "classicmodels, a jdbc:mysql:// URL or a SQLite file.") String database;
        @Mixin DatabaseOptions options = new DatabaseOptions();

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Database db = options.open(database)) {
                Schema schema = db.schema();
                out.println(header(db));
                TextTable table = new TextTable(List.of("table", "rows", "columns", "foreign keys")).alignRight(1).alignRight(2);
                long total = 0;
                for (Table t : schema.tables()) {
                    List<String> fks = schema.foreignKeysOf(t.name()).stream()
                            .map(fk -> String.join(",", fk.columns()) + " -> " + fk.referencedTable() + "."
                                    + String.join(",", fk.referencedColumns()))
                            .toList();
                    table.add(List.of(t.name(), Long.toString(t.rowCount()), Integer.toString(t.columns().size()),
                            fks.isEmpty() ? "-" : String.join("; ", fks)));
                    total += t.rowCount();
                }
                table.print(out);
                out.printf(Locale.ROOT, "%d tables, %d rows, %d foreign keys%n", schema.tables().size(), total,
                        schema.foreignKeys().size());
            }
            return 0;
        }
    }

    @Command(name = "schema", mixinStandardHelpOptions = true,
            description = "The schema summary prompts embed (or CREATE TABLE statements).")
    static final class SchemaCmd implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DB") String database;
        @Mixin DatabaseOptions options = new DatabaseOptions();
        @Option(names = "--format", defaultValue = "summary", paramLabel = "summary|create",
                description = "summary (default) or create.") String format;

        @Override
        public Integer call() {
            if (!format.equals("summary") && !format.equals("create")) {
                throw new UserError("--format must be summary or create, got '" + format + "'");
            }
            try (Database db = options.open(database)) {
                Schema schema = db.schema();
                spec.commandLine().getOut().print(format.equals("summary")
                        ? SchemaRenderer.summary(schema) : SchemaRenderer.createTables(schema));
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }

    @Command(name = "load", mixinStandardHelpOptions = true,
            description = "Load a benchmark database into an external MySQL/MariaDB server (the embedded one loads itself).")
    static final class Load implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DB", description = "classicmodels") String database;
        @Option(names = "--url", required = true, paramLabel = "JDBC_URL",
                description = "Server to load into; its account needs CREATE/INSERT/DROP.") String url;
        @Option(names = "--replace", description = "Drop and reload the database if it exists.") boolean replace;

        @Override
        public Integer call() {
            if (!ClassicModels.NAME.equalsIgnoreCase(database)) {
                throw new UserError("cannot load '" + database + "': known databases are " + ClassicModels.NAME);
            }
            ClassicModels.loadExternal(url, LadderPaths.dataDir(), replace);
            spec.commandLine().getOut().println("loaded " + ClassicModels.NAME + " and verified "
                    + ClassicModels.EXPECTED_ROWS.size() + " tables with the expected row counts");
            return 0;
        }
    }

    static String header(Database db) {
        if (db.kind() == DatabaseKind.EMBEDDED_MARIADB) {
            EmbeddedMariaDb server = EmbeddedMariaDb.shared();
            return String.format(Locale.ROOT, "%s (embedded MariaDB under %s, started in %d ms)", db.name(),
                    server.root(), server.startTime().toMillis());
        }
        return db.name() + " (" + db.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
    }
}
