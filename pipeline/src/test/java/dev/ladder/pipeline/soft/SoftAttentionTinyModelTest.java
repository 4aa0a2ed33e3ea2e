package dev.ladder.pipeline.soft;

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

/** Soft attention end to end with the real engine and a tiny random-weight model. */
class SoftAttentionTinyModelTest {

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
        SoftSettings s = new SoftSettings(true, true, 1, 0.5, 1, 1000, false, true, 16);
        StrategyContext ctx = StrategyContext.of(model, TestData.classicModels(), new FixedExemplars(List.of(), List.of()),
                Settings.DEFAULT.with(SoftSettings.BLOCK, s));
        for (String q : List.of("How many offices are there?", "Which employees report to the president?")) {
            Answer a = Strategies.byName(SoftAttentionStrategy.NAME).answer(new Question("t", q), ctx);
            Trace t = a.trace();
            // the tiny model's context is short: a long prompt may leave it no room, which must not crash either
            assertThat(t.steps(dev.ladder.pipeline.strategy.TraceStep.Generate.class)).isNotEmpty();
            assertThat(t.decision()).isNotBlank();
            if (a.empty()) assertThat(t.chosen()).isEqualTo("none");
            assertThat(Trace.fromJson(t.toJson())).isEqualTo(t);
        }
    }
}
