package dev.ladder.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FingerprintsTest {

    @TempDir Path tmp;

    private static final int LARGE = 13 << 20;   // over 3 samples of 4 MiB: sampled

    private Path model(String name) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(dir.resolve("config.json"), "{\"hidden_size\": 64}");
        Files.writeString(dir.resolve("tokenizer.json"), "{\"model\": {}}");
        byte[] weights = new byte[LARGE];
        new Random(1).nextBytes(weights);
        Files.write(dir.resolve("model.safetensors"), weights);
        return dir;
    }

    private static void flipByte(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0xFF);
        }
    }

    @Test
    void sameFilesSameFingerprintWhereverAndWheneverTheyAre() throws IOException {
        Path a = model("a");
        Path b = model("b");
        String fp = Fingerprints.ofDirectory(a);
        assertThat(fp).matches("[0-9a-f]{64}");
        // other path, other mtime, unrelated files: the same model
        Files.setLastModifiedTime(b.resolve("model.safetensors"), FileTime.fromMillis(0));
        Files.writeString(b.resolve("README.md"), "notes");
        Files.writeString(b.resolve("ladder-pull.json"), "{\"pulled\": \"today\"}");
        Files.createDirectories(b.resolve("original"));
        Files.writeString(b.resolve("original").resolve("config.json"), "{}");
        assertThat(Fingerprints.ofDirectory(b)).isEqualTo(fp);
        assertThat(Fingerprints.ofDirectory(a)).isEqualTo(fp);
    }

    @Test
    void sensitiveToNamesSizesAndSampledContent() throws IOException {
        Path dir = model("m");
        String fp = Fingerprints.ofDirectory(dir);
        Path weights = dir.resolve("model.safetensors");

        Files.writeString(dir.resolve("config.json"), "{\"hidden_size\": 65}");
        String config = Fingerprints.ofDirectory(dir);
        assertThat(config).isNotEqualTo(fp);
        Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": 2}");
        assertThat(Fingerprints.ofDirectory(dir)).isNotEqualTo(config);
        Files.delete(dir.resolve("generation_config.json"));
        Files.writeString(dir.resolve("config.json"), "{\"hidden_size\": 64}");
        assertThat(Fingerprints.ofDirectory(dir)).isEqualTo(fp);

        for (long at : new long[] {0, LARGE / 2, LARGE - 1}) {
            flipByte(weights, at);
            assertThat(Fingerprints.ofDirectory(dir)).as("byte %d", at).isNotEqualTo(fp);
            flipByte(weights, at);
        }
        // outside the three samples a change goes unnoticed: the documented price of not reading 16 GB
        flipByte(weights, Fingerprints.SAMPLE + 10);
        assertThat(Fingerprints.ofDirectory(dir)).isEqualTo(fp);
        flipByte(weights, Fingerprints.SAMPLE + 10);

        Files.move(weights, dir.resolve("model-00001-of-00001.safetensors"));
        assertThat(Fingerprints.ofDirectory(dir)).isNotEqualTo(fp);
    }

    @Test
    void aDirectoryWithoutModelFilesIsAnError() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Files.writeString(empty.resolve("README.md"), "x");
        assertThatThrownBy(() -> Fingerprints.ofDirectory(empty)).isInstanceOf(UserError.class)
                .hasMessageContaining("no model or adapter files");
        assertThatThrownBy(() -> Fingerprints.ofDirectory(tmp.resolve("absent"))).isInstanceOf(UserError.class);
    }

    @Test
    void torchEnvironmentSaysWhatTheEngineLoaded() {
        Map<String, String> env = TorchEnvironment.entries();
        assertThat(env.get("torch.mode")).isEqualTo("bundled");
        assertThat(env.get("pytorch.version")).isEqualTo("2.7.1");
        assertThat(env.get("pytorch.flavor")).isEqualTo("cpu");
        assertThat(Path.of(env.get("pytorch.path")).resolve("libtorch.so")).isRegularFile();
        assertThat(env.get("pytorch.cuda")).isEqualTo("false");
        assertThat(env.get("gpu.count")).isEqualTo("0");
        assertThat(env.get("device.default")).isEqualTo("cpu");
        assertThat(Long.parseLong(env.get("host.memory_total_bytes"))).isPositive();
    }

    @Test
    void environmentNamesTheBuildAndMachine() {
        Map<String, String> env = Fingerprints.environment(tmp);
        assertThat(env).containsKeys("git.sha", "git.dirty", "java.version", "java.vendor", "os.name", "os.arch",
                "cpu.processors", "memory.max_heap_bytes", "djl.version", "ladder.version");
        // what libtorch was loaded is TorchEnvironment's (it starts the engine); this one never guesses it
        assertThat(env).doesNotContainKeys("pytorch.version", "pytorch.flavor");
        assertThat(env.get("git.sha")).isEqualTo("unknown");   // a temp dir is no work tree
        assertThat(env.get("git.dirty")).isEqualTo("unknown");
        assertThat(env.get("djl.version")).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(env.get("ladder.version")).isNotEqualTo("unknown");
        assertThat(env.get("cpu.processors")).isEqualTo(Integer.toString(Runtime.getRuntime().availableProcessors()));
        assertThat(env).doesNotContainKey("run.started");   // the runner dates a run, not the environment
        assertThat(List.copyOf(env.keySet())).isSorted();

        Map<String, String> repo = Fingerprints.environment(Path.of("").toAbsolutePath());
        assertThat(repo.get("git.sha")).matches("[0-9a-f]{40}|unknown");
        if (!repo.get("git.sha").equals("unknown")) assertThat(repo.get("git.dirty")).isIn("true", "false");
    }
}
