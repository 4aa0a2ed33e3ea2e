package dev.ladder.sql;

/** SQL dialect of a database: decides lexing rules, introspection queries and error mapping. */
public enum Dialect {
    /** MySQL and MariaDB. */
    MYSQL,
    SQLITE;

    /** The name prompts give the dialect: {@code MySQL}, {@code SQLite}. */
    public String label() {
        return this == SQLITE ? "SQLite" : "MySQL";
    }
}
