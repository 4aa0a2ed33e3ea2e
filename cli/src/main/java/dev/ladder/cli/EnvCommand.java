package dev.ladder.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.run.Fingerprints;
import dev.ladder.eval.run.TorchEnvironment;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "env", mixinStandardHelpOptions = true,
        description = {"What Ladder runs on: Java, Ladder version, the torch mode (LADDER_TORCH) and the libtorch it "
                + "loaded (version, flavor, folder), whether it has CUDA, the GPUs it sees (capability, memory), the "
                + "default device, host memory and the cache folders.",
                "The same keys go into every run's environment.json."})
final class EnvCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Option(names = "--json", description = "One JSON object of the keys environment.json records.") boolean json;

    @Override
    public Integer call() throws Exception {
        Map<String, String> env = new LinkedHashMap<>(Fingerprints.environment(repoRoot()));
        env.putAll(TorchEnvironment.entries());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(new ObjectMapper().writeValueAsString(env));
        } else {
            int width = env.keySet().stream().mapToInt(String::length).max().orElse(10);
            env.forEach((k, v) -> out.println(String.format(Locale.ROOT, "%-" + width + "s  %s", k, pretty(k, v))));
        }
        out.flush();
        return 0;
    }

    /** Byte counts also in GiB, for the eye. */
    private static String pretty(String key, String value) {
        if (key.endsWith("_bytes")) {
            try {
                long b = Long.parseLong(value);
                if (b > 0) return value + String.format(Locale.ROOT, " (%.1f GiB)", b / (double) (1L << 30));
            } catch (NumberFormatException ignored) {
                // print as is
            }
        }
        return value;
    }

    /** The checkout the launcher runs from (for the git sha), else the working directory. */
    static Path repoRoot() {
        String home = System.getProperty("ladder.home");
        return Path.of(home == null || home.isBlank() ? "" : home).toAbsolutePath();
    }
}
