package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run directory belongs to one experiment; a block of a pipeline that no rung runs changes no answer, so a config
 * written when that block's defaults differed (the pipelines' own 512-token budgets before they followed
 * {@code max_new_tokens}) still names the same experiment, while a change to a block a rung runs does not.
 */
class RunIdentityTest {

    private static String resolved(String rungs, String settings) {
        return ExperimentLoader.parse("""
                benchmark: classicmodels
                models: {base: {engine: oracle}}
                strategies: %s
                settings: %s
                """.formatted(rungs, settings), "x.yaml").toResolvedYaml();
    }

    private static Path runDir(Path dir, String config) throws IOException {
        Files.writeString(dir.resolve(RunDirectory.CONFIG), config);
        return dir;
    }

    @Test
    void anIdleBlocksEarlierDefaultsNameTheSameExperiment(@TempDir Path dir) throws IOException {
        String earlier = resolved("[prompt-k0]", "{gsr: {max_tokens: 512}, soft_attention: {max_tokens: 512}}");
        assertThatCode(() -> RunIdentity.checkSameExperiment(runDir(dir, earlier), resolved("[prompt-k0]", "{}")))
                .doesNotThrowAnyException();
    }

    @Test
    void aChangedBlockOfARungsPipelineIsAnotherExperiment(@TempDir Path dir) throws IOException {
        String earlier = resolved("[gsr]", "{gsr: {max_tokens: 512}}");
        assertThatThrownBy(() -> RunIdentity.checkSameExperiment(runDir(dir, earlier), resolved("[gsr]", "{}")))
                .isInstanceOf(UserError.class).hasMessageContaining("holds another experiment")
                .hasMessageContaining("'max_tokens: 512' here, 'max_tokens: max_new_tokens' now");
        assertThatThrownBy(() -> RunIdentity.checkSameExperiment(dir, resolved("[prompt-k0]", "{max_new_tokens: 64}")))
                .isInstanceOf(UserError.class).hasMessageContaining("holds another experiment");
    }

    @Test
    void whereTheFolderWasIsNotPartOfTheExperiment(@TempDir Path dir) throws IOException {
        String ran = ExperimentLoader.parse("""
                benchmark: classicmodels
                output: /old/place/run
                models: {base: {engine: oracle}}
                strategies: [prompt-k0]
                """, "x.yaml").toResolvedYaml();
        String now = ExperimentLoader.parse(ran, "x.yaml").withOutput(dir).toResolvedYaml();
        assertThatCode(() -> RunIdentity.checkSameExperiment(runDir(dir, ran), now)).doesNotThrowAnyException();
        String other = ExperimentLoader.parse(ran.replace("prompt-k0", "prompt-k3"), "x.yaml").withOutput(dir)
                .toResolvedYaml();
        assertThatThrownBy(() -> RunIdentity.checkSameExperiment(dir, other)).isInstanceOf(UserError.class)
                .hasMessageContaining("holds another experiment");
    }
}
