package dev.ladder.sql.schema;

/**
 * @param name     column name as declared
 * @param type     normalised declared type (see {@link SqlTypes#normalize})
 * @param nullable false when declared NOT NULL (or part of a SQLite primary key declared so)
 */
public record Column(String name, String type, boolean nullable) {}
