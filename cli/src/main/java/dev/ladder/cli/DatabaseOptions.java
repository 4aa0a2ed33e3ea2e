package dev.ladder.cli;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.SqlMode;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How a command reaches its database: embedded by default, or an external server. */
final class DatabaseOptions {

    @Option(names = "--url", paramLabel = "JDBC_URL",
            description = "External MySQL/MariaDB server, e.g. jdbc:mysql://host:3306/?user=u&password=p "
                    + "(default: the embedded MariaDB).")
    String url;

    @Option(names = "--sql-mode", paramLabel = "server|mysql8", defaultValue = "server",
            description = "SQL mode of MySQL sessions: the server's own (default: MariaDB's), or MySQL 8.0's "
                    + "(ONLY_FULL_GROUP_BY, no zero dates, ...); docs/scoring.md.")
    String sqlMode;

    Database open(String database) {
        return Databases.open(database, LadderPaths.dataDir(), Optional.ofNullable(url), sqlMode());
    }

    SqlMode sqlMode() {
        return SqlMode.parse(sqlMode, "--sql-mode");
    }
}
