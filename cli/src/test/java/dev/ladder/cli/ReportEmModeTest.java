package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.cli.LadderCliTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** EM of two modes never stands side by side unlabelled: runs scored in different modes are reported apart. */
class ReportEmModeTest {

    @TempDir Path tmp;

    private Path run(String name, String emMode) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(dir.resolve("environment.json"), "{\"scorers.em_mode\": \"" + emMode + "\"}\n");
        return dir;
    }

    @Test
    void runsOfDifferentEmModesAreNotMerged() throws IOException {
        Path a = run("semantic-run", "semantic");
        Path b = run("strict-run", "spider-strict");
        Run r = LadderCliTest.run("report", a.toString(), b.toString(), "--out", tmp.resolve("merged").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains("scored EM in different modes")
                .contains("semantic").contains("spider-strict").endsWith("report them apart");
        assertThat(tmp.resolve("merged")).doesNotExist();
        assertThat(dev.ladder.eval.report.RunLoader.emMode(tmp)).isEqualTo("semantic");   // a run made before the mode was recorded
    }
}
