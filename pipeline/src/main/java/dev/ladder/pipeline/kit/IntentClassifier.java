package dev.ladder.pipeline.kit;

import dev.ladder.pipeline.kit.QuestionText.Kind;
import dev.ladder.pipeline.kit.QuestionText.Token;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads an {@link IntentProfile} from an English question by fixed lexical rules (docs/agent.md, "Intent rules").
 * Deterministic: the same question and schema always give the same profile. The word lists are in
 * {@code intent-lexicon.txt}; the phrases and exceptions around them are here.
 */
public final class IntentClassifier {

    /** How a superlative ("highest", "the most", "the latest") is used in the question. */
    enum Role {
        /** Picks rows: "which customer has the highest credit limit". */
        ROW,
        /** Describes an order: "largest first", "from most to fewest", "sorted by highest price". */
        ORDERING,
        /** Part of a condition: "more than the highest price of ...". */
        CONDITION,
        /** An attribute of each entity: "their most recent order". */
        POSSESSIVE,
        /** Picks one row per group: "for each office, the most recent order". */
        PER_GROUP
    }

    private static final Set<String> NUMBER_OF_BEFORE = Set.of(
            "the", "a", "total", "average", "mean", "overall", "combined", "greatest", "largest", "smallest",
            "highest", "lowest", "biggest", "same", "what", "its", "their", "his", "her", "and", "with", "by",
            "maximum", "minimum", "max", "min", "median");
    private static final Set<String> ORDER_IN_THE_NEXT = Set.of("of", "they", "in", "which", "it", "that");
    private static final Set<String> LIMIT_NUMBER_BEFORE = Set.of("which", "what", "the", "these", "those");
    private static final Set<String> NOT_A_COUNT_AFTER = Set.of("or", "and", "percent", "%", "time", "times");

    private static final Pattern WHAT_ARE = Pattern.compile(
            "\\s*(what|which)\\s+(are|were)\\s", Pattern.CASE_INSENSITIVE);

    /** Articles and possessives: after a noun, an -s word before one of them is a verb ("uses the", "owns her"). */
    private static final Set<String> ARTICLES = Set.of("the", "a", "an", "their", "its", "his", "her", "our", "my",
            "your");

    private IntentClassifier() {}

    /**
     * Whether the question asks for a list of things: its opening names a plural target ("which employees ...", "list
     * all plants ...", "who are ...") and it asks for rows, not one aggregate, not the single best.
     */
    public static boolean asksForList(String question) {
        Objects.requireNonNull(question, "question");
        IntentProfile p = classify(question);
        if (p.intent() == Intent.AGGREGATE || p.intent() == Intent.GROUPED_AGGREGATE) return false;
        if (p.limitN() != null && p.limitN() == 1) return false;
        Boolean plural = new Reading(QuestionText.of(question), Lexicon.get(), Set.of()).pluralTarget();
        // "what are the names of ...": the copula hides the noun from the opening's reading
        if (plural == null) return WHAT_ARE.matcher(question).lookingAt();
        return plural;
    }

    /** Without a schema: {@code namedFields} is empty. */
    public static IntentProfile classify(String question) {
        return classify(question, null);
    }

    /** @param schema the database's schema, for {@code namedFields}; may be null */
    public static IntentProfile classify(String question, Schema schema) {
        Objects.requireNonNull(question, "question");
        Set<String> columnKeys = new HashSet<>();
        if (schema != null) {
            for (Table t : schema.tables()) for (Column c : t.columns()) columnKeys.add(Names.key(c.name()));
        }
        return new Reading(QuestionText.of(question), Lexicon.get(), columnKeys).profile(schema);
    }

    /** One question being read; the rules are methods, each named after what it detects. */
    private static final class Reading {
        private final QuestionText q;
        private final Lexicon lx;
        /** Run-together column names of the schema ("country", "productline"), for "by <column>". */
        private final Set<String> columnKeys;
        /** Index of the token that states the limit, or -1. */
        private int limitToken = -1;

        Reading(QuestionText q, Lexicon lx, Set<String> columnKeys) {
            this.q = q;
            this.lx = lx;
            this.columnKeys = columnKeys;
        }

        IntentProfile profile(Schema schema) {
            boolean strongGroup = strongGroupingCue();
            List<Integer> sups = superlatives();
            List<Role> roles = new ArrayList<>();
            for (int s : sups) roles.add(role(s, strongGroup));
            boolean rowSuperlative = roles.contains(Role.ROW);
            boolean orderingSuperlative = roles.contains(Role.ORDERING);
            // a per-group superlative is a MAX/MIN per group
            boolean aggregate = aggregateCue() || roles.contains(Role.PER_GROUP);
            // a grouping phrase without anything to aggregate is a lookup ("for each order, show ...")
            boolean wantsGrouping = aggregate && (strongGroup || roles.contains(Role.PER_GROUP)
                    || groupingByNoun(aggregate) || eachWithAggregate(aggregate));

            Integer rankN = rankLimit(rowSuperlative || orderingSuperlative);
            Integer listN = rankN == null ? imperativeLimit() : null;
            boolean top = topWithoutNumber();
            boolean howQuestion = howManyOrMuch();
            boolean orderCue = orderCue() || orderingSuperlative;
            boolean valueQuestion = rowSuperlative && superlativeValueQuestion(sups, roles);

            Intent intent;
            boolean wantsOrder = orderCue;
            boolean wantsLimit = false;
            Integer limitN = null;
            if (rankN != null) {
                wantsOrder = true;
                wantsLimit = true;
                limitN = rankN;
            } else if (rowSuperlative || top) {
                wantsOrder = true;
                wantsLimit = true;
                limitN = singularTarget(sups, roles) ? 1 : null;
            } else if (listN != null) {
                wantsLimit = true;
                limitN = listN;
            }
            if (howQuestion || (aggregate && rankN == null && !rowSuperlative && !top)) {
                intent = wantsGrouping ? Intent.GROUPED_AGGREGATE : Intent.AGGREGATE;
            } else if (rankN != null || top) {
                intent = Intent.TOP_K;
            } else if (rowSuperlative) {
                if (valueQuestion) {
                    intent = Intent.AGGREGATE;
                    limitN = 1;
                } else {
                    intent = Intent.TOP_K;
                }
            } else {
                intent = Intent.LOOKUP;
            }
            if (howQuestion && wantsLimit && rankN == null) limitN = singularAfterSuperlative(sups, roles) ? 1 : null;
            // superlatives that rank rows: the column after them is a sort key, not a field to show
            Set<Integer> ranking = new HashSet<>();
            for (int k = 0; k < sups.size(); k++) {
                Role r = roles.get(k);
                if (r == Role.ORDERING || (r == Role.ROW && !valueQuestion)) ranking.add(sups.get(k));
            }
            List<String> fields = schema == null ? List.of() : new FieldMentions(q, lx, schema, limitToken, ranking).named();
            return new IntentProfile(intent, wantsOrder, wantsLimit, limitN, distinctCue(), wantsGrouping, fields);
        }

        // ---- aggregates ----

        /** "how many", "how much", "number of" (as a count), or an aggregate word, outside a condition. */
        private boolean aggregateCue() {
            for (int i = 0; i < q.size(); i++) {
                String w = q.lower(i);
                boolean cue = (w.equals("how") && (q.is(i + 1, "many") || q.is(i + 1, "much")) && !duration(i))
                        || (w.equals("number") && q.is(i + 1, "of") && countingNumber(i))
                        || (q.kind(i) == Kind.WORD && lx.in("aggregate", w));
                if (cue && !inCondition(i)) return true;
            }
            return false;
        }

        /** "how many days/months/..." asks for a duration (DATEDIFF), not a count. */
        private boolean duration(int how) {
            return q.is(how + 1, "many") && q.kind(how + 2) == Kind.WORD && lx.in("time-unit", q.at(how + 2).norm());
        }

        /** "number of" counts unless a noun makes it an identifier ("the phone number of the office"). */
        private boolean countingNumber(int i) {
            return i == 0 || q.boundary(i - 1) || NUMBER_OF_BEFORE.contains(q.lower(i - 1));
        }

        /** "How many" / "how much" within the first four tokens ("On average, how many ...", "In how many ..."). */
        private boolean howManyOrMuch() {
            for (int i = 0; i < Math.min(q.size() - 1, 4); i++) {
                if (q.is(i, "how") && (q.is(i + 1, "many") || q.is(i + 1, "much")) && !duration(i)) return true;
            }
            return false;
        }

        /** A comparative word up to three words before i: the word at i is part of a condition. */
        private boolean inCondition(int i) {
            for (int j = i - 1; j >= Math.max(0, i - 3); j--) {
                if (q.boundary(j)) return false;
                if (lx.in("comparative", q.lower(j))) return true;
            }
            return false;
        }

        // ---- grouping ----

        /** for each / for every / in each / within each / per (not a rate) / grouped by / broken down by. */
        private boolean strongGroupingCue() {
            for (int i = 0; i < q.size(); i++) {
                String w = q.lower(i);
                String next = q.lower(i + 1);
                if ((w.equals("for") || w.equals("in") || w.equals("within") || w.equals("across"))
                        && (next.equals("each") || (w.equals("for") && next.equals("every")))) {
                    return true;
                }
                if (w.equals("per") && q.kind(i) == Kind.WORD && !rate(i)) return true;
                if ((w.equals("grouped") || w.equals("group") || w.equals("broken") || w.equals("break")
                        || w.equals("breakdown") || w.equals("split"))
                        && (next.equals("by") || (next.equals("down") && q.is(i + 2, "by")))) {
                    return true;
                }
            }
            return false;
        }

        /**
         * "average number of units per order line" is one average (a rate), not a value per order line: "per"
         * after "average"/"mean" in the same clause, when "number of" comes between or the word before
         * "per" is plural.
         */
        private boolean rate(int per) {
            for (int j = per - 1; j >= 0 && !q.boundary(j); j--) {
                String w = q.lower(j);
                if (w.equals("average") || w.equals("mean")) {
                    boolean numberOf = false;
                    for (int k = j + 1; k < per; k++) numberOf |= q.is(k, "number") && q.is(k + 1, "of");
                    Token before = q.at(per - 1);
                    boolean plural = before.isWord() && !before.norm().equals(before.lower());
                    return numberOf || plural;
                }
            }
            return false;
        }

        /**
         * "by <grouping noun>" or "by <column name>" when the question asks for an aggregate, not after a sort,
         * identify or passive verb.
         */
        private boolean groupingByNoun(boolean aggregate) {
            if (!aggregate) return false;
            for (int i = 0; i < q.size(); i++) {
                if (!q.is(i, "by")) continue;
                String prev = q.lower(i - 1);
                if (lx.in("identify-verb", prev) || lx.in("verb", prev) || prev.endsWith("ed")) continue;
                boolean sortBefore = false;
                for (int j = i - 1; j >= Math.max(0, i - 4); j--) sortBefore |= lx.in("sort-verb", q.lower(j));
                if (sortBefore || q.is(i - 1, "then")) continue;
                int n = i + 1;
                if (q.is(n, "the") || q.is(n, "each") || q.is(n, "their") || q.is(n, "its")) n++;
                if (n < q.size() && q.at(n).isWord() && (lx.in("grouping-noun", q.at(n).norm())
                        || columnKeys.contains(q.at(n).norm())
                        || (q.kind(n + 1) == Kind.WORD && columnKeys.contains(q.at(n).norm() + q.at(n + 1).norm())))) {
                    return true;
                }
            }
            return false;
        }

        /**
         * "each" with an aggregate ("how many products does each vendor supply", "list each status with its number
         * of orders"), "every ... its/their <count>" (each/every not part of a condition), or "their/its <aggregate>"
         * ("list customer names and their total payments").
         */
        private boolean eachWithAggregate(boolean aggregate) {
            if (!aggregate) return false;
            for (int i = 0; i < q.size(); i++) {
                if (q.is(i, "each") && !q.is(i - 1, "than") && !inCondition(i)) return true;
                // "their total payments", "its number of orders": an aggregate per entity
                if ((q.is(i, "their") || q.is(i, "its"))
                        && (lx.in("aggregate", q.lower(i + 1)) || (q.is(i + 1, "number") && q.is(i + 2, "of")))) {
                    return true;
                }
                if (q.is(i, "every") && !q.is(i - 1, "than") && !inCondition(i)) {
                    for (int j = i + 1; j < q.size(); j++) {
                        if ((q.is(j, "its") || q.is(j, "their"))
                                && (lx.in("aggregate", q.lower(j + 1)) || q.is(j + 1, "number"))) {
                            return true;
                        }
                    }
                }
            }
            return false;
        }

        // ---- superlatives, top-k and limits ----

        /** Positions of superlatives: listed adjectives, "most"/"least" (not "at least"), "the first/last X", "top". */
        private List<Integer> superlatives() {
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < q.size(); i++) {
                // a capitalised word inside a sentence is a name ("Min Lin Diecast"), not a superlative
                if (q.kind(i) != Kind.WORD || q.properName(i)) continue;
                String w = q.lower(i);
                String prev = q.lower(i - 1);
                String next = q.lower(i + 1);
                boolean sup = lx.in("superlative", w)
                        || ((w.equals("most") || w.equals("least")) && !prev.equals("at") && !next.equals("of"))
                        || ((w.equals("first") || w.equals("last")) && prev.equals("the") && q.kind(i + 1) == Kind.WORD
                                && !next.startsWith("name") && !next.equals("and") && !next.equals("or")
                                && lx.numberWord(next) == null)
                        || (w.equals("top") && !prev.equals("on") && !prev.equals("at"));
                // "the most expensive": one superlative, counted at "most"
                if (sup && !(lx.in("superlative", w) && (prev.equals("most") || prev.equals("least")))) out.add(i);
            }
            return out;
        }

        private Role role(int s, boolean strongGroup) {
            String prev = q.lower(s - 1);
            if (prev.equals("by") || prev.equals("from") || (prev.equals("to") && fromBefore(s))) return Role.ORDERING;
            for (int j = s + 1; j <= Math.min(q.size() - 1, s + 4) && !q.boundary(j); j++) {
                if ((q.is(j, "first") || q.is(j, "last")) && (q.boundary(j + 1) || q.is(j + 1, "and")
                        || q.is(j + 1, "then"))) {
                    return Role.ORDERING;
                }
            }
            if (inCondition(s)) return Role.CONDITION;
            // "each customer's most recent order"
            if (q.kind(s - 1) == Kind.POSSESSIVE && (q.is(s - 3, "each") || q.is(s - 3, "every"))) return Role.PER_GROUP;
            if (lx.in("possessive", prev)) return Role.POSSESSIVE;
            return strongGroup ? Role.PER_GROUP : Role.ROW;
        }

        private boolean fromBefore(int s) {
            for (int j = s - 2; j >= Math.max(0, s - 4); j--) if (q.is(j, "from")) return true;
            return false;
        }

        /**
         * The N of a ranking: "top N", "first N", "last N", "bottom N", "N <superlative>", and "which/what/the N
         * <noun>" when the question also has a row-picking or ordering superlative.
         */
        private Integer rankLimit(boolean superlative) {
            for (int i = 0; i < q.size(); i++) {
                Integer n = count(i);
                if (n == null) continue;
                String prev = q.lower(i - 1);
                boolean rankWord = prev.equals("top") || prev.equals("first") || prev.equals("last")
                        || prev.equals("bottom") || lx.in("superlative", prev); // "top 5", "the latest 5"
                boolean beforeSuperlative = lx.in("superlative", q.lower(i + 1)) || q.is(i + 1, "most")
                        || q.is(i + 1, "least");
                boolean determiner = LIMIT_NUMBER_BEFORE.contains(prev) && q.kind(i + 1) == Kind.WORD && superlative;
                if (year(i) && !rankWord) continue;
                if (rankWord || beforeSuperlative || determiner) {
                    limitToken = i;
                    return n;
                }
            }
            return null;
        }

        /** "list 5 customers": a number right after an instruction verb (an unordered limit). */
        private Integer imperativeLimit() {
            for (int i = 1; i < q.size(); i++) {
                Integer n = count(i);
                if (n != null && !year(i) && lx.in("imperative", q.lower(i - 1)) && q.kind(i + 1) == Kind.WORD) {
                    limitToken = i;
                    return n;
                }
            }
            return null;
        }

        /** A small positive count at i (digits or one..twenty), not "five or more", "10 percent". */
        private Integer count(int i) {
            Token t = q.at(i);
            Integer n = null;
            if (t.kind() == Kind.NUMBER && t.norm().matches("\\d{1,4}")) n = Integer.parseInt(t.norm());
            else if (t.kind() == Kind.WORD) n = lx.numberWord(t.lower());
            if (n == null || n < 1) return null;
            if (NOT_A_COUNT_AFTER.contains(q.lower(i + 1))) return null;
            return inCondition(i) || q.is(i - 1, "least") || q.is(i - 1, "most") || q.is(i - 1, "exactly") ? null : n;
        }

        private boolean year(int i) {
            Token t = q.at(i);
            return t.kind() == Kind.NUMBER && t.norm().matches("1[5-9]\\d\\d|2\\d\\d\\d");
        }

        /** "top" with no number after it ("the top customers"). */
        private boolean topWithoutNumber() {
            for (int i = 0; i < q.size(); i++) {
                if (q.is(i, "top") && !q.is(i - 1, "on") && !q.is(i - 1, "at")) return true;
            }
            return false;
        }

        /**
         * "What is/was/are/were the <superlative> ..." (also "what's"), possibly after other aggregates ("what are
         * the average and the maximum credit limits"): the question asks for the extreme value itself (MAX/MIN),
         * e.g. "What is the highest credit limit?". "the most/least ..." reads as an entity ("the most expensive
         * product") and stays TOP_K.
         */
        private boolean superlativeValueQuestion(List<Integer> sups, List<Role> roles) {
            if (!(q.is(0, "what") || q.is(0, "which"))) return false;
            boolean be = q.is(1, "is") || q.is(1, "was") || q.is(1, "are") || q.is(1, "were")
                    || q.kind(1) == Kind.POSSESSIVE;
            if (!be || !q.is(2, "the")) return false;
            boolean superlative = false;
            for (int k = 3; k < q.size(); k++) {
                String w = q.lower(k);
                int at = sups.indexOf(k);
                if (at >= 0 && roles.get(at) == Role.ROW && lx.in("superlative", w)) {
                    superlative = true;
                } else if (!(lx.in("aggregate", w) || w.equals("and") || w.equals("or") || w.equals("the")
                        || w.equals(","))) {
                    break;
                }
            }
            return superlative;
        }

        /**
         * Whether a superlative without a number asks for one row: the noun after "which"/"what"/an instruction
         * verb is singular ("which customer", "who is"), else the noun after the first row superlative.
         */
        private boolean singularTarget(List<Integer> sups, List<Role> roles) {
            Boolean plural = pluralTarget();
            return plural != null ? !plural : singularAfterSuperlative(sups, roles);
        }

        /**
         * Whether the question asks for several things by its opening: the noun after "which"/"what"/an instruction
         * verb is plural ("which employees", "list all plants", "who are"): TRUE; singular ("which customer",
         * "what one", "who is"): FALSE; null when no such noun opens the question or a clause.
         */
        Boolean pluralTarget() {
            for (int i = 0; i < q.size(); i++) {
                // the question word opens the question or a clause ("Among ..., which one has ...")
                boolean opens = i == 0 || q.boundary(i - 1) || (i == 1 && q.kind(0) == Kind.WORD
                        && Set.of("in", "on", "at", "for", "from", "to", "of", "by", "with").contains(q.lower(0)));
                if (!opens) continue;
                if (q.is(i, "who")) {
                    String v = q.lower(i + 1);
                    return v.equals("are") || v.equals("were") || v.equals("have");
                }
                if (q.is(i, "which") || q.is(i, "what") || lx.in("imperative", q.lower(i))) {
                    int j = i + 1;
                    if (q.is(j, "one")) return false;
                    if (lx.in("imperative", q.lower(i)) && (q.is(j, "me") || q.is(j, "us"))) j++;
                    if (q.is(j, "the") || q.is(j, "all") || q.is(j, "a") || q.is(j, "an")) j++;
                    Token head = null;
                    for (int k = j; k < Math.min(q.size(), j + 4); k++) {
                        Token t = q.at(k);
                        if (!t.isWord() || lx.in("verb", t.lower()) || t.lower().endsWith("ed")
                                || lx.in("superlative", t.lower()) || t.lower().equals("most")
                                || t.lower().equals("least") || t.lower().equals("with") || t.lower().equals("of")
                                || t.lower().equals("whose") || t.lower().equals("that") || t.lower().equals("who")) {
                            break;
                        }
                        // after the noun, an -s word followed by an article is a verb: "which employee uses the ..."
                        if (head != null && plural(t) && ARTICLES.contains(q.lower(k + 1))) break;
                        head = t;
                        // a plural noun ends the phrase: "which employees earn ..." ("sales" is a modifier: "sales rep")
                        if (plural(t) && !t.lower().equals("sales")) break;
                    }
                    if (head != null && !q.is(i + 1, "is") && !q.is(i + 1, "was") && !q.is(i + 1, "are")
                            && !q.is(i + 1, "were")) {
                        return plural(head);
                    }
                    return null;
                }
            }
            return null;
        }

        /** The first word-noun after the first row superlative (skipping "most"/"least" + adjective) is singular. */
        private boolean singularAfterSuperlative(List<Integer> sups, List<Role> roles) {
            for (int k = 0; k < sups.size(); k++) {
                if (roles.get(k) != Role.ROW) continue;
                int i = sups.get(k);
                int j = i + 1;
                // "the most expensive products": skip the adjective; "the most orders": the noun follows directly
                if ((q.is(i, "most") || q.is(i, "least")) && q.kind(j + 1) == Kind.WORD && !stopsNoun(j + 1)) j++;
                Token last = null;
                for (; j < q.size() && q.at(j).isWord() && !stopsNoun(j); j++) {
                    last = q.at(j);
                }
                return last == null || !plural(last);
            }
            return true;
        }

        private boolean stopsNoun(int i) {
            return q.is(i, "of") || q.is(i, "in") || q.is(i, "with") || q.is(i, "for") || q.is(i, "among")
                    || lx.in("verb", q.lower(i));
        }

        private boolean plural(Token t) {
            String w = t.lower();
            return w.equals("people") || w.equals("men") || w.equals("women") || w.equals("children")
                    || !t.norm().equals(w);
        }

        // ---- order and distinct ----

        /**
         * sorted, ordered by, order by, in alphabetical/ascending/... order, in order of, in the order they ...,
         * alphabetically, ascending, descending, rank(ed), then by, from A to Z. Not "in that order" (columns).
         */
        private boolean orderCue() {
            for (int i = 0; i < q.size(); i++) {
                if (q.kind(i) != Kind.WORD) continue;
                String w = q.lower(i);
                String next = q.lower(i + 1);
                if (lx.in("order", w)) return true;
                if ((w.equals("order") || w.equals("ordered") || w.equals("sorted") || w.equals("arranged"))
                        && next.equals("by")) {
                    return true;
                }
                if (w.equals("in") && next.equals("order") && q.is(i + 2, "of")) return true;
                if (w.equals("in") && next.equals("the") && q.is(i + 2, "order")
                        && ORDER_IN_THE_NEXT.contains(q.lower(i + 3))) {
                    return true;
                }
                if (w.equals("in") && lx.in("order-adjective", next) && q.is(i + 2, "order")) return true;
                if (w.equals("in") && lx.in("order-adjective", next) && q.is(i + 3, "order")) return true;
                if (w.equals("then") && next.equals("by")) return true;
                if (w.equals("from") && next.equals("a") && q.is(i + 2, "to") && q.is(i + 3, "z")) return true;
                if ((w.equals("increasing") || w.equals("decreasing")) && q.is(i - 1, "by")) return true;
            }
            return false;
        }

        /**
         * distinct, unique, deduplicated; "different" (not "a different", "different from/than"); "once" (not "only
         * once", "more than once", "at least once", "exactly once"); "no/without duplicates", "without repetition".
         */
        private boolean distinctCue() {
            for (int i = 0; i < q.size(); i++) {
                if (q.kind(i) != Kind.WORD) continue;
                String w = q.lower(i);
                String prev = q.lower(i - 1);
                String next = q.lower(i + 1);
                if (w.equals("distinct") || w.equals("unique") || w.equals("deduplicated")) return true;
                if (w.equals("different") && !prev.equals("a") && !prev.equals("an") && !prev.equals("another")
                        && !next.equals("from") && !next.equals("than") && !next.equals("to")) {
                    return true;
                }
                if (w.equals("once") && !Set.of("only", "just", "than", "least", "most", "exactly", "all", "at")
                        .contains(prev)) {
                    return true;
                }
                if ((w.equals("duplicate") || w.equals("duplicates") || w.equals("duplication")
                        || w.equals("repetition") || w.equals("repeats") || w.equals("repeated"))
                        && (prev.equals("no") || prev.equals("without"))) {
                    return true;
                }
            }
            return false;
        }
    }
}
