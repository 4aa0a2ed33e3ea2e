package dev.ladder.pipeline.oracle;

import dev.ladder.sql.db.Database;
import java.util.Objects;

/**
 * What the oracle answers from in one database scope of a run: the golds of that scope's items and whether a SQL answers
 * one (the scope's EX), on the scope's database. Given to {@code OracleEngine} each time it loads: an oracle belongs to
 * one scope, where a real model is loaded once and shared by every scope.
 */
public record OracleScope(OracleKey key, Database database) {

    public OracleScope {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(database, "database");
    }
}
