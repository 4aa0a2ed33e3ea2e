package dev.ladder.pipeline.kit;

import dev.ladder.sql.read.Query;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link IntentClassifier} reads from a question.
 *
 * @param intent         the kind of answer
 * @param wantsOrder     the question asks for an order (sorted, top-k, "highest", "in alphabetical order", ...)
 * @param wantsLimit     the question asks for a bounded number of rows (top-k, "the first 10", a superlative)
 * @param limitN         that number when the question says it (or 1 for a singular superlative), else null
 * @param wantsDistinct  the question asks for distinct/unique values ("which countries", "different", "unique")
 * @param wantsGrouping  the question asks for a result per group ("for each", "per", "by")
 * @param namedFields    schema columns the question names explicitly, in the question's order (column names)
 */
public record IntentProfile(Intent intent, boolean wantsOrder, boolean wantsLimit, Integer limitN,
                            boolean wantsDistinct, boolean wantsGrouping, List<String> namedFields) {
    public IntentProfile {
        namedFields = List.copyOf(namedFields);
    }

    /**
     * Where {@code q} computes less than the question asks: no aggregate for an aggregate question, no GROUP BY for a
     * per-group one (in words; empty when it computes what is asked). Validation and error analysis both read it.
     */
    public List<String> missingAggregation(Query q) {
        List<String> out = new ArrayList<>();
        if (intent == Intent.AGGREGATE && !q.aggregateAnywhere()) {
            out.add("the question asks for an aggregate; the SQL computes none");
        }
        if ((intent == Intent.GROUPED_AGGREGATE || wantsGrouping) && !q.groupingAnywhere()) {
            out.add("the question asks for a result per group; the SQL has no GROUP BY");
        }
        return out;
    }
}
