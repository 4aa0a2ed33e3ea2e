package dev.ladder.sql.mutate;

import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.OuterClauses;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The column references of one query level resolved to schema columns from their tokens: a qualified name through
 * the level's FROM sources (alias, or the table's name), an unqualified one when exactly one source of the level is a
 * schema table with that column and no source has unknown columns (a derived table, a CTE). Names that resolve to
 * nothing here (an outer query's column, a SELECT alias, a derived table's column) are left out: the mutators only
 * edit what they understand.
 */
final class ColumnRefs {

    /**
     * @param token     the column name's token
     * @param qualifier the qualifier's token, or -1
     * @param source    the FROM source it belongs to
     * @param table     its schema table
     * @param column    its schema column
     */
    record Ref(int token, int qualifier, OuterClauses.Source source, Table table, Column column) {
        /** First token of the reference (the qualifier when there is one). */
        int start() {
            return qualifier >= 0 ? qualifier : token;
        }
    }

    /** A FROM source of a level that is a schema table. */
    record Bound(OuterClauses.Source source, Table table) {}

    private ColumnRefs() {}

    /** The level's FROM sources that are schema tables (CTEs and derived tables are not), in order. */
    static List<Bound> tables(Scope scope, Schema schema) {
        List<Bound> out = new ArrayList<>();
        for (OuterClauses.Source s : scope.clauses.sources()) {
            if (s.name() == null || scope.q.query.tables().isCteName(s.name())) continue;
            schema.table(s.name()).ifPresent(t -> out.add(new Bound(s, t)));
        }
        return out;
    }

    /** Whether some FROM source's columns are not known (a derived table, a CTE, a table the schema lacks). */
    static boolean opaqueSource(Scope scope, Schema schema) {
        return scope.clauses.sources().size() != tables(scope, schema).size();
    }

    /** The resolved column references among the level's own tokens of {@code span} (subqueries left out). */
    static List<Ref> in(Scope scope, Schema schema, Span span) {
        List<Ref> out = new ArrayList<>();
        if (span == null) return out;
        List<SqlToken> t = scope.q.tokens;
        List<Bound> bound = tables(scope, schema);
        boolean opaque = opaqueSource(scope, schema);
        Set<String> aliases = selectAliases(scope);
        for (int k : scope.own(span)) {
            SqlToken tok = t.get(k);
            if (Identifiers.reference(t, k) == null) continue;
            if (tok.type() != SqlToken.Type.WORD && tok.type() != SqlToken.Type.QUOTED_IDENTIFIER) continue;
            if (k + 1 < t.size() && t.get(k + 1).isSymbol(".")) continue; // a qualifier
            if (k > 0 && t.get(k - 1).isWord("AS")) continue; // an alias
            String name = Identifiers.unquote(tok);
            boolean qualified = k >= 2 && t.get(k - 1).isSymbol(".");
            if (qualified) {
                if (k >= 3 && t.get(k - 3).isSymbol(".")) continue; // db.table.column: left alone
                String q = Identifiers.unquote(t.get(k - 2));
                for (Bound b : bound) {
                    if (b.source().alias().equalsIgnoreCase(q)) {
                        b.table().column(name).ifPresent(c -> out.add(new Ref(k, k - 2, b.source(), b.table(), c)));
                        break;
                    }
                }
                continue;
            }
            if (opaque || aliases.contains(name.toLowerCase(Locale.ROOT))) continue;
            Ref found = null;
            int matches = 0;
            for (Bound b : bound) {
                var c = b.table().column(name);
                if (c.isPresent()) {
                    matches++;
                    found = new Ref(k, -1, b.source(), b.table(), c.get());
                }
            }
            if (matches == 1) out.add(found);
        }
        return out;
    }

    /** The level's SELECT-list aliases (lower case). */
    static Set<String> selectAliases(Scope scope) {
        Set<String> out = new HashSet<>();
        for (Span item : scope.items()) {
            int a = scope.aliasStart(item);
            if (a < item.to()) {
                SqlToken name = scope.q.tokens.get(item.to() - 1);
                out.add(Identifiers.unquote(name).toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    /** The reference as written (qualifier included). */
    static String text(QueryText q, Ref r) {
        return q.text(r.start(), r.token() + 1);
    }
}
