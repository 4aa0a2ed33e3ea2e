package dev.ladder.pipeline.progressive;

import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionError;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Stage 6: the semantic category of a failed answer, from the execution evidence first (the database's error kind),
 * then the judge's reasoning: {@code wrong-table}, {@code wrong-column}, {@code wrong-join}, {@code wrong-filter},
 * {@code wrong-aggregation}, {@code syntax} (low priority: only when the database said so), else {@code other}.
 * The first rule that applies wins, in the order of {@link #CATEGORIES}.
 */
public final class ErrorAnalysis {

    public static final List<String> CATEGORIES = List.of("syntax", "wrong-table", "wrong-column", "wrong-join",
            "wrong-filter", "wrong-aggregation", "other");

    private static final Pattern JOIN = Pattern.compile("\\bjoin(s|ed|ing)?\\b|\\bforeign key\\b|\\bcartesian\\b");
    private static final Pattern AGGREGATION = Pattern.compile(
            "\\b(count|sum|avg|average|max|min|maximum|minimum|total|aggregat\\w*|group(ed|ing)?|group by)\\b");
    private static final Pattern FILTER = Pattern.compile("\\b(filter\\w*|where|condition\\w*|criteri\\w+|restrict\\w*)\\b");
    private static final Pattern TABLE = Pattern.compile("\\btables?\\b");
    private static final Pattern COLUMN = Pattern.compile("\\b(columns?|fields?|attributes?)\\b");

    private ErrorAnalysis() {}

    /** @param execution the final SQL's execution (null: nothing ran) */
    public static String classify(Execution execution, String reasoning) {
        if (execution instanceof Execution.Failure f) {
            ExecutionError.Kind k = f.error().kind();
            if (k == ExecutionError.Kind.SYNTAX) return "syntax";
            if (k == ExecutionError.Kind.UNKNOWN_TABLE) return "wrong-table";
            if (k == ExecutionError.Kind.UNKNOWN_COLUMN) return "wrong-column";
        }
        String r = reasoning == null ? "" : reasoning.toLowerCase(Locale.ROOT);
        if (JOIN.matcher(r).find()) return "wrong-join";
        if (AGGREGATION.matcher(r).find()) return "wrong-aggregation";
        if (FILTER.matcher(r).find()) return "wrong-filter";
        if (TABLE.matcher(r).find()) return "wrong-table";
        if (COLUMN.matcher(r).find()) return "wrong-column";
        return "other";
    }
}
