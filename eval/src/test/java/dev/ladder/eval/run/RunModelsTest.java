package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.experiment.Experiment;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.example.engine.CannedEngine;
import dev.ladder.inference.CallTag;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.pipeline.oracle.OracleKey;
import dev.ladder.pipeline.oracle.OracleScope;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run's models through their engines: the oracle is loaded with the database scope it answers in, per call (two
 * scopes, two golds), where any other model ignores the scope; what each engine records lands in environment.json.
 */
class RunModelsTest {

    @TempDir static Path tmp;
    static Path tiny;
    static Path sqlite;

    @BeforeAll
    static void data() throws Exception {
        System.setProperty("ai.djl.offline", "true");
        TestData.dataDir().ifPresent(d -> System.setProperty("ladder.data.dir", d.toString()));
        tiny = tmp.resolve("tiny");
        TinyModels.write(tiny, TinyModels.Shape.TINY, 1, DType.F32);
        sqlite = tmp.resolve("scope.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + sqlite); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE alpha (a INTEGER)");
        }
    }

    private static RunPlan plan() throws Exception {
        Path yaml = tmp.resolve("models.yaml");
        Files.writeString(yaml, """
                name: models
                benchmark: classicmodels
                split: train
                limit: 2
                models:
                  oracle: {engine: oracle}
                  canned: {engine: canned, path: %s, reply: "SELECT 3"}
                strategies:
                  - {name: k0-oracle, strategy: prompt-k0, model: oracle}
                  - {name: k0-canned, strategy: prompt-k0, model: canned}
                scorers: {ts: none}
                """.formatted(tiny));
        Experiment e = ExperimentLoader.load(yaml);
        return new RunPlan(e);
    }

    /** A key whose only item is {@code q}, with this gold. */
    private static OracleKey key(String gold) {
        return new OracleKey() {
            @Override
            public Optional<String> gold(String itemId) {
                return itemId.equals("q") ? Optional.of(gold) : Optional.empty();
            }

            @Override
            public boolean answers(String itemId, String sql) {
                return sql.strip().equalsIgnoreCase(gold);
            }
        };
    }

    private static String ask(LanguageModel model) {
        GenerationRequest r = new GenerationRequest("Write the SQL.", null, 32, Sampling.GREEDY, 1, 0, null, null)
                .withTag(CallTag.of("sql", "q"));
        return model.generate(List.of(r)).get(0).candidates().get(0).text();
    }

    @Test
    void theOracleAnswersFromTheScopeItIsLoadedWithAndOtherModelsIgnoreIt() throws Exception {
        StringWriter log = new StringWriter();
        RunModels models = RunModels.resolve(plan(), new PrintWriter(log, true), ModelLoader::load);
        assertThat(models.resolved().get("oracle").modelPrint()).isEqualTo(RunModels.ORACLE_PRINT + "none");
        assertThat(models.perScope("oracle")).isTrue();
        assertThat(models.perScope("canned")).isFalse();

        RunDirectory dir = RunDirectory.create(tmp.resolve("run"));
        try (Database db = Databases.sqlite(sqlite)) {
            OracleScope first = new OracleScope(key("SELECT 1 FROM alpha"), db);
            OracleScope second = new OracleScope(key("SELECT 2 FROM alpha"), db);
            try (LanguageModel a = models.load("oracle", null, dir, first);
                 LanguageModel b = models.load("oracle", null, dir, second)) {
                assertThat(ask(a)).isEqualToIgnoringCase("SELECT 1 FROM alpha");
                assertThat(ask(b)).isEqualToIgnoringCase("SELECT 2 FROM alpha");
            }
            try (LanguageModel canned = models.load("canned", null, dir, first)) {
                assertThat(ask(canned)).isEqualTo("SELECT 3");
            }
        }
        assertThat(log.toString()).contains("model oracle: oracle engine: answers written from the gold");
        @SuppressWarnings("unchecked")
        Map<String, String> env = new ObjectMapper().readValue(dir.dir().resolve(RunDirectory.ENVIRONMENT).toFile(), Map.class);
        assertThat(env).containsEntry("models.oracle.engine", "oracle").containsEntry("models.oracle.oracle_noise", "none")
                .containsEntry("models.canned.engine", CannedEngine.NAME).containsEntry("models.canned.reply", "SELECT 3");
    }

    @Test
    void aRunOverrideThatTheEngineRefusesIsOneLineNamingTheField() throws Exception {
        Experiment e = plan().experiment().withEngineOverride("onnx").withDtypeOverride("f16");
        assertThatThrownBy(() -> RunModels.resolve(new RunPlan(e), new PrintWriter(new StringWriter()), ModelLoader::load))
                .isInstanceOf(UserError.class)
                .hasMessage("models.canned.dtype: engine onnx takes the precision of its export (float32, or int4"
                        + " MatMulNBits weights); leave dtype out, or export another");
    }
}
