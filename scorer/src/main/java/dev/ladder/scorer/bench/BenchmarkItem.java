package dev.ladder.scorer.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One benchmark question with its gold SQL.
 *
 * @param id           unique within the benchmark
 * @param question     plain English, as a business user would ask it
 * @param sql          gold SQL in the database's dialect
 * @param category     primary category, one of {@link #CATEGORIES} (imports may use "imported")
 * @param difficulty   easy / medium / hard / extra by Spider's hardness rule ({@link SqlFeatures#hardness})
 * @param orderMatters true only when the question asks for an order
 * @param alternatives other gold SQL accepted as equivalent
 * @param db           database the item runs on (imports; empty means the benchmark's database)
 * @param evidence     BIRD-style external knowledge (empty when none)
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record BenchmarkItem(
        String id,
        String question,
        String sql,
        String category,
        String difficulty,
        @JsonProperty("order_matters") boolean orderMatters,
        List<String> alternatives,
        String db,
        String evidence) {

    public static final List<String> CATEGORIES = List.of("lookup", "filter", "join", "multi-join", "aggregate",
            "group-by", "having", "top-k", "nested", "set-op", "date", "null-handling", "self-join", "window");
    public static final List<String> DIFFICULTIES = List.of("easy", "medium", "hard", "extra");
    static final Set<String> IMPORTED = Set.of("imported");

    public BenchmarkItem {
        alternatives = alternatives == null ? List.of() : List.copyOf(alternatives);
        db = db == null ? "" : db;
        evidence = evidence == null ? "" : evidence;
    }

    /** Gold SQL and every alternative. */
    public List<String> allGold() {
        return Stream.concat(Stream.of(sql), alternatives.stream()).toList();
    }
}
