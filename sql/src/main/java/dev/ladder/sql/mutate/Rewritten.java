package dev.ladder.sql.mutate;

/**
 * A rewritten query: the same answer, written differently.
 *
 * @param sql     the rewritten query (the rest of its text as written)
 * @param rewrite which rewrite
 * @param where   a short human description of the edit, e.g. {@code WHERE: `a AND b` -> `b AND a`}
 */
public record Rewritten(String sql, Rewrite rewrite, String where) {}
