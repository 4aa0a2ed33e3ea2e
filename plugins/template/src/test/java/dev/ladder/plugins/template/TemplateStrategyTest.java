package dev.ladder.plugins.template;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.prompt.FixedExemplars;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.ScriptedLanguageModel;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.TraceStep;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The template's strategy on a database it makes, with a scripted model around it: the reply is cleaned into the
 * answer, the check executes it and records an answer that does not run, and each switch changes what it does. Its
 * end-to-end test through 'ladder run' belongs in eval's tests (docs/extending.md).
 */
class TemplateStrategyTest {

    @TempDir static Path tmp;
    static Database db;

    @BeforeAll
    static void database() throws Exception {
        Path file = tmp.resolve("garden.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT, height REAL)");
            s.executeUpdate("INSERT INTO plants VALUES (1, 'fern', 0.4), (2, 'oak', NULL)");
        }
        db = Databases.sqlite(file);
    }

    private static Answer ask(ScriptedLanguageModel model, TemplateSettings settings) {
        StrategyContext ctx = StrategyContext.of(model, db, new FixedExemplars(List.of(), List.of()),
                Settings.DEFAULT.with(TemplateSettings.BLOCK, settings));
        return new TemplateStrategy().answer(new Question("q1", "Which plants are there?", ""), ctx);
    }

    @Test
    void theCleanedReplyIsTheAnswerAndTheCheckExecutesIt() {
        Answer a = ask(new ScriptedLanguageModel().then("```sql\nSELECT name FROM plants;\n```"), TemplateSettings.DEFAULT);
        assertThat(a.sql()).isEqualTo("SELECT name FROM plants");
        assertThat(a.trace().steps(TraceStep.Execute.class)).hasSize(1);
        assertThat(a.trace().steps(TraceStep.Stage.class)).isEmpty();
    }

    @Test
    void anAnswerThatDoesNotRunIsRecordedAndTheAblationDoesNotExecute() {
        String wrong = "SELECT colour FROM plants";
        Answer checked = ask(new ScriptedLanguageModel().then(wrong), TemplateSettings.DEFAULT);
        assertThat(checked.trace().steps(TraceStep.Stage.class)).extracting(TraceStep.Stage::summary)
                .containsExactly("does-not-execute");
        Answer unchecked = ask(new ScriptedLanguageModel().then(wrong), new TemplateSettings(false, false));
        assertThat(unchecked.sql()).isEqualTo(wrong);
        assertThat(unchecked.trace().steps(TraceStep.Execute.class)).isEmpty();
    }

    @Test
    void theHintSwitchChangesThePrompt() {
        ScriptedLanguageModel model = new ScriptedLanguageModel().when("Answer with one SQL query", "SELECT id FROM plants")
                .then("SELECT name FROM plants");
        assertThat(ask(model, new TemplateSettings(true, true)).sql()).isEqualTo("SELECT id FROM plants");
        assertThat(ask(model, TemplateSettings.DEFAULT).sql()).isEqualTo("SELECT name FROM plants");
    }

    @Test
    void thePipelineOffersItsStrategyAndSettings() {
        TemplatePipeline p = new TemplatePipeline();
        assertThat(p.strategies()).extracting(s -> s.name()).containsExactly("template");
        assertThat(p.settings()).isSameAs(TemplateSettings.BLOCK);
    }
}
