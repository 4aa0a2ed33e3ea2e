package dev.ladder.eval.cli;

import dev.ladder.pipeline.db.Database;
import dev.ladder.pipeline.db.Databases;
import dev.ladder.pipeline.db.LadderPaths;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How a command reaches its database: embedded by default, or an external server. */
final class DatabaseOptions {

    @Option(names = "--url", paramLabel = "JDBC_URL",
            description = "External MySQL/MariaDB server, e.g. jdbc:mysql://host:3306/?user=u&password=p "
                    + "(default: the embedded MariaDB).")
    String url;

    Database open(String database) {
        return Databases.open(database, LadderPaths.dataDir(), Optional.ofNullable(url));
    }
}
