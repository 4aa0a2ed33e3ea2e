package dev.ladder.sql.post;

import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.TableReferences;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;
import java.util.Optional;

/**
 * Writes a statement back from its tokens with the normalisations that never change its meaning: comments dropped,
 * each run of whitespace between tokens one space (none added where there was none), keywords upper-cased and table
 * names spelt as the schema spells them. String literals and quoted identifiers are copied as they are, except that
 * a quoted table name gets the schema's case inside its own quotes.
 */
final class Renderer {

    private final List<SqlToken> sig;
    private final TableReferences shape;
    private final Schema schema;
    private final Steps steps;
    private int caseDepth;

    private Renderer(List<SqlToken> sig, TableReferences shape, Schema schema, Steps steps) {
        this.sig = sig;
        this.shape = shape;
        this.schema = schema;
        this.steps = steps;
    }

    /** {@code tokens}: the statement, trivia included; {@code sig}: its significant tokens, in the same order. */
    static String render(List<SqlToken> tokens, List<SqlToken> sig, TableReferences shape, Schema schema, Steps steps) {
        return new Renderer(sig, shape, schema, steps).write(tokens);
    }

    private String write(List<SqlToken> tokens) {
        StringBuilder out = new StringBuilder();
        StringBuilder gap = new StringBuilder();
        boolean gapHasComment = false;
        int s = 0;
        for (SqlToken t : tokens) {
            if (t.isTrivia()) {
                gap.append(t.text());
                gapHasComment |= t.type() == SqlToken.Type.COMMENT;
                continue;
            }
            if (s > 0 && (gap.length() > 0)) {
                // "-" "-" only stand adjacent (in MySQL) when no whitespace followed; a space would make them a comment
                if (out.length() < 2 || out.charAt(out.length() - 1) != '-' || out.charAt(out.length() - 2) != '-') {
                    out.append(' ');
                }
                if (gapHasComment) {
                    steps.add(Steps.COMMENT);
                } else if (!gap.toString().equals(" ")) {
                    steps.add(Steps.WHITESPACE);
                }
            } else if (gapHasComment) {
                steps.add(Steps.COMMENT); // comments before the first word
            }
            gap.setLength(0);
            gapHasComment = false;
            out.append(text(s));
            s++;
        }
        if (gapHasComment) steps.add(Steps.COMMENT); // a comment-only tail
        return out.toString();
    }

    private String text(int i) {
        SqlToken t = sig.get(i);
        if (shape.isTableName(i) || shape.isQualifier(i)) return tableCase(i, t);
        if (t.type() != SqlToken.Type.WORD || isSymbol(i - 1, ".") || isSymbol(i + 1, ".")) return t.text();
        String u = SqlWords.upper(t.text());
        boolean keyword = SqlWords.KEYWORDS.contains(u)
                || (SqlWords.FUNCTIONS.contains(u) && isSymbol(i + 1, "("))
                || (u.equals("END") && caseDepth > 0)
                || (u.equals("OFFSET") && i > 0 && sig.get(i - 1).type() == SqlToken.Type.NUMBER);
        if (u.equals("CASE")) caseDepth++;
        if (u.equals("END") && caseDepth > 0) caseDepth--;
        if (!keyword || u.equals(t.text())) return t.text();
        steps.add(Steps.KEYWORD_CASE);
        return u;
    }

    private String tableCase(int i, SqlToken t) {
        if (schema == null) return t.text();
        String name = Identifiers.unquote(t);
        boolean quoted = t.type() == SqlToken.Type.QUOTED_IDENTIFIER;
        if (quoted && (name.isEmpty() || name.indexOf(t.text().charAt(0)) >= 0
                || name.indexOf(t.text().charAt(t.text().length() - 1)) >= 0)) {
            return t.text(); // escaped quotes inside: leave it
        }
        if (shape.isCteName(name) || (shape.isQualifier(i) && shape.isAlias(name))) return t.text();
        Optional<Table> table = schema.table(name);
        if (table.isEmpty() || table.get().name().equals(name)) return t.text();
        steps.add(Steps.TABLE_CASE);
        String canonical = table.get().name();
        return quoted ? t.text().charAt(0) + canonical + t.text().charAt(t.text().length() - 1) : canonical;
    }

    private boolean isSymbol(int i, String s) {
        return i >= 0 && i < sig.size() && sig.get(i).isSymbol(s);
    }
}
