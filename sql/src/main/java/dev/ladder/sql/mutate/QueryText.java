package dev.ladder.sql.mutate;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SqlVocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A query as the mutators edit it: its text, its significant tokens (indexes into the text) and its query levels
 * ({@link Scope}s: the outermost SELECT, each branch of a set operation, each parenthesised subquery and CTE body).
 * Every edit is a character range of {@link #text}, so the rest of the text stays as written.
 */
final class QueryText {

    final Query query;
    final String text;
    final List<SqlToken> tokens;
    /** The lexical rules of the query's dialect (MySQL's when it has none). */
    final Dialect dialect;
    final List<Scope> scopes = new ArrayList<>();
    /** The outermost query's clauses (for a set operation: its trailing ORDER BY and LIMIT). */
    final OuterClauses top;

    private QueryText(Query query, Dialect dialect, OuterClauses top) {
        this.query = query;
        this.text = query.text();
        this.tokens = query.tokens();
        this.dialect = dialect;
        this.top = top;
    }

    /** The query when it parses as one SELECT whose text the lexical reader splits; else empty. */
    static Optional<QueryText> of(String sql, Dialect dialect) {
        Query q = Query.read(sql, dialect);
        if (q.tooComplex() || q.select().isEmpty() || q.tokens().isEmpty()) return Optional.empty();
        Optional<OuterClauses> top = q.outer();
        if (top.isEmpty() || top.get().tokens.size() != q.tokens().size()) return Optional.empty();
        QueryText t = new QueryText(q, dialect == null ? Dialect.MYSQL : dialect, top.get());
        t.addScopes(0, t.tokens.size(), true, "");
        for (int i = 0; i + 1 < t.tokens.size(); i++) {
            if (t.opensQuery(i)) t.addScopes(i + 1, Query.close(t.tokens, i), false, "subquery ");
        }
        return Optional.of(t);
    }

    /** The query levels of tokens [from, to): one plain SELECT, or the branches of a set operation. */
    private void addScopes(int from, int to, boolean outermost, String label) {
        if (to <= from) return;
        Optional<OuterClauses> parsed = OuterClauses.parse(text(from, to), dialect);
        if (parsed.isEmpty() || parsed.get().tokens.size() != to - from) return;
        OuterClauses oc = parsed.get();
        if (!oc.setOperation) {
            scopes.add(new Scope(this, oc, from, outermost, label));
            return;
        }
        // the whole's ORDER BY and LIMIT are not the last branch's
        int end = to;
        if (oc.orderBy != null) end = Math.min(end, from + oc.orderBy.start());
        if (oc.limit != null) end = Math.min(end, from + oc.limit.start());
        int depth = 0;
        int branch = -1;
        for (int k = from; k < end; k++) {
            SqlToken t = tokens.get(k);
            if (t.isSymbol("(")) depth++;
            else if (t.isSymbol(")")) depth--;
            else if (depth == 0 && branch < 0 && t.isWord("SELECT")) branch = k;
            else if (depth == 0 && SqlVocabulary.is(t, SqlVocabulary.SET_OPERATIONS)) {
                if (branch >= 0 && tokens.get(branch).isWord("SELECT")) addScopes(branch, k, false, "set-operation branch ");
                branch = k + 1;
                if (branch < end && (tokens.get(branch).isWord("ALL") || tokens.get(branch).isWord("DISTINCT"))) branch++;
            }
        }
        if (branch >= 0 && branch < end && tokens.get(branch).isWord("SELECT")) addScopes(branch, end, false, "set-operation branch ");
    }

    /** Whether token i opens a parenthesised query. */
    boolean opensQuery(int i) {
        return i + 1 < tokens.size() && tokens.get(i).isSymbol("(") && Query.startsQuery(tokens.get(i + 1));
    }

    /** The text of tokens [from, to), as written. */
    String text(int from, int to) {
        return from >= to ? "" : text.substring(tokens.get(from).start(), tokens.get(to - 1).end());
    }

    String text(Span s) {
        return text(s.from(), s.to());
    }

    int start(int token) {
        return tokens.get(token).start();
    }

    int end(int token) {
        return tokens.get(token).end();
    }

    /** Where text removed with tokens from {@code token} on starts: the end of the token before (keeps the space before). */
    int removalStart(int token) {
        return token == 0 ? 0 : tokens.get(token - 1).end();
    }

    /** The query's outermost plain SELECT, or null for a set operation. */
    Scope outermost() {
        return scopes.stream().filter(s -> s.outermost).findFirst().orElse(null);
    }
}
