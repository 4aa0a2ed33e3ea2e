package dev.ladder.sql.post;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The steps that work on raw text, before anything is lexed as SQL: end-of-turn tokens, code fences, prompt echo.
 * Each returns its input unchanged (the same string) when it has nothing to do.
 */
final class TextPhases {

    /** Special tokens a decoder may leave in the text: {@code <|eot_id|>}, {@code <|im_end|>}, {@code </s>}... */
    private static final Pattern SPECIAL = Pattern.compile(
            "<\\|[A-Za-z0-9_.:-]{1,40}\\|>|</?s>|<(?:end|start)_of_turn>|<eos>");

    private static final Pattern ROLE = Pattern.compile("(?i)\\s*(?:system|user|assistant|model)(?=\\s|<|$)");

    /** The stop string the prompts use; a completion cut inside it leaves a prefix of it on the last line. */
    private static final String STOP_LABEL = "Question:";

    private static final Pattern FENCE = Pattern.compile("```+|~~~+");

    private static final Set<String> FENCE_LANGUAGES = Set.of(
            "sql", "mysql", "sqlite", "sqlite3", "mariadb", "postgresql", "postgres", "psql", "tsql", "plsql");

    /** A line holding an echoed question (removed whole). */
    private static final Pattern QUESTION_LINE = Pattern.compile(
            "(?i)[ \\t#>*]*+(?:question|q|input|user)\\**+[ \\t]*+:[^\\n]*+(?:\\n|$)");

    /** A label before the answer (removed, the rest of its line kept). */
    private static final Pattern LABEL = Pattern.compile(
            "(?i)[ \\t#>*]*+(?:sql(?:[ \\t]*+(?:query|statement|code))?|sqlquery|query|answer|a|mysql|sqlite|output"
                    + "|response|assistant|solution)\\**+[ \\t]*+:\\**+");

    private static final Pattern ROLE_LINE = Pattern.compile("(?i)[ \\t]*+(?:assistant|model)[ \\t]*+\\n");

    private TextPhases() {}

    /** Strips special tokens before the answer, cuts at the first one after it, and drops a cut stop string. */
    static String stopRemnant(String text) {
        String s = text;
        while (true) {
            String lead = s.stripLeading();
            Matcher m = SPECIAL.matcher(lead);
            if (!m.lookingAt()) break;
            s = lead.substring(m.end());
            if (m.group().contains("header") || m.group().contains("start")) {
                Matcher role = ROLE.matcher(s);
                if (role.lookingAt()) s = s.substring(role.end());
            }
        }
        Matcher m = SPECIAL.matcher(s);
        if (m.find()) s = s.substring(0, m.start());
        String body = s.stripTrailing();
        int nl = body.lastIndexOf('\n');
        if (nl >= 0) {
            String lastLine = body.substring(nl + 1).strip();
            if (lastLine.length() >= 3 && STOP_LABEL.startsWith(lastLine)) s = body.substring(0, nl);
        }
        return s.equals(text) ? text : s;
    }

    /** The content of the first code fence that holds a query, or null when no fence does. */
    static String firstFencedQuery(String text) {
        Matcher m = FENCE.matcher(text);
        while (m.find()) {
            int contentStart = afterInfoString(text, m.end());
            String marker = m.group().substring(0, 3);
            int close = text.indexOf(marker, contentStart);
            String content = text.substring(contentStart, close < 0 ? text.length() : close);
            if (StatementStart.find(content) != null) return content;
            if (close < 0) return null;
            m.region(close + 3, text.length());
        }
        return null;
    }

    /** Skips a language tag after an opening fence: a lone word on its line, or a known SQL tag. */
    private static int afterInfoString(String text, int pos) {
        int nl = text.indexOf('\n', pos);
        int lineEnd = nl < 0 ? text.length() : nl;
        String rest = text.substring(pos, lineEnd).strip();
        if (rest.isEmpty() || rest.matches("[\\w+#.-]+") && !isQueryWord(rest)) {
            return nl < 0 ? text.length() : nl + 1;
        }
        int i = pos;
        while (i < lineEnd && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) i++;
        if (i > pos && FENCE_LANGUAGES.contains(text.substring(pos, i).toLowerCase(Locale.ROOT))) return i;
        return pos;
    }

    private static boolean isQueryWord(String w) {
        return w.equalsIgnoreCase("SELECT") || w.equalsIgnoreCase("WITH");
    }

    /**
     * Removes what a model echoes before its answer: {@code Question: ...} lines, labels such as {@code SQL:} or
     * {@code Answer:}, a role name, and a first line that introduces the answer ("Here is the SQL query:").
     */
    static String promptEcho(String text) {
        String s = text;
        while (true) {
            String t = s.stripLeading();
            Matcher q = QUESTION_LINE.matcher(t);
            Matcher label = LABEL.matcher(t);
            Matcher role = ROLE_LINE.matcher(t);
            if (q.lookingAt()) {
                t = t.substring(q.end());
            } else if (label.lookingAt()) {
                t = t.substring(label.end());
            } else if (role.lookingAt()) {
                t = t.substring(role.end());
            } else {
                int nl = t.indexOf('\n');
                String line = nl < 0 ? t : t.substring(0, nl);
                String bare = line.replace("*", "").strip();
                if (nl < 0 || !bare.endsWith(":") || StatementStart.find(line) != null) break;
                t = t.substring(nl + 1);
            }
            s = t;
        }
        return s.strip().equals(text.strip()) ? text : s;
    }
}
