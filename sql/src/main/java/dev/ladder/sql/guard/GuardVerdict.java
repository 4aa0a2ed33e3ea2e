package dev.ladder.sql.guard;

/**
 * What {@link SqlGuard} decided about a statement.
 *
 * @param accepted  true when the statement may run on the read-only connection
 * @param sql       the statement to run: the input without a trailing semicolon
 * @param reason    why it was rejected (empty when accepted)
 * @param syntax    true when the rejection is a syntax problem rather than a policy one
 * @param parsed    true when JSqlParser parsed the statement (false: only the lexical checks vouch for it)
 */
public record GuardVerdict(boolean accepted, String sql, String reason, boolean syntax, boolean parsed) {

    static GuardVerdict accept(String sql, boolean parsed) {
        return new GuardVerdict(true, sql, "", false, parsed);
    }

    static GuardVerdict reject(String sql, String reason) {
        return new GuardVerdict(false, sql, reason, false, false);
    }

    static GuardVerdict syntaxError(String sql, String reason) {
        return new GuardVerdict(false, sql, reason, true, false);
    }
}
