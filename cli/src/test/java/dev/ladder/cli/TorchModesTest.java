package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code pip} torch mode end to end on a CPU: a pip-shaped torch folder whose {@code lib/} holds DJL's own extracted
 * CPU libtorch, loaded by a new JVM without the bundled CPU jar on its class path. Greedy generation must equal the
 * bundled mode's, and {@code ladder env} must report the folder it really loaded.
 */
class TorchModesTest {

    @TempDir static Path tmp;
    static Path model;
    static Path pipTorch;

    @BeforeAll
    static void tinyModelAndPipFolder() throws IOException {
        model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 3, DType.F32);
        // the bundled mode's libtorch, as this JVM extracted it
        Path extracted = Path.of(TorchRuntime.info().libtorchPath());
        pipTorch = tmp.resolve("site-packages").resolve("torch");
        Path lib = Files.createDirectories(pipTorch.resolve("lib"));
        try (Stream<Path> files = Files.list(extracted)) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches(".*\\.so(\\.\\d+)*")).toList()) {
                // DJL's bridge is extracted per flavor by the child itself; only libtorch's own libraries go here
                if (f.getFileName().toString().contains("djl_torch")) continue;
                Files.createSymbolicLink(lib.resolve(f.getFileName()), f);
            }
        }
        Files.writeString(pipTorch.resolve("version.py"), "__version__ = '2.7.1+cpu'\ncuda = None\n");
    }

    private record Child(int code, String out, String err) {}

    private static Child ladder(Map<String, String> env, boolean bundledJar, String... args) throws Exception {
        return ladder(env, bundledJar, List.of("-Dai.djl.offline=true"), args);
    }

    private static Child ladder(Map<String, String> env, boolean bundledJar, List<String> jvm, String... args)
            throws Exception {
        String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                // the CLI's own class path: main classes and jars (no test logging set-up)
                .filter(e -> !e.endsWith("test-classes") && !e.endsWith("-tests.jar"))
                .filter(e -> bundledJar || !Path.of(e).getFileName().toString().startsWith("pytorch-native-cpu"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-DDJL_CACHE_DIR=" + tmp.resolve("djl-cache"), "-Dladder.cache.dir=" + tmp.resolve("cache")));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", cp, "dev.ladder.cli.Ladder"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("LADDER_TORCH");
        pb.environment().remove("PYTORCH_LIBRARY_PATH");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        return new Child(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void pipModeGeneratesWhatTheBundledModeGenerates() throws Exception {
        String[] generate = {"generate", "--model", model.toString(), "--prompt-ids", "5,9,2,7", "--json", "--greedy",
                "--max-tokens", "12"};
        Child bundled = ladder(Map.of(), true, generate);
        assertThat(bundled.code()).as(bundled.err()).isZero();
        Child pip = ladder(Map.of("LADDER_TORCH", "pip", "LADDER_TORCH_DIR", pipTorch.toString()), false, generate);
        assertThat(pip.code()).as(pip.err()).isZero();
        assertThat(pip.out()).as(pip.err()).isEqualTo(bundled.out());
        assertThat(new ObjectMapper().readTree(pip.out()).get("ids").size()).isEqualTo(12);

        Child env = ladder(Map.of("LADDER_TORCH", "pip", "LADDER_TORCH_DIR", pipTorch.toString()), false, "env", "--json");
        assertThat(env.code()).as(env.err()).isZero();
        JsonNode e = new ObjectMapper().readTree(env.out());
        assertThat(e.get("torch.mode").asText()).isEqualTo("pip");
        assertThat(e.get("pytorch.path").asText()).isEqualTo(pipTorch.resolve("lib").toRealPath().toString());
        assertThat(e.get("pytorch.version").asText()).isEqualTo("2.7.1");
        assertThat(e.get("pytorch.flavor").asText()).isEqualTo("cpu");
        assertThat(e.get("pytorch.cuda").asText()).isEqualTo("false");
        assertThat(e.get("device.default").asText()).isEqualTo("cpu");
    }

    @Test
    void refusalsAreOneLineWithExitTwo() throws Exception {
        Files.createDirectories(tmp.resolve("old/torch/lib"));
        Files.writeString(tmp.resolve("old/torch/lib/libtorch.so"), "");
        Files.writeString(tmp.resolve("old/torch/version.py"), "__version__ = '1.13.1'\ncuda = None\n");
        Child old = ladder(Map.of("LADDER_TORCH", "pip", "LADDER_TORCH_DIR", tmp.resolve("old/torch").toString()), false,
                "generate", "--model", model.toString(), "--prompt-ids", "1", "--max-tokens", "2");
        assertThat(old.code()).isEqualTo(2);
        assertThat(old.err().strip()).doesNotContain("\n")
                .contains("the installed torch is 1.13.1").contains("needs 2.7.1").contains("pip install torch==2.7.1");

        Child cuda = ladder(Map.of(), true, "generate", "--model", model.toString(), "--prompt-ids", "1",
                "--max-tokens", "2", "--device", "cuda");
        assertThat(cuda.code()).isEqualTo(2);
        assertThat(cuda.err().strip()).doesNotContain("\n").contains("has no CUDA").contains("LADDER_TORCH=pip");

        // download mode: without the CPU jar DJL goes for its CDN; here every HTTPS connection goes to a closed local
        // port (a proxy that is not there), so the download fails the same way with or without internet
        Child download = ladder(Map.of("LADDER_TORCH", "download"), false, List.of("-Dai.djl.offline=false",
                "-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=9", "-DDJL_CACHE_DIR=" + tmp.resolve("empty-djl")), "env");
        assertThat(download.code()).as(download.err()).isEqualTo(2);
        assertThat(download.err().strip()).doesNotContain("\n")
                .startsWith("ladder: cannot start the PyTorch engine (LADDER_TORCH=download)")
                .contains("DJL downloads libtorch from publish.djl.ai");
        Child offlineDownload = ladder(Map.of("LADDER_TORCH", "download"), false, "env");
        assertThat(offlineDownload.code()).isEqualTo(2);
        assertThat(offlineDownload.err().strip()).isEqualTo("ladder: LADDER_TORCH=download needs DJL online, but "
                + "ai.djl.offline=true (LADDER_JAVA_OPTS?)");

        Child unknown = ladder(Map.of("LADDER_TORCH", "gpu"), true, "env");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err().strip()).isEqualTo("ladder: LADDER_TORCH must be bundled, pip, download or bridge, got 'gpu'");
    }
}
