package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * scripts/slurm-shards.sh's submission and scripts/slurm-check's arguments, against fake Slurm commands first on the
 * PATH: {@code sbatch} prints job ids and fails at the call {@code FAKE_SBATCH_FAIL_AT} says, as Slurm refuses an
 * array larger than the cluster allows; {@code scancel} records what it was asked to cancel; {@code scontrol show
 * config} reports {@code FAKE_MAX_ARRAY} as MaxArraySize, or fails without it. The real scheduler path runs in CI
 * (scripts/slurm-check on scripts/slurm-local, .ci/run).
 */
class SlurmScriptsTest {

    @TempDir Path tmp;
    Path experiment;

    private record Result(int code, String out, String err) {}

    @BeforeEach
    void fakeSlurm() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        script(bin.resolve("sbatch"), """
                #!/usr/bin/env bash
                n=$(( $(cat "$FAKE_SLURM_DIR/calls" 2>/dev/null || echo 0) + 1 ))
                echo "$n" > "$FAKE_SLURM_DIR/calls"
                printf '%s\\n' "$*" >> "$FAKE_SLURM_DIR/sbatch.log"
                if [[ "$n" == "${FAKE_SBATCH_FAIL_AT:-0}" ]]; then
                  echo "sbatch: error: Batch job submission failed: Invalid job array specification" >&2
                  exit 1
                fi
                echo "$(( 4710 + n ));cluster"
                """);
        script(bin.resolve("scancel"), """
                #!/usr/bin/env bash
                printf '%s\\n' "$*" >> "$FAKE_SLURM_DIR/scancel.log"
                """);
        script(bin.resolve("scontrol"), """
                #!/usr/bin/env bash
                [[ "$1 $2" == "show config" && -n "${FAKE_MAX_ARRAY:-}" ]] || exit 1
                printf 'Configuration data as of 2026-12-07T00:00:00\\nMaxArraySize            = %s\\nMaxJobCount             = 10000\\n' "$FAKE_MAX_ARRAY"
                """);
        experiment = tmp.resolve("experiment.yaml");
        Files.writeString(experiment, "name: x\n");
    }

    private static void script(Path file, String text) throws Exception {
        Files.writeString(file, text);
        assertThat(file.toFile().setExecutable(true)).isTrue();
    }

    /** The script under bash, the fakes first on the PATH, none of this machine's Ladder or Slurm settings. */
    private ProcessBuilder builder(Map<String, String> env, String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of("bash", Path.of("..", "scripts", script).toAbsolutePath().toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("LADDER_") || k.startsWith("SLURM"));
        pb.environment().put("PATH", tmp.resolve("bin") + ":" + System.getenv("PATH"));
        pb.environment().put("FAKE_SLURM_DIR", tmp.toString());
        pb.environment().putAll(env);
        return pb;
    }

    private Result run(Map<String, String> env, String script, String... args) throws Exception {
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        Process p = builder(env, script, args).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private Result shards(Map<String, String> env, String n) throws Exception {
        return run(env, "slurm-shards.sh", experiment.toString(), n, tmp.resolve("runs/x").toString());
    }

    private List<String> log(String name) throws Exception {
        Path f = tmp.resolve(name);
        return Files.exists(f) ? Files.readAllLines(f) : List.of();
    }

    private static void oneLine(Result r, String expected) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains(expected);
        assertThat(r.out()).isEmpty();
    }

    @ParameterizedTest(name = "served {0}, sbatch fails at call {1}: cancels {2}")
    @CsvSource(delimiter = '|', textBlock = """
            false | 1 | ''                          | setup
            false | 2 | 4711 (setup)                | array
            false | 3 | 4711 (setup), 4712 (array)  | merge
            true  | 1 | ''                          | server
            true  | 2 | 4711 (server)               | setup
            true  | 3 | 4711 (server), 4712 (setup) | array
            true  | 4 | 4711 (server), 4712 (setup), 4713 (array) | merge
            true  | 5 | 4711 (server), 4712 (setup), 4713 (array), 4714 (merge) | server-stop
            """)
    void aRefusedSubmissionCancelsEveryJobSubmittedBefore(boolean served, int failAt, String cancelled, String refused)
            throws Exception {
        Map<String, String> env = served
                ? Map.of("FAKE_SBATCH_FAIL_AT", String.valueOf(failAt), "LADDER_SERVE", "ladder serve --host 0.0.0.0")
                : Map.of("FAKE_SBATCH_FAIL_AT", String.valueOf(failAt));
        Result r = shards(env, "4");
        oneLine(r, "slurm-shards.sh: sbatch refused the " + refused + " job (sbatch: error: Batch job submission failed: "
                + "Invalid job array specification)");
        assertThat(log("calls")).containsExactly(String.valueOf(failAt));
        if (cancelled.isEmpty()) {
            assertThat(r.err().strip()).endsWith("specification)");
            assertThat(log("scancel.log")).isEmpty();
        } else {
            assertThat(r.err().strip()).endsWith("; cancelled the jobs it had submitted: " + cancelled);
            String ids = String.join(" ", cancelled.replaceAll(" \\([a-z]+\\)", "").split(", "));
            assertThat(log("scancel.log")).containsExactly(ids);
        }
    }

    @Test
    void allSubmittedNothingIsCancelled() throws Exception {
        Result r = shards(Map.of("LADDER_SERVE", "ladder serve --host 0.0.0.0", "LADDER_MAX_RUNNING", "2"), "4");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("setup job 4712:", "array job 4713: 4 shards", "merge job 4714:",
                "server job 4711:", "job 4715 cancels it");
        assertThat(log("scancel.log")).isEmpty();
        List<String> submitted = log("sbatch.log");
        assertThat(submitted).hasSize(5);
        assertThat(submitted.get(2)).contains("--array=1-4%2", "--dependency=afterok:4712");
        assertThat(submitted.get(4)).contains("--dependency=afterany:4713").endsWith("--wrap scancel 4711");
    }

    @Test
    void aSlowSubmissionInterruptedCancelsToo() throws Exception {
        // the second sbatch never answers; SIGTERM to the script (Ctrl-C's path) cancels the first job
        script(tmp.resolve("bin/sbatch"), """
                #!/usr/bin/env bash
                n=$(( $(cat "$FAKE_SLURM_DIR/calls" 2>/dev/null || echo 0) + 1 ))
                echo "$n" > "$FAKE_SLURM_DIR/calls"
                [[ "$n" == 2 ]] && exec sleep 30
                echo "$(( 4710 + n ))"
                """);
        Process p = builder(Map.of(), "slurm-shards.sh", experiment.toString(), "2", tmp.resolve("runs/x").toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("out.txt").toFile()).start();
        List<ProcessHandle> below = List.of();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!log("calls").contains("2") && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(log("calls")).containsExactly("2");
            below = p.toHandle().descendants().toList();
            // SIGTERM to bash first: it runs its trap once the command it waits for (the sbatch) has ended
            p.destroy();
            Thread.sleep(200);
            below.forEach(ProcessHandle::destroy);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
            below.forEach(ProcessHandle::destroyForcibly);
        }
        assertThat(p.exitValue()).isEqualTo(130);
        assertThat(log("scancel.log")).containsExactly("4711");
        assertThat(Files.readString(tmp.resolve("out.txt")).strip())
                .isEqualTo("slurm-shards.sh: stopped before every job was submitted; cancelled the jobs it had submitted: 4711 (setup)");
    }

    @ParameterizedTest(name = "{0}={1}, N {2}")
    @CsvSource(delimiter = '|', textBlock = """
            FAKE_MAX_ARRAY     | 5                    | 5  | N must be a whole number in 1..4 (this cluster's MaxArraySize is 5), got '5'
            FAKE_MAX_ARRAY     | 5                    | 0  | N must be a whole number in 1..4 (this cluster's MaxArraySize is 5), got '0'
            SCONTROL_SILENT    | x                    | 1001 | N must be a whole number in 1..1000 (this cluster's MaxArraySize is 1001), got '1001'
            SCONTROL_SILENT    | x                    | 99999999999999999999 | N must be a whole number in 1..1000
            SCONTROL_SILENT    | x                    | 4x | got '4x'
            SCONTROL_SILENT    | x                    | -3 | got '-3'
            LADDER_MAX_RUNNING | 0                    | 4  | LADDER_MAX_RUNNING must be a whole number in 1..1000, got '0'
            LADDER_MAX_RUNNING | two                  | 4  | LADDER_MAX_RUNNING must be a whole number in 1..1000, got 'two'
            LADDER_SERVE_PORT  | 70000                | 4  | LADDER_SERVE_PORT must be a port number in 1..65535, got '70000'
            LADDER_SERVE_PORT  | 0                    | 4  | LADDER_SERVE_PORT must be a port number in 1..65535, got '0'
            LADDER_SERVE_WAIT  | 1e3                  | 4  | LADDER_SERVE_WAIT must be a whole number of seconds in 1..604800, got '1e3'
            """)
    void numbersAreCheckedAgainstTheSchedulersLimitsBeforeAnythingIsSubmitted(String variable, String value, String n,
                                                                              String expected) throws Exception {
        Result r = shards(Map.of(variable, value), n);
        oneLine(r, expected);
        assertThat(r.err()).startsWith("slurm-shards.sh: ");
        assertThat(log("calls")).isEmpty();
    }

    @Test
    void theLargestArrayTheClusterTakesIsSubmitted() throws Exception {
        Result r = shards(Map.of("FAKE_MAX_ARRAY", "5"), "4");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(log("sbatch.log").get(1)).contains("--array=1-4 ");
    }

    @Test
    void usageErrorsAreOneLine() throws Exception {
        oneLine(run(Map.of(), "slurm-shards.sh"), "usage: slurm-shards.sh EXPERIMENT.yaml N OUT_DIR (got 0 arguments)");
        oneLine(run(Map.of(), "slurm-shards.sh", tmp.resolve("nope.yaml").toString(), "2", "out"), "no experiment file");
        oneLine(run(Map.of(), "slurm-shards.sh", tmp.resolve("no/such/dir/x.yaml").toString(), "2", "out"), "no experiment file");
        oneLine(run(Map.of(), "slurm-shards.sh", experiment.toString(), "2", ""), "OUT_DIR is empty");
        assertThat(log("calls")).isEmpty();
    }

    @ParameterizedTest(name = "slurm-check {0}")
    @CsvSource(delimiter = '|', textBlock = """
            --max-running         | --max-running needs a number
            --cache               | --cache needs a directory
            --cache --served      | --cache needs a directory
            2 --max-running       | --max-running needs a number
            0                     | N must be a whole number in 1..10 (the check runs 10 items), got '0'
            11                    | N must be a whole number in 1..10 (the check runs 10 items), got '11'
            99999999999999999999  | N must be a whole number in 1..10
            two                   | got 'two'
            2 3                   | N is given twice ('2' and '3')
            4 --max-running 5     | --max-running must be a whole number in 1..4 (N), got '5'
            --max-running 0       | --max-running must be a whole number in 1..2 (N), got '0'
            --fast                | unknown option --fast
            """)
    void slurmCheckRefusesBadArgumentsBeforeSlurmStarts(String args, String expected) throws Exception {
        Result r = run(Map.of(), "slurm-check", args.split(" "));
        oneLine(r, expected);
        assertThat(r.err()).startsWith("slurm-check: ");
    }
}
