package dev.ladder.scorer.score.em;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every ClassicModels gold query parses and is an exact match of itself, with and without values. */
class ExactMatchGoldTest {

    private static final Path DIR = Path.of("src/main/resources/benchmarks/classicmodels");

    @ParameterizedTest
    @ValueSource(strings = {"test.jsonl", "train.jsonl"})
    void everyGoldMatchesItself(String file) throws IOException {
        Path path = DIR.resolve(file);
        assumeTrue(Files.exists(path), "no " + path + " in this checkout");
        ObjectMapper json = new ObjectMapper();
        List<String> failures = new ArrayList<>();
        int items = 0;
        for (String line : Files.readAllLines(path)) {
            if (line.isBlank()) continue;
            JsonNode item = json.readTree(line);
            String sql = item.get("sql").asText();
            items++;
            for (boolean values : new boolean[] {false, true}) {
                ExactMatch em = new ExactMatch(EmTestSchema.CLASSIC_MODELS, values);
                try {
                    EmScore s = em.score(sql, sql);
                    if (!s.match()) failures.add(item.get("id").asText() + " values=" + values + ": " + s);
                } catch (IllegalArgumentException e) {
                    failures.add(item.get("id").asText() + ": " + e.getMessage());
                }
            }
        }
        assertThat(items).isPositive();
        assertThat(failures).isEmpty();
    }
}
