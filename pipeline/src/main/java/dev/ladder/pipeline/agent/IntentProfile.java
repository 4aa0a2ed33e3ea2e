package dev.ladder.pipeline.agent;

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
}
