package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/ladder}, the real script, in a checkout-shaped folder whose {@code java} is a stand-in that prints
 * the command line it was given: the class path per torch mode, the order of the launcher's and the user's JVM
 * options, the mode stored by {@code setup --gpu}, and the refusal of an unknown mode. Also {@code scripts/setup}'s
 * refusals, which come before it builds anything.
 */
class LauncherTest {

    @TempDir Path root;
    Path bin;

    @BeforeEach
    void checkoutWithAFakeJava() throws IOException {
        Files.createDirectories(root.resolve("scripts"));
        Files.copy(Path.of("..", "scripts", "ladder"), root.resolve("scripts/ladder"));
        Path lib = Files.createDirectories(root.resolve("cli/target/lib"));
        Files.writeString(root.resolve("cli/target/ladder-cli-0.1.0.jar"), "");
        for (String jar : List.of("api-0.35.1.jar", "pytorch-engine-0.35.1.jar", "pytorch-jni-2.7.1-0.35.1.jar",
                "pytorch-native-cpu-2.7.1-linux-x86_64.jar", "tokenizers-0.35.1.jar")) {
            Files.writeString(lib.resolve(jar), "");
        }
        bin = Files.createDirectories(root.resolve("fake-bin"));
        Path java = bin.resolve("java");
        // answers the setup script's version probe like a JDK 17, and otherwise prints its arguments
        Files.writeString(java, """
                #!/bin/sh
                case "$1" in -XshowSettings*) echo '    java.specification.version = 17' >&2; exit 0 ;; esac
                for a in "$@"; do echo "$a"; done
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String tool : List.of("mvn", "nvidia-smi")) {
            // a Maven that must never run here, and an nvidia-smi that finds no GPU (whatever this machine has)
            Path t = bin.resolve(tool);
            Files.writeString(t, "#!/bin/sh\necho \"" + tool + " should not have run\" >&2\nexit 9\n");
            Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private record Launch(int code, List<String> args, String err) {}

    private Launch launch(Map<String, String> env) throws Exception {
        return script(env, "scripts/ladder", "env");
    }

    private Launch script(Map<String, String> env, String script, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", root.resolve(script).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("LADDER_TORCH");
        pb.environment().remove("LADDER_JAVA_OPTS");
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile(root, "out", ".txt");
        Path err = Files.createTempFile(root, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Launch(p.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static String classPath(Launch l) {
        return l.args().get(l.args().indexOf("-cp") + 1);
    }

    @Test
    void bundledByDefaultWithTheCpuJarAndOffline() throws Exception {
        Launch l = launch(Map.of());
        assertThat(l.code()).as(l.err()).isZero();
        assertThat(l.args()).contains("-Dai.djl.offline=true", "-Dladder.torch=bundled", "-Dladder.torch.source=default");
        assertThat(classPath(l)).endsWith("cli/target/lib/*");
        assertThat(l.args().subList(l.args().size() - 2, l.args().size())).containsExactly("dev.ladder.cli.Ladder", "env");
    }

    @Test
    void pipAndDownloadLeaveTheCpuJarOut() throws Exception {
        Launch pip = launch(Map.of("LADDER_TORCH", "pip"));
        assertThat(pip.args()).contains("-Dai.djl.offline=true", "-Dladder.torch=pip");
        assertThat(classPath(pip)).contains("pytorch-jni-2.7.1-0.35.1.jar", "tokenizers-0.35.1.jar")
                .doesNotContain("pytorch-native-cpu");
        Launch download = launch(Map.of("LADDER_TORCH", "download"));
        assertThat(download.args()).contains("-Dai.djl.offline=false", "-Dladder.torch=download");
        assertThat(classPath(download)).doesNotContain("pytorch-native-cpu");
        // a self-built bridge: offline, and the bundled CPU libtorch must not be found first either
        Launch bridge = launch(Map.of("LADDER_TORCH", "bridge"));
        assertThat(bridge.args()).contains("-Dai.djl.offline=true", "-Dladder.torch=bridge");
        assertThat(classPath(bridge)).doesNotContain("pytorch-native-cpu");
    }

    @Test
    void theUsersJavaOptionsComeAfterTheLaunchersSoTheyWin() throws Exception {
        Launch l = launch(Map.of("LADDER_JAVA_OPTS", "-Dai.djl.offline=false -Xmx6g"));
        List<String> a = l.args();
        assertThat(a.lastIndexOf("-Dai.djl.offline=false")).isGreaterThan(a.indexOf("-Dai.djl.offline=true"));
        assertThat(a).contains("-Xmx6g");
    }

    @Test
    void setupGpuStoresPipAndTheEnvironmentStillWins() throws Exception {
        Files.writeString(root.resolve(".ladder-torch"), "pip\n");
        Launch stored = launch(Map.of());
        assertThat(stored.args()).contains("-Dladder.torch=pip");
        assertThat(stored.args()).anyMatch(a -> a.startsWith("-Dladder.torch.source=") && a.endsWith(".ladder-torch (scripts/setup --gpu)"));
        Launch env = launch(Map.of("LADDER_TORCH", "bundled"));
        assertThat(env.args()).contains("-Dladder.torch=bundled", "-Dladder.torch.source=LADDER_TORCH");
    }

    @Test
    void aNativeBuildInItsDefaultFolderIsNamedUnlessTheEnvironmentNamesOne() throws Exception {
        assertThat(launch(Map.of()).args()).noneMatch(a -> a.startsWith("-Dladder.native.dir="));
        Files.createDirectories(root.resolve("native/build"));
        Files.writeString(root.resolve("native/build/native.properties"), "torch_version=1.13.0a0\n");
        Launch built = launch(Map.of("LADDER_JAVA_OPTS", "-Dladder.native=off"));
        List<String> a = built.args();
        assertThat(a).contains("-Dladder.native.dir=" + root + "/native/build");
        assertThat(a.indexOf("-Dladder.native=off")).isGreaterThan(a.indexOf("-Dladder.native.dir=" + root + "/native/build"));
        assertThat(launch(Map.of("LADDER_NATIVE_DIR", "/elsewhere")).args()).noneMatch(x -> x.startsWith("-Dladder.native.dir="));
    }

    @Test
    void anUnknownModeIsOneLineAndExitTwo() throws Exception {
        Launch l = launch(Map.of("LADDER_TORCH", "cuda"));
        assertThat(l.code()).isEqualTo(2);
        assertThat(l.args()).isEmpty();
        assertThat(l.err().strip()).isEqualTo("ladder: LADDER_TORCH must be bundled, pip, download or bridge, got 'cuda' (from LADDER_TORCH)");
    }

    @Test
    void setupRefusesTheGpuModeWithoutAGpuAndUnknownOptionsBeforeBuilding() throws Exception {
        Files.copy(Path.of("..", "scripts", "setup"), root.resolve("scripts/setup"));
        Launch gpu = script(Map.of(), "scripts/setup", "--gpu");
        assertThat(gpu.code()).isEqualTo(2);
        assertThat(gpu.err().strip()).isEqualTo("setup --gpu: no NVIDIA GPU found (nvidia-smi missing or failing); "
                + "plain ./scripts/setup runs on the CPU");
        Launch bad = script(Map.of(), "scripts/setup", "--gpus");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().strip()).isEqualTo("setup: unknown option '--gpus' (use --gpu or nothing)");
        assertThat(root.resolve(".ladder-torch")).doesNotExist();
    }

    /**
     * {@code setup --gpu} picks the torch mode from the torch installed: a CUDA torch other than 2.7.1 gets a bridge
     * built for it (no second torch downloaded), 2.7.1+cu128 the pip mode as it is, and a CPU-only torch the pip
     * install of 2.7.1. Maven, the GPU, Python and the bridge build are stand-ins that log what they were asked.
     */
    @Test
    void setupGpuBuildsABridgeForTheInstalledCudaTorchOrInstallsTheOneDjlShips() throws Exception {
        Files.copy(Path.of("..", "scripts", "setup"), root.resolve("scripts/setup"));
        Path log = root.resolve("calls.log");
        stub("nvidia-smi", "echo 'GPU 0: Tesla T4'");
        stub("mvn", "exit 0");
        stub("cmake", "exit 0");
        stub("c++", "exit 0");
        // python: the torch probe answers FAKE_TORCH; anything else (pip) is logged
        stub("fake-python", "case \"$*\" in *'import torch'*) [ \"$FAKE_TORCH\" = none ] && exit 1; echo \"$FAKE_TORCH\" ;; "
                + "*) echo \"python $*\" >> " + log + " ;; esac");
        // java: env reports a CUDA libtorch; the rest prints nothing
        stub("java", "case \"$*\" in -XshowSettings*) echo '    java.specification.version = 17' >&2 ;; "
                + "*--json*) echo '{\"pytorch.cuda\":\"true\"}' ;; *' env') echo 'pytorch.cuda true' ;; esac");
        Path build = root.resolve("scripts/build-bridge");
        Files.writeString(build, "#!/bin/sh\necho \"build-bridge $*\" >> " + log + "\n"
                + "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=\"$2\"; shift; done\n"
                + "mkdir -p \"$out\" && : > \"$out/libdjl_torch.so\" && echo \"torch_version=$FAKE_VERSION\" > \"$out/bridge.properties\"\n");
        Files.setPosixFilePermissions(build, PosixFilePermissions.fromString("rwxr-xr-x"));

        Launch colab = script(Map.of("LADDER_PYTHON", "fake-python", "FAKE_TORCH", "2.8.0+cu126 12.6",
                "FAKE_VERSION", "2.8.0+cu126"), "scripts/setup", "--gpu");
        assertThat(colab.code()).as(colab.err()).isZero();
        assertThat(Files.readString(root.resolve(".ladder-torch")).strip()).isEqualTo("bridge");
        assertThat(Files.readAllLines(log)).containsExactly(
                "build-bridge --python fake-python --out " + root.resolve(".ladder-bridge") + " --cuda on");
        // a second setup with the same torch reuses the bridge
        Launch again = script(Map.of("LADDER_PYTHON", "fake-python", "FAKE_TORCH", "2.8.0+cu126 12.6"), "scripts/setup", "--gpu");
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.args()).anyMatch(l -> l.startsWith("setup --gpu: reusing the bridge"));
        assertThat(Files.readAllLines(log)).hasSize(1);

        Files.delete(log);
        Launch shipped = script(Map.of("LADDER_PYTHON", "fake-python", "FAKE_TORCH", "2.7.1+cu128 12.8"), "scripts/setup", "--gpu");
        assertThat(shipped.code()).as(shipped.err()).isZero();
        assertThat(Files.readString(root.resolve(".ladder-torch")).strip()).isEqualTo("pip");
        assertThat(log).doesNotExist();

        Launch cpuOnly = script(Map.of("LADDER_PYTHON", "fake-python", "FAKE_TORCH", "2.8.0+cpu none"), "scripts/setup", "--gpu");
        assertThat(cpuOnly.code()).as(cpuOnly.err()).isZero();
        assertThat(Files.readAllLines(log)).containsExactly(
                "python -m pip install -q torch==2.7.1 --index-url https://download.pytorch.org/whl/cu128");

        Launch forced = script(Map.of("LADDER_PYTHON", "fake-python", "FAKE_TORCH", "2.8.0+cpu none", "LADDER_TORCH", "bridge"),
                "scripts/setup", "--gpu");
        assertThat(forced.code()).isEqualTo(2);
        assertThat(forced.err().strip()).isEqualTo("setup --gpu: LADDER_TORCH=bridge needs a CUDA build of torch for "
                + "fake-python (found: 2.8.0+cpu none)");
    }

    private void stub(String name, String body) throws IOException {
        Path t = bin.resolve(name);
        Files.writeString(t, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
