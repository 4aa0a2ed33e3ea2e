package dev.ladder.pipeline.progressive;

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
import dev.ladder.sql.db.TestData;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Progressive execution end to end with the real engine and a tiny random-weight model. */
class ProgressiveTinyModelTest {

    @TempDir static Path dir;
    static DjlLanguageModel model;

    @BeforeAll
    static void load() {
        model = TinyModel.load(dir);
    }

    @AfterAll
    static void close() {
        if (model != null) model.close();
    }

    @Test
    void everyQuestionIsAnsweredOrExplained() {
        ProgressiveSettings s = new ProgressiveSettings(0.85, 3, 1, 1.0, true, true, true, 2, 16);
        StrategyContext ctx = StrategyContext.of(model, TestData.classicModels(), new FixedExemplars(List.of(), List.of()),
                Settings.DEFAULT.with(ProgressiveSettings.BLOCK, s));
        for (String q : List.of("How many offices are there?", "Name the product lines.")) {
            Answer a = Strategies.byName(ProgressiveStrategy.NAME).answer(new Question("t", q), ctx);
            Trace t = a.trace();
            assertThat(t.steps(dev.ladder.pipeline.strategy.TraceStep.Generate.class)).isNotEmpty();
            assertThat(t.decision()).isNotBlank();
            if (a.empty()) assertThat(t.chosen()).isEqualTo("none");
            assertThat(Trace.fromJson(t.toJson())).isEqualTo(t);
        }
    }
}
