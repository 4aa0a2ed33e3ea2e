package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user errors of scripts/build-bridge, scripts/build-native and scripts/gpu-check: one line each, exit status 2,
 * nothing built. Their
 * real work (a bridge built and loaded, the bundle and its run half) is rehearsed in CI (.ci/run), where Debian's
 * libtorch is installed; docs/gpu.md has what they measured on a GPU.
 */
class GpuScriptsTest {

    @TempDir Path tmp;

    private record Result(int code, String out, String err) {}

    private Result run(String script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", Path.of("..", "scripts", script).toString()));
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static void oneLine(Result r, String expected) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains(expected);
    }

    @Test
    void buildBridgeRefusesWhatItCannotBuildFrom() throws Exception {
        oneLine(run("build-bridge", "--frobnicate"), "build-bridge: unknown option '--frobnicate'");
        oneLine(run("build-bridge", "--cuda", "maybe"), "--cuda must be auto, on or off, got 'maybe'");
        // every option without its value: one line, exit 2 (not bash's own message and status 1)
        for (String[] flag : new String[][] {{"--torch", "a folder"}, {"--python", "an interpreter"}, {"--out", "a folder"},
            {"--sources", "a folder"}, {"--jobs", "a number"}, {"--cuda", "auto, on or off"}}) {
            oneLine(run("build-bridge", flag[0]), "build-bridge: " + flag[0] + " needs " + flag[1] + " (see --help)");
        }
        oneLine(run("build-bridge", "--out", "--jobs", "2"), "build-bridge: --out needs a folder (see --help)");
        oneLine(run("build-bridge", "--jobs", "99999999999999999999"), "--jobs must be a whole number in 1..1024, got '99999999999999999999'");
        oneLine(run("build-bridge", "--sources", tmp.resolve("nothing").toString()), "no DJL bridge sources in");
        Path torch = Files.createDirectories(tmp.resolve("torch"));
        oneLine(run("build-bridge", "--torch", tmp.resolve("missing").toString()), "no such folder");
        oneLine(run("build-bridge", "--torch", torch.toString()), "neither version.py (a pip torch) nor build-version");
        Files.writeString(torch.resolve("version.py"), "__version__ = '1.12.1'\ncuda = None\n");
        Files.createDirectories(torch.resolve("lib"));
        oneLine(run("build-bridge", "--torch", torch.toString()), "lib/libtorch.so is missing");
        Files.writeString(torch.resolve("lib/libtorch.so"), "");
        Files.createDirectories(torch.resolve("include/torch"));
        oneLine(run("build-bridge", "--torch", torch.toString()), "torch 1.12.1 is too old: DJL 0.35.1's bridge needs 1.13 or later");
        Files.writeString(torch.resolve("version.py"), "__version__ = '2.11.0'\ncuda = None\n");
        oneLine(run("build-bridge", "--torch", torch.toString(), "--cuda", "on"), "--cuda on, but torch 2.11.0 in");
        assertThat(tmp.resolve("torch").resolve(".ladder-bridge")).doesNotExist();
    }

    @Test
    void buildNativeRefusesWhatItCannotBuildFrom() throws Exception {
        oneLine(run("build-native", "--frobnicate"), "build-native: unknown option '--frobnicate'");
        oneLine(run("build-native", "--cuda", "maybe"), "--cuda must be auto, on or off, got 'maybe'");
        for (String[] flag : new String[][] {{"--torch", "a folder"}, {"--libtorch", "a folder"},
            {"--python", "an interpreter"}, {"--out", "a folder"}, {"--jobs", "a number"}, {"--cuda", "auto, on or off"}}) {
            oneLine(run("build-native", flag[0]), "build-native: " + flag[0] + " needs " + flag[1] + " (see --help)");
        }
        oneLine(run("build-native", "--out", "--cuda", "off"), "build-native: --out needs a folder (see --help)");
        oneLine(run("build-native", "--jobs", "0"), "--jobs must be a whole number in 1..1024, got '0'");
        oneLine(run("build-native", "--python", tmp.resolve("no-python").toString()), "no-python not found");
        Path torch = Files.createDirectories(tmp.resolve("torch"));
        oneLine(run("build-native", "--libtorch", tmp.resolve("missing").toString()), "no such folder");
        oneLine(run("build-native", "--torch", torch.toString()), "neither version.py (a pip torch) nor build-version");
        Files.writeString(torch.resolve("version.py"), "__version__ = '1.12.1'\ncuda = None\n");
        Files.createDirectories(torch.resolve("lib"));
        oneLine(run("build-native", "--torch", torch.toString()), "lib/libtorch.so is missing");
        Files.writeString(torch.resolve("lib/libtorch.so"), "");
        oneLine(run("build-native", "--torch", torch.toString()), "include/ATen is missing: this torch has no C++ headers");
        Files.createDirectories(torch.resolve("include/ATen"));
        oneLine(run("build-native", "--torch", torch.toString()), "torch 1.12.1 is too old: the extension needs 1.13 or later");
        Files.writeString(torch.resolve("version.py"), "__version__ = '2.11.0'\ncuda = None\n");
        oneLine(run("build-native", "--torch", torch.toString(), "--cuda", "on"), "--cuda on, but torch 2.11.0 in");
        Result help = run("build-native", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("scripts/build-native [--torch DIR]").doesNotContain("set -euo");
    }

    @Test
    void gpuCheckSaysWhatItNeeds() throws Exception {
        oneLine(run("gpu-check"), "gpu-check: give a command: prepare or run (see --help)");
        oneLine(run("gpu-check", "deploy"), "gpu-check: unknown command 'deploy' (prepare or run; see --help)");
        oneLine(run("gpu-check", "prepare", "--fast"), "gpu-check: prepare: unknown option '--fast'");
        oneLine(run("gpu-check", "prepare", "--out"), "gpu-check: prepare: --out needs a folder");
        Result help = run("gpu-check", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("scripts/gpu-check prepare").contains("scripts/gpu-check run");
        if (!python3()) return;   // the run half is Python; CI has it
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--bundle", tmp.resolve("none").toString()),
                "gpu-check run: no bundle in");
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--skip", "warp"),
                "gpu-check run: --skip: unknown part(s) warp (parts: bridge, env, parity, adapter, e2e, bench) (see --help)");
        oneLine(run("gpu-check", "run"), "gpu-check run: the following arguments are required: --out (see --help)");
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--budget", "-5"),
                "gpu-check run: --budget must be a number of seconds in (0, 86400], got -5 (see --help)");
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--budget", "nan"),
                "--budget must be a number of seconds in (0, 86400], got nan");
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--big", "tiny", "--bench-prompt", "2000",
                "--bench-new", "49"), "--bench-prompt + --bench-new must fit the tiny shape's 2048 positions, got 2049");
        oneLine(run("gpu-check", "run", "--out"), "gpu-check run: argument --out: expected one argument (see --help)");
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--bench-batches", "1,,4"),
                "--bench-batches must be integers in 1..1024 separated by commas, got '1,,4'");
        oneLine(run("gpu-check", "run", "--out", tmp.resolve("o").toString(), "--bench-batches", "1,99999"),
                "--bench-batches must be integers in 1..1024 separated by commas, got '1,99999'");
        assertThat(tmp.resolve("o")).doesNotExist();
    }

    private static boolean python3() {
        try {
            return new ProcessBuilder("python3", "--version").start().waitFor(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            return false;
        }
    }
}
