package dev.ladder.pipeline.progressive;

import dev.ladder.pipeline.kit.IntentProfile;
import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.kit.Names;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stage 6: the semantic category of an answer that was not accepted, in the method's priority: {@code wrong-table},
 * {@code wrong-column}, {@code wrong-join}, {@code wrong-filter}, {@code wrong-aggregation}, then {@code syntax} (low:
 * only when the database said so and nothing above applies). Evidence is read strongest first:
 * <ol>
 *   <li>the database's error kind (an unknown table or column);</li>
 *   <li>the answer's structure against the question, in the same order: a table the question names by all its words
 *   that the SQL does not read (or one it reads that the schema lacks); a column the schema lacks; tables read with
 *   no join condition connecting them; a number or quoted value of the question the SQL does not contain; an
 *   aggregate or per-group answer asked for and not computed;</li>
 *   <li>the judge's reasoning last, in the same order (words like "count" or "join" occur in almost any reasoning, so
 *   they only decide when nothing structural did).</li>
 * </ol>
 * An answer none of these explains is {@code unclear}, counted apart from the categories.
 */
public final class ErrorAnalysis {

    public static final String UNCLEAR = "unclear";
    public static final List<String> CATEGORIES = List.of("wrong-table", "wrong-column", "wrong-join",
            "wrong-filter", "wrong-aggregation", "syntax", UNCLEAR);

    /**
     * @param category one of {@link #CATEGORIES}
     * @param evidence what decided it, in words ({@code structure: ...}, {@code database: ...}, {@code judge: ...})
     */
    public record Finding(String category, String evidence) {}

    /** What the analysis reads; {@code execution} null when nothing ran, {@code intent} null when not classified. */
    record Inputs(Schema schema, Dialect dialect, String question, IntentProfile intent, String sql,
                  Execution execution, String reasoning) {}

    private static final Pattern TABLE = Pattern.compile("\\btables?\\b");
    private static final Pattern COLUMN = Pattern.compile("\\b(columns?|fields?|attributes?)\\b");
    private static final Pattern JOIN = Pattern.compile("\\bjoin(s|ed|ing)?\\b|\\bforeign key\\b|\\bcartesian\\b");
    private static final Pattern FILTER = Pattern.compile("\\b(filter\\w*|where|condition\\w*|criteri\\w+|restrict\\w*)\\b");
    private static final Pattern AGGREGATION = Pattern.compile(
            "\\b(count|sum|avg|average|max|min|maximum|minimum|total|aggregat\\w*|group(ed|ing)?|group by)\\b");
    private static final Pattern QUOTED = Pattern.compile("[\"'‘“]([^\"'’”]{2,})[\"'’”]");
    /** "in alphabetical order", "order by": the English word for sorting, not a table of orders. */
    private static final Pattern SORTING = Pattern.compile("\\bin(\\s+\\w+){0,2}\\s+order\\b|\\border\\s+by\\b");
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])\\d+(?:\\.\\d+)?(?![\\w.])");

    private ErrorAnalysis() {}

    static Finding classify(Inputs in) {
        ExecutionError.Kind kind = in.execution() instanceof Execution.Failure f ? f.error().kind() : null;
        if (kind == ExecutionError.Kind.UNKNOWN_TABLE) return new Finding("wrong-table", "database: unknown table");
        if (kind == ExecutionError.Kind.UNKNOWN_COLUMN) return new Finding("wrong-column", "database: unknown column");
        Finding structural = in.sql() == null || in.sql().isBlank() ? null : structure(in);
        if (structural != null) return structural;
        if (kind == ExecutionError.Kind.SYNTAX) return new Finding("syntax", "database: syntax error");
        return judged(in.reasoning());
    }

    private static Finding structure(Inputs in) {
        Query q = Query.read(in.sql(), in.dialect());
        SchemaBinding b = q.binding(in.schema());
        if (!b.parsed()) return null;
        if (!b.unknownTables().isEmpty()) {
            return new Finding("wrong-table", "structure: the schema has no table " + b.unknownTables().get(0));
        }
        Set<String> read = new HashSet<>();
        b.tables().forEach(t -> read.add(t.toLowerCase(Locale.ROOT)));
        for (String named : namedTables(in.question(), in.schema())) {
            if (!read.contains(named.toLowerCase(Locale.ROOT))) {
                return new Finding("wrong-table", "structure: the question names " + named + ", which the SQL does not read");
            }
        }
        if (!b.unknownColumns().isEmpty()) {
            return new Finding("wrong-column", "structure: the schema has no column " + b.unknownColumns().get(0).column());
        }
        if (q.subqueries() == 0 && q.setOperations() == 0 && b.tables().size() > 1) {
            List<String> apart = JoinGraph.apart(b.tables(), b.equalities());
            if (!apart.isEmpty()) {
                return new Finding("wrong-join", "structure: " + String.join(", ", apart)
                        + " is read with no join condition to the other tables");
            }
        }
        String sqlLower = in.sql().toLowerCase(Locale.ROOT);
        for (String value : questionValues(in.question())) {
            if (!sqlLower.contains(value.toLowerCase(Locale.ROOT))) {
                return new Finding("wrong-filter", "structure: the question's value " + value + " is not in the SQL");
            }
        }
        List<String> missing = in.intent() == null ? List.of() : in.intent().missingAggregation(q);
        return missing.isEmpty() ? null : new Finding("wrong-aggregation", "structure: " + missing.get(0));
    }

    private static Finding judged(String reasoning) {
        String r = reasoning == null ? "" : reasoning.toLowerCase(Locale.ROOT);
        String[] categories = {"wrong-table", "wrong-column", "wrong-join", "wrong-filter", "wrong-aggregation"};
        Pattern[] patterns = {TABLE, COLUMN, JOIN, FILTER, AGGREGATION};
        for (int i = 0; i < patterns.length; i++) {
            Matcher m = patterns[i].matcher(r);
            if (m.find()) return new Finding(categories[i], "judge: the reasoning says \"" + m.group() + "\"");
        }
        return new Finding(UNCLEAR, reasoning == null || reasoning.isBlank() ? "no reasoning and no structural evidence"
                : "neither the structure nor the reasoning names a category");
    }

    /** Tables the question names by all the words of their name (stemmed alike), in schema order. */
    static List<String> namedTables(String question, Schema schema) {
        Set<String> words = new HashSet<>();
        String text = SORTING.matcher(question.toLowerCase(Locale.ROOT)).replaceAll(" ");
        for (String w : text.split("[^\\p{L}\\p{N}]+")) if (!w.isEmpty()) words.add(Names.stem(w));
        List<String> out = new ArrayList<>();
        for (Table t : schema.tables()) {
            List<String> parts = Names.parts(t.name()).stream().map(Names::stem).toList();
            if (!parts.isEmpty() && words.containsAll(parts)) out.add(t.name());
        }
        return out;
    }

    /** The question's quoted values and numbers (years, counts, amounts), as written. */
    static List<String> questionValues(String question) {
        List<String> out = new ArrayList<>();
        Matcher m = QUOTED.matcher(question);
        while (m.find()) out.add(m.group(1).strip());
        String unquoted = QUOTED.matcher(question).replaceAll(" ");
        Matcher n = NUMBER.matcher(unquoted);
        while (n.find()) out.add(n.group());
        return out;
    }
}
