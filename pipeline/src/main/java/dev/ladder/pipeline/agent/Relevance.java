package dev.ladder.pipeline.agent;

import dev.ladder.pipeline.agent.SchemaSubset.Lexicon;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Identifiers;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaReferences;
import dev.ladder.sql.read.SqlVocabulary;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The candidate score's relevance part: how well the tables, columns and values a query uses match the words of the
 * question (precision), and how many of the question's schema and value words the query covers (coverage).
 */
final class Relevance {

    /** Month and day names: questions spell them, SQL writes dates as numbers, so they are not value words. */
    private static final Set<String> CALENDAR = Set.of(
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday");
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:,\\d{3})*(?:\\.\\d+)?");

    private Relevance() {}

    /**
     * Half precision, half coverage. Precision: the mean support of what the SQL uses — each schema table (by its
     * name, or by the best-supported column of it the SQL uses), each schema column except foreign-key columns
     * between two used tables when the SQL joins or nests (join plumbing), and each string literal. Coverage: the share of the question's schema words and value words the SQL covers.
     */
    static double score(String question, Schema schema, Query q, List<String> reasons) {
        Lexicon lex = Lexicon.of(schema);
        Set<String> words = new HashSet<>(Lexicon.questionWords(question));
        String questionLower = question.toLowerCase(Locale.ROOT);
        Set<String> questionTokens = new HashSet<>();
        for (String w : questionLower.split("[^\\p{L}\\p{N}]+")) {
            if (!w.isEmpty()) {
                questionTokens.add(w);
                questionTokens.add(Lexicon.stem(w));
            }
        }
        Set<String> questionNumbers = numbers(question);
        List<SqlToken> t = q.tokens();

        SchemaReferences used = q.references(schema);
        Map<String, Table> tables = used.tables();
        Map<String, String> columns = used.columns();
        Set<String> joinKeys = new HashSet<>();
        if (q.joins() + q.subqueries() > 0) {
            for (ForeignKey fk : schema.foreignKeys()) {
                if (tables.containsKey(fk.table().toLowerCase(Locale.ROOT))
                        && tables.containsKey(fk.referencedTable().toLowerCase(Locale.ROOT))) {
                    fk.columns().forEach(c -> joinKeys.add(c.toLowerCase(Locale.ROOT)));
                    fk.referencedColumns().forEach(c -> joinKeys.add(c.toLowerCase(Locale.ROOT)));
                }
            }
        }
        // a column compared with a value the question states is supported by that value
        Map<String, Double> byValue = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = Identifiers.name(t, i);
            if (name == null || !columns.containsKey(name.toLowerCase(Locale.ROOT))) continue;
            SqlToken value = comparedValue(t, i);
            if (value == null) continue;
            double s = value.type() == SqlToken.Type.STRING
                    ? literalSupport(Identifiers.unquote(value), questionLower, questionTokens)
                    : questionNumbers.contains(value.text()) ? 1 : 0;
            byValue.merge(name.toLowerCase(Locale.ROOT), s, Math::max);
        }

        List<Double> supports = new ArrayList<>();
        List<String> unsupported = new ArrayList<>();
        for (Table tab : tables.values()) {
            // a table the question does not name is still justified by a column of it the question names
            double s = support(lex.parts(tab.name()), words);
            for (Map.Entry<String, String> c : columns.entrySet()) {
                if (!joinKeys.contains(c.getKey()) && tab.column(c.getValue()).isPresent()) {
                    s = Math.max(s, support(lex.parts(c.getValue()), words));
                }
            }
            supports.add(s);
            if (s == 0) unsupported.add(tab.name());
        }
        for (Map.Entry<String, String> c : columns.entrySet()) {
            if (joinKeys.contains(c.getKey())) continue;
            double s = Math.max(support(lex.parts(c.getValue()), words), byValue.getOrDefault(c.getKey(), 0.0));
            supports.add(s);
            if (s == 0) unsupported.add(c.getValue());
        }
        List<String> literals = new ArrayList<>();
        for (String lit : q.strings()) {
            literals.add(lit.toLowerCase(Locale.ROOT));
            double s = literalSupport(lit, questionLower, questionTokens);
            supports.add(s);
            if (s == 0) unsupported.add("'" + lit + "'");
        }
        double precision = supports.isEmpty() ? 0 : supports.stream().mapToDouble(Double::doubleValue).average().orElse(0);

        Set<String> usedParts = new HashSet<>();
        tables.values().forEach(tab -> usedParts.addAll(lex.parts(tab.name())));
        columns.values().forEach(c -> usedParts.addAll(lex.parts(c)));
        for (String lit : literals) {
            for (String w : lit.split("[^\\p{L}\\p{N}]+")) if (!w.isEmpty()) usedParts.add(Lexicon.stem(w));
        }
        Set<String> sqlNumbers = new HashSet<>(q.numbers());
        List<String> uncovered = new ArrayList<>();
        int wanted = 0;
        Map<String, String> spelled = new LinkedHashMap<>();
        for (String w : question.split("[^\\p{L}\\p{N}]+")) {
            List<String> stem = Lexicon.questionWords(w);
            if (!stem.isEmpty()) spelled.putIfAbsent(stem.get(0), w.toLowerCase(Locale.ROOT));
        }
        for (String w : spelled.keySet()) {
            if (!lex.vocabulary().contains(w)) continue;
            wanted++;
            if (!usedParts.contains(w)) uncovered.add(spelled.get(w));
        }
        for (String v : questionValues(question, lex)) {
            wanted++;
            if (!valueCovered(v, literals, sqlNumbers)) uncovered.add(v);
        }
        double coverage = wanted == 0 ? 1 : (wanted - uncovered.size()) / (double) wanted;

        if (supports.isEmpty()) reasons.add("relevance: the SQL uses no table, column or value of the schema");
        else if (!unsupported.isEmpty()) {
            reasons.add("relevance: the question does not mention " + String.join(", ", unsupported));
        }
        if (!uncovered.isEmpty()) reasons.add("relevance: the SQL does not cover " + String.join(", ", uncovered));
        return 0.5 * precision + 0.5 * coverage;
    }

    /** The share of an identifier's parts that are question words. */
    private static double support(List<String> parts, Set<String> words) {
        if (parts.isEmpty()) return 0;
        return parts.stream().filter(words::contains).count() / (double) parts.size();
    }

    /**
     * 1 when the literal (without LIKE wildcards) is part of the question; otherwise the share of its words found in
     * the question, where numbers of one or two digits (month and day parts of dates) do not count.
     */
    private static double literalSupport(String literal, String questionLower, Set<String> questionTokens) {
        String text = literal.toLowerCase(Locale.ROOT).replace("%", " ").replace("_", " ").strip();
        if (text.isEmpty()) return 0;
        if (questionLower.contains(text)) return 1;
        List<String> parts = new ArrayList<>();
        for (String w : text.split("[^\\p{L}\\p{N}]+")) {
            if (w.isEmpty() || (w.length() <= 2 && w.chars().allMatch(Character::isDigit))) continue;
            parts.add(w);
        }
        if (parts.isEmpty()) return 0;
        long found = parts.stream().filter(w -> questionTokens.contains(w) || questionTokens.contains(Lexicon.stem(w)))
                .count();
        return found / (double) parts.size();
    }

    /** A value word is covered by a literal that contains it (or its first letters: Australian, 'Australia'). */
    private static boolean valueCovered(String value, List<String> literals, Set<String> sqlNumbers) {
        if (sqlNumbers.contains(value)) return true;
        String prefix = value.length() >= 6 ? value.substring(0, value.length() - 2) : value;
        return literals.stream().anyMatch(l -> l.contains(value) || l.contains(prefix));
    }

    /**
     * Words of the question that name values rather than schema elements: numbers (thousands separators removed),
     * words with letters and digits (codes like S18_3232), all-capital words (USA, EMEA) and capitalised words that
     * do not start a sentence (France, Harley) — unless they are schema words, stop words or month and day names.
     */
    static List<String> questionValues(String question, Lexicon lex) {
        Set<String> out = new LinkedHashSet<>();
        boolean sentenceStart = true;
        for (String chunk : question.strip().split("\\s+")) {
            boolean initial = sentenceStart;
            sentenceStart = chunk.matches(".*[.?!:]['\")]*");
            String w = chunk.replaceAll("^[^\\p{L}\\p{N}]+|[^\\p{L}\\p{N}]+$", "");
            if (w.isEmpty()) continue;
            String lower = w.toLowerCase(Locale.ROOT);
            if (w.chars().anyMatch(Character::isDigit)) {
                if (NUMBER.matcher(w).matches()) out.add(w.replace(",", ""));
                else out.add(lower);
                continue;
            }
            boolean acronym = w.length() >= 2 && w.equals(w.toUpperCase(Locale.ROOT));
            boolean capital = Character.isUpperCase(w.charAt(0));
            if (!acronym && !(capital && !initial)) continue;
            if (lex.vocabulary().contains(Lexicon.stem(lower)) || CALENDAR.contains(lower)) continue;
            if (!acronym && Lexicon.STOPWORDS.contains(lower)) continue;
            for (String part : lower.split("[^\\p{L}\\p{N}]+")) if (part.length() > 1) out.add(part);
        }
        return List.copyOf(out);
    }

    private static Set<String> numbers(String text) {
        Set<String> out = new HashSet<>();
        Matcher m = NUMBER.matcher(text);
        while (m.find()) out.add(m.group().replace(",", ""));
        return out;
    }

    /** The literal a column at {@code i} is compared with ({@code col = 'x'}, {@code YEAR(col) = 2004}, IN, LIKE). */
    private static SqlToken comparedValue(List<SqlToken> t, int i) {
        int j = i + 1;
        if (j < t.size() && t.get(j).isSymbol(")")) j++;
        if (j < t.size() && t.get(j).isWord("NOT")) j++;
        if (j >= t.size()) return null;
        SqlToken op = t.get(j);
        boolean comparison = op.type() == SqlToken.Type.SYMBOL && SqlVocabulary.COMPARISONS.contains(op.text());
        if (!comparison && !op.isWord("LIKE") && !op.isWord("IN") && !op.isWord("BETWEEN")) return null;
        int k = j + 1;
        if (op.isWord("IN") && k < t.size() && t.get(k).isSymbol("(")) k++;
        if (k >= t.size()) return null;
        SqlToken v = t.get(k);
        return v.type() == SqlToken.Type.STRING || v.type() == SqlToken.Type.NUMBER ? v : null;
    }
}
