package dev.ladder.pipeline.kit;

import dev.ladder.pipeline.kit.QuestionText.Kind;
import dev.ladder.pipeline.kit.QuestionText.Token;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Schema columns a question names as things to return (docs/agent.md, "Named fields"). A column is named by its
 * words in order ("credit limit" -> creditLimit, "customer's name" -> customerName), by a shared head ("first and
 * last names"), by "X of the T" ("name of the product" -> productName) or, when the question mentions its table,
 * by the words after the table's noun ("scale" -> productScale). Mentions that are part of a condition
 * ("credit limit above 100,000", "in the state of California") or of a sort key ("sorted by last name") are not
 * named fields.
 */
final class FieldMentions {

    /** Token range [start, end) naming a column. */
    private record Mention(int start, int end, String column) {}

    private static final int MAX_WORDS = 6;
    private static final Set<String> BE = Set.of("is", "are", "was", "were", "be", "been", "being", "not");

    private final QuestionText q;
    private final Lexicon lx;
    private final int limitToken;
    /** Positions of superlatives that rank rows ("the highest credit limit"): what follows them is a sort key. */
    private final Set<Integer> ranking;
    /** Column key (words run together) -> column names with that key, in schema order. */
    private final Map<String, Set<String>> columns = new LinkedHashMap<>();
    /** Table noun key ("customer", "productline") -> table. */
    private final Map<String, Table> tables = new LinkedHashMap<>();
    private final boolean[] covered;
    /** Every word of every column name (singular, lower case). */
    private final Set<String> schemaWords = new HashSet<>();
    /** For a covered token, where its mention starts (to step over "credit limit" in a list of fields). */
    private final int[] spanStart;

    FieldMentions(QuestionText q, Lexicon lx, Schema schema, int limitToken, Set<Integer> ranking) {
        this.q = q;
        this.lx = lx;
        this.limitToken = limitToken;
        this.ranking = Set.copyOf(ranking);
        for (Table t : schema.tables()) {
            tables.putIfAbsent(Names.key(t.name()), t);
            for (Column c : t.columns()) {
                String key = Names.key(c.name());
                if (!key.isEmpty()) columns.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(c.name());
                schemaWords.addAll(Names.identifierWords(c.name()));
            }
        }
        this.covered = new boolean[q.size()];
        this.spanStart = new int[q.size()];
    }

    /**
     * Named columns: those mentioned in the field-list sentence first ("... ? Give the order number and the
     * customer's name."), then the others, each in the order of its first mention that is not a condition,
     * a sort key or a ranked measure.
     */
    List<String> named() {
        List<Mention> mentions = new ArrayList<>();
        direct(mentions);
        List<Mention> shared = new ArrayList<>();
        for (Mention m : mentions) sharedHead(m, shared);
        mentions.addAll(shared);
        inverted(mentions);
        shorthand(mentions);
        mentions.sort(Comparator.comparingInt(Mention::start));
        int fieldList = fieldListSentence();
        Map<String, String> out = new LinkedHashMap<>();
        for (boolean inList : new boolean[] {true, false}) {
            for (Mention m : mentions) {
                if ((m.start() >= fieldList) != inList || condition(m) || sortKey(m) || ranked(m) || verb(m)) continue;
                out.putIfAbsent(m.column().toLowerCase(Locale.ROOT), m.column());
            }
        }
        return List.copyOf(out.values());
    }

    /**
     * Start of the last sentence after the first that opens with an instruction ("Give ...", "Show ...",
     * "List ..."), where questions put the fields to return; the question's length when there is none.
     */
    private int fieldListSentence() {
        int found = q.size();
        for (int i = 1; i < q.size(); i++) {
            Token prev = q.at(i - 1);
            boolean sentenceEnd = prev.kind() == Kind.PUNCT
                    && (prev.text().equals(".") || prev.text().equals("?") || prev.text().equals("!") || prev.text().equals(";"));
            if (sentenceEnd && q.at(i).capitalized() && lx.in("imperative", q.lower(i))) found = i;
        }
        return found;
    }

    // ---- finding mentions ----

    /** Longest runs of question words whose run-together singular forms equal a column's key. */
    private void direct(List<Mention> out) {
        for (int i = 0; i < q.size(); ) {
            int end = -1;
            String key = null;
            StringBuilder sb = new StringBuilder();
            int words = 0;
            for (int j = i; j < q.size() && words < MAX_WORDS; j++) {
                Kind k = q.kind(j);
                if (k == Kind.POSSESSIVE && j > i) continue; // "customer's name" reads as "customer name"
                if (k != Kind.WORD && !(k == Kind.NUMBER && j > i)) break;
                sb.append(q.at(j).norm());
                words++;
                if (columns.containsKey(sb.toString())) {
                    end = j + 1;
                    key = sb.toString();
                }
            }
            if (end > 0 && acceptDirect(i, end)) {
                for (String c : columns.get(key)) out.add(new Mention(i, end, c));
                cover(i, end);
                i = end;
            } else {
                i++;
            }
        }
    }

    /** Not "Name the vendors ..." (an instruction word opening the question), not "number of" as a count. */
    private boolean acceptDirect(int start, int end) {
        if (end - start == 1) {
            String w = q.lower(start);
            if (start == 0 && lx.in("imperative", w)) return false;
            if (Set.of("number", "count", "total", "sum", "average").contains(w) && q.is(start + 1, "of")) return false;
        }
        return true;
    }

    /** "first and last names", "city, state and country codes": earlier words sharing the head of a mention. */
    private void sharedHead(Mention m, List<Mention> out) {
        if (m.end() - m.start() < 2) return;
        StringBuilder tail = new StringBuilder();
        for (int j = m.start() + 1; j < m.end(); j++) if (q.kind(j) != Kind.POSSESSIVE) tail.append(q.at(j).norm());
        int j = m.start() - 1;
        while (j >= 1 && (q.is(j, "and") || q.is(j, "or") || q.lower(j).equals(","))) {
            int w = j - 1;
            if (q.kind(w) != Kind.WORD || covered[w]) return;
            Set<String> hit = columns.get(q.at(w).norm() + tail);
            if (hit == null) return;
            for (String c : hit) out.add(new Mention(w, w + 1, c));
            cover(w, w + 1);
            j = w - 1;
        }
    }

    /**
     * "the name of the product", "name, line and vendor of each product", "the name of each Australian customer":
     * words before "of" combine with the table named after it (determiner and up to two more words between).
     */
    private void inverted(List<Mention> out) {
        for (int k = 1; k < q.size(); k++) {
            if (!q.is(k, "of")) continue;
            String table = tableAfterOf(k);
            if (table == null) continue;
            boolean determiner = lx.in("determiner", q.lower(k + 1));
            // the coordinated fields before "of": W | W and W | W, W and W; named fields in the list are stepped over
            int j = k - 1;
            while (j >= 0 && q.kind(j) == Kind.WORD) {
                if (covered[j]) {
                    j = spanStart[j];
                } else if ((determiner || !lx.in("generic-column-word", q.at(j).norm())) && !modified(j - 1)) {
                    Set<String> hit = columns.get(table + q.at(j).norm());
                    if (hit != null) {
                        for (String c : hit) out.add(new Mention(j, j + 1, c));
                        cover(j, j + 1);
                    }
                }
                if (q.is(j - 1, "and") || q.is(j - 1, "or") || q.lower(j - 1).equals(",")) {
                    j -= 2;
                    if (q.is(j, "and") || q.is(j, "or")) j--; // ", and"
                } else {
                    break;
                }
            }
        }
    }

    private void cover(int start, int end) {
        for (int j = start; j < end; j++) {
            covered[j] = true;
            spanStart[j] = start;
        }
    }

    /** The table after "of" at k: "of [determiner] [up to two words] T" ("of each Australian customer"), or null. */
    private String tableAfterOf(int k) {
        int n = k + 1;
        if (lx.in("determiner", q.lower(n))) n++;
        String table = null;
        for (int skip = 0; skip <= 2 && table == null; skip++) table = tableAt(n + skip);
        return table;
    }

    /**
     * Whether the word at i makes the next word part of another noun phrase: a schema word or table noun ("order
     * line", "credit limit"), or a participle ("shipping date", "required date").
     */
    private boolean modified(int i) {
        if (q.kind(i) != Kind.WORD || lx.in("determiner", q.lower(i))) return false;
        String w = q.lower(i);
        return covered[i] || tableAt(i) != null || schemaWords.contains(q.at(i).norm())
                || (w.length() > 4 && (w.endsWith("ing") || w.endsWith("ed")));
    }

    /** The table noun key at i (one or two words run together: "product lines" -> "productline"), or null. */
    private String tableAt(int i) {
        if (q.kind(i) != Kind.WORD) return null;
        String one = q.at(i).norm();
        if (q.kind(i + 1) == Kind.WORD && tables.containsKey(one + q.at(i + 1).norm())) return one + q.at(i + 1).norm();
        return tables.containsKey(one) ? one : null;
    }

    /**
     * A column whose key is its table's noun plus more words (productScale in products) is named by those
     * words alone ("scale") when the question also mentions the table ("product", "products").
     */
    private void shorthand(List<Mention> out) {
        Set<String> mentionedTables = new LinkedHashSet<>();
        for (int i = 0; i < q.size(); i++) {
            String t = covered[i] ? null : tableAt(i);
            if (t != null) mentionedTables.add(t);
        }
        Map<String, List<String>> byRest = new HashMap<>();
        for (String t : mentionedTables) {
            for (Column c : tables.get(t).columns()) {
                String key = Names.key(c.name());
                if (key.startsWith(t) && key.length() > t.length()) {
                    byRest.computeIfAbsent(key.substring(t.length()), k -> new ArrayList<>()).add(c.name());
                }
            }
        }
        for (int i = 0; i < q.size(); i++) {
            if (covered[i] || q.kind(i) != Kind.WORD) continue;
            String norm = q.at(i).norm();
            if (lx.in("generic-column-word", norm) || (i == 0 && lx.in("imperative", q.lower(i)))) continue;
            if (modified(i - 1)) continue;
            if (q.is(i + 1, "of") && tableAfterOf(i + 1) != null) continue; // "X of the T" is inverted()'s
            List<String> hit = byRest.get(norm);
            if (hit == null) continue;
            for (String c : hit) out.add(new Mention(i, i + 1, c));
            cover(i, i + 1);
        }
    }

    // ---- what a mention is for ----

    /** The mention states a condition: a value or comparison follows, or a condition word or a value precedes. */
    private boolean condition(Mention m) {
        int n = m.end();
        while (BE.contains(q.lower(n))) n++;
        Token next = n < q.size() ? q.at(n) : null;
        if (next != null) {
            if ((next.kind() == Kind.NUMBER && n != limitToken) || next.kind() == Kind.VALUE) return true;
            if (next.kind() == Kind.WORD && next.hasDigit()) return true; // a code such as S18_1749
            String w = next.lower();
            if (lx.in("condition-after", w) && !(w.equals("more") && q.is(n + 1, "of"))) return true;
            if (w.equals("at") && (q.is(n + 1, "least") || q.is(n + 1, "most"))) return true;
            if ((w.equals("from") || w.equals("of") || w.equals("in") || w.equals("to"))
                    && (valueAt(n + 1) || (w.equals("in") && q.lower(n + 1).equals("(")))) {
                return true;
            }
            if (next.kind() == Kind.WORD && q.is(n + 1, "than")) return true;
            if (lx.in("value-filler", next.norm()) && valueAt(n + 1)) return true; // "email address x@y.com"
            if (next.kind() == Kind.VALUE) return true;
            if (q.properName(n) && !covered[n]) return true; // "status Shipped", "city Paris"
        }
        int p = m.start() - 1;
        if (p >= 0) {
            Token prev = q.at(p);
            if (lx.in("condition-before", prev.lower())) return true;
            // "later than their required date", "above the average credit limit"
            for (int j = p; j >= Math.max(0, p - 2); j--) {
                String w = q.lower(j);
                if (lx.in("comparative", w)) return true;
                if (!(lx.in("determiner", w) || lx.in("aggregate", w))) break;
            }
            if ((prev.kind() == Kind.NUMBER && p != limitToken) || prev.kind() == Kind.VALUE) return true;
            if (q.properName(p) && !covered[p]) return true; // "the EMEA territory", "the Planes product line"
            if (q.is(p, "the") && (q.is(p - 1, "in") || q.is(p - 1, "from") || q.is(p - 1, "within"))
                    && next != null && next.is("of") && (q.properName(n + 1) || valueAt(n + 1))) {
                return true; // "in the state of California"
            }
        }
        return false;
    }

    private boolean valueAt(int i) {
        if (i < 0 || i >= q.size()) return false;
        Token t = q.at(i);
        return t.kind() == Kind.NUMBER || t.kind() == Kind.VALUE || lx.numberWord(t.lower()) != null
                || (t.kind() == Kind.WORD && t.hasDigit());
    }

    /** Right after a superlative that ranks rows ("the highest credit limit", "the largest combined credit limit"). */
    private boolean ranked(Mention m) {
        int s = m.start();
        return ranking.contains(s - 1) || (ranking.contains(s - 2) && q.kind(s - 1) == Kind.WORD)
                || (ranking.contains(s - 3) && (q.is(s - 3, "most") || q.is(s - 3, "least")) && q.kind(s - 1) == Kind.WORD);
    }

    /** After a pronoun the words are a verb phrase: "the person they report to" is not reportsTo. */
    private boolean verb(Mention m) {
        return lx.in("pronoun", q.lower(m.start() - 1));
    }

    /** "sorted by last name", "then by first name", "ordered by the order date", "in order of credit limit". */
    private boolean sortKey(Mention m) {
        int p = m.start() - 1;
        if (q.is(p, "the") || q.is(p, "their") || q.is(p, "its")) p--;
        if (q.is(p, "by")) {
            if (q.is(p - 1, "then")) return true;
            for (int j = p - 1; j >= Math.max(0, p - 4); j--) if (lx.in("sort-verb", q.lower(j))) return true;
        }
        if (q.is(p, "of") && q.is(p - 1, "order") && q.is(p - 2, "in")) return true;
        String next = q.lower(m.end());
        return next.equals("ascending") || next.equals("descending") || next.equals("asc") || next.equals("desc");
    }
}
