package dev.ladder.pipeline.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.Strategies;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.TinyModel;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structured search end to end with the real engine: a tiny random-weight model (which writes garbage, never JSON) on
 * ClassicModels and on the bookshop. Nothing may crash; every question is answered or its trace explains why not.
 */
class StructuredSearchTinyModelTest {

    @TempDir static Path dir;
    static DjlLanguageModel model;

    @BeforeAll
    static void load() {
        model = TinyModel.load(dir.resolve("model"));
    }

    @AfterAll
    static void close() {
        if (model != null) model.close();
    }

    @Test
    void everyQuestionIsAnsweredOrExplainedOnBothDatabases() {
        Settings settings = Settings.DEFAULT.with(SearchSettings.BLOCK, SearchSettings.DEFAULT.withRounds(1))
                .withMaxNewTokens(8);
        // the JSON calls have their own budget: keep it small for a tiny model on a CPU
        settings = settings.with(SearchSettings.BLOCK, new SearchSettings(3, 8, 4, 8, 1, 0.6, 0.4, 0.4, 0.2, 0.05, 0.1, true, true,
                true, true, true, true));
        for (Database db : List.of(TestData.classicModels(), Bookshop.open(dir))) {
            StrategyContext ctx = StrategyContext.of(model, db, new FixedExemplars(List.of(), List.of()), settings);
            for (String q : List.of("How many customers are there?", "List every table's first row.")) {
                Answer a = Strategies.byName(StructuredSearchStrategy.NAME).answer(new Question("t", q), ctx);
                Trace t = a.trace();
                assertThat(t.strategy()).isEqualTo(StructuredSearchStrategy.NAME);
                assertThat(t.generatedTokens()).isPositive();
                assertThat(t.steps(TraceStep.Generate.class)).isNotEmpty()
                        .allSatisfy(g -> assertThat(g.stopStrings()).isEmpty());
                assertThat(t.decision()).isNotBlank();
                if (a.empty()) {
                    assertThat(t.chosen()).isEqualTo("none");
                    assertThat(t.steps(TraceStep.Stage.class)).anySatisfy(s -> assertThat(s.stage()).isEqualTo("review"));
                }
                assertThat(Trace.fromJson(t.toJson())).isEqualTo(t);
                assertThat(t.toText()).contains("sketches");
            }
        }
    }
}
