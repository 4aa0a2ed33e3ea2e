package dev.ladder.sql.mutate;

/**
 * A corrupted query.
 *
 * @param sql      the query with the mistake made (the rest of its text as written)
 * @param operator which mistake
 * @param where    a short human description of the edit, e.g. {@code WHERE: dropped `status = 'Shipped'`}
 */
public record Corrupted(String sql, Corruption operator, String where) {}
