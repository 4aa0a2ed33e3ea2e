package dev.ladder.scorer.score.em;

import java.util.Locale;
import net.sf.jsqlparser.expression.Alias;

/** Identifiers as exact match compares them: quotes removed, lower case. */
final class SqlNames {

    private SqlNames() {}

    static String aliasName(Alias alias) {
        return alias == null || alias.getName() == null ? null : lower(unquote(alias.getName()));
    }

    static String unquote(String s) {
        if (s == null) return "";
        String t = s.trim();
        if (t.length() >= 2) {
            char a = t.charAt(0);
            char b = t.charAt(t.length() - 1);
            if (a == '`' && b == '`' || a == '"' && b == '"' || a == '[' && b == ']') return t.substring(1, t.length() - 1);
        }
        return t;
    }

    static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }
}
