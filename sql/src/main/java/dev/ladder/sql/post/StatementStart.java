package dev.ladder.sql.post;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds where the query starts in text that may hold prose around it. A {@code SELECT} or {@code WITH} word is a
 * candidate when it can start a query; the first candidate that begins a line (after Markdown marks or a
 * {@code label:}) wins, else the first written in upper case (unless a {@code ;} ends an earlier candidate before
 * it), else the first at all; candidates after a {@code Question:} line that follows one are not considered (an
 * invented exemplar). Prose like "select the names with this query:" thus loses to the query on the next
 * line, and "you can select customers with SELECT ..." to the upper-case query.
 */
final class StatementStart {

    /**
     * @param index    offset of the SELECT/WITH word
     * @param backtick the query is wrapped in inline-code backticks (they stand right before it)
     * @param bold     the query is wrapped in Markdown bold ({@code **})
     */
    record Start(int index, boolean backtick, boolean bold) {}

    private static final Pattern CANDIDATE = Pattern.compile("(?i)(?<![\\w$@.])(SELECT|WITH)(?![\\w$])");

    /** WITH that starts a common table expression: {@code WITH [RECURSIVE] name [(cols)] AS (}. */
    private static final Pattern CTE = Pattern.compile(
            "(?i)WITH\\s++(?:RECURSIVE\\s++)?(?:[A-Za-z_][\\w$]*+|`[^`\\n]{1,200}`|\"[^\"\\n]{1,200}\""
                    + "|\\[[^\\]\\n]{1,200}])\\s*+(?:\\([^()]{0,500}\\)\\s*+)?AS\\s*+\\(");

    private static final Pattern NEXT_WORD = Pattern.compile("\\s++([A-Za-z]++)(?![\\w$.(])");

    /** Words that cannot begin a select list but do follow the verb "select" in prose. */
    private static final Set<String> NOT_A_SELECT_LIST =
            Set.of("from", "where", "the", "an", "them", "these", "those", "which", "what");

    /** A line that starts the next exemplar of a few-shot prompt. */
    private static final Pattern EXEMPLAR = Pattern.compile("(?im)^[ \\t#>*]*+question[ \\t*]*+:");

    /** Characters that may stand between the start of a line and the query: indentation and Markdown marks. */
    private static final String LEAD_MARKS = " \t`*>_";

    private StatementStart() {}

    /** Null when the text holds no candidate. */
    static Start find(String text) {
        Matcher m = CANDIDATE.matcher(text);
        int upper = -1;
        int any = -1;
        int lineEnd = -1;
        char lineLast = 0;
        int lastQuote = -1;
        int exemplar = text.length();
        while (m.find() && m.start() < exemplar) {
            int pos = m.start();
            if (pos >= lineEnd) {
                int nl = text.indexOf('\n', pos);
                lineEnd = nl < 0 ? text.length() : nl;
                int last = lineEnd - 1;
                while (last > pos && Character.isWhitespace(text.charAt(last))) last--;
                lineLast = text.charAt(last);
                lastQuote = last;
                while (lastQuote > pos && "'\"`".indexOf(text.charAt(lastQuote)) < 0) lastQuote--;
            }
            // a quote after the candidate may open a string that holds the colon
            if (!plausible(text, pos, m.group(1), lastQuote > pos ? 0 : lineLast)) continue;
            if (lineInitial(text, pos)) return start(text, pos);
            if (upper < 0 && m.group(1).equals(m.group(1).toUpperCase(Locale.ROOT))) upper = pos;
            if (any < 0) {
                any = pos;
                // an invented exemplar after a query: its SQL is never the answer
                Matcher q = EXEMPLAR.matcher(text);
                if (q.find(pos)) exemplar = q.start();
            }
        }
        // an earlier candidate ended by a semicolon is a whole statement: the upper-case one is a second statement
        int semicolon = any < 0 ? -1 : text.indexOf(';', any);
        if (upper >= 0 && (any == upper || semicolon < 0 || semicolon > upper)) return start(text, upper);
        return any >= 0 ? start(text, any) : null;
    }

    private static boolean plausible(String text, int pos, String word, char lineLast) {
        if (word.equalsIgnoreCase("WITH")) {
            Matcher cte = CTE.matcher(text);
            cte.region(pos, Math.min(text.length(), pos + 2000));
            return cte.lookingAt();
        }
        int after = pos + word.length();
        if (after < text.length() && " \t\r\n*(`'\"[/-#".indexOf(text.charAt(after)) < 0) return false;
        Matcher next = NEXT_WORD.matcher(text);
        next.region(after, Math.min(text.length(), after + 200));
        if (next.lookingAt() && NOT_A_SELECT_LIST.contains(next.group(1).toLowerCase(Locale.ROOT))) return false;
        // a line ending in a colon introduces something ("Select the names like this:"); SQL never ends so
        return lineLast != ':';
    }

    private static boolean lineInitial(String text, int pos) {
        int i = pos - 1;
        while (i >= 0 && LEAD_MARKS.indexOf(text.charAt(i)) >= 0) i--;
        return i < 0 || text.charAt(i) == '\n' || text.charAt(i) == '\r' || text.charAt(i) == ':';
    }

    private static Start start(String text, int pos) {
        int i = pos - 1;
        while (i >= 0 && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) i--;
        boolean backtick = i >= 0 && text.charAt(i) == '`';
        boolean bold = i >= 1 && text.charAt(i) == '*' && text.charAt(i - 1) == '*';
        if (backtick) {
            int j = i;
            while (j >= 0 && text.charAt(j) == '`') j--;
            bold = j >= 1 && text.charAt(j) == '*' && text.charAt(j - 1) == '*';
        }
        return new Start(pos, backtick, bold);
    }
}
