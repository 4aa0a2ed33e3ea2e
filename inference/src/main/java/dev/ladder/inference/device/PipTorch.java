package dev.ladder.inference.device;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds an installed libtorch for the {@link TorchMode#PIP} mode and checks it is one DJL can drive.
 *
 * <p>Where: {@code LADDER_TORCH_DIR} when set — a pip {@code torch} package folder ({@code lib/} and
 * {@code version.py}), its {@code lib/} folder, or a libtorch distribution ({@code lib/} and {@code build-version});
 * otherwise the {@code torch} that {@code python3} (or {@code LADDER_PYTHON}) imports. {@code LADDER_TORCH_VERSION}
 * states the version of a folder that records none (e.g. DJL's own extracted CPU libtorch).
 *
 * <p>What: the version must be the one DJL's JNI bridge was built for (the {@code pytorch-jni} jar holds one
 * {@code libdjl_torch.so} per flavor, and a bridge only runs on its own libtorch version); the flavor ({@code cpu},
 * {@code cu128}, ...) comes from the version's local part ({@code 2.7.1+cu128}) or the CUDA version torch was built
 * with, and must be one the jar ships.
 */
public final class PipTorch {

    /** How to install the torch this build needs, for error messages. */
    static String installHint(String required) {
        return "pip install torch==" + required + " --index-url https://download.pytorch.org/whl/cu128";
    }

    /**
     * An installed libtorch: the folder with {@code libtorch.so}, its version as installed ({@code 2.7.1+cu128}),
     * the DJL flavor, how it was found (for {@code ladder env}), and the folder of the CUDA runtime that pip installed
     * beside it ({@code <site-packages>/nvidia/cuda_runtime/lib}), or null when there is none.
     */
    public record Found(Path libDir, String version, String flavor, String foundBy, Path cudaRuntimeDir) {
        Found(Path libDir, String version, String flavor, String foundBy) {
            this(libDir, version, flavor, foundBy, cudaRuntimeBeside(libDir));
        }
    }

    /**
     * The pip CUDA runtime of a pip torch ({@code torch/lib/../../nvidia/cuda_runtime/lib}). libtorch finds it through
     * its own run path; DJL's GPU count asks CUDA through JNA, which finds only a system-wide {@code libcudart}, so a
     * machine with the NVIDIA driver and pip's CUDA alone would count no GPU without it.
     */
    static Path cudaRuntimeBeside(Path libDir) {
        Path torch = libDir.getParent();
        Path sitePackages = torch == null ? null : torch.getParent();
        if (sitePackages == null) return null;
        Path nvidia = sitePackages.resolve("nvidia");
        Path runtime = nvidia.resolve("cuda_runtime").resolve("lib");
        if (Files.isDirectory(runtime)) return runtime;
        // CUDA 13's wheels put the runtime in one folder per major version (nvidia/cu13/lib)
        if (!Files.isDirectory(nvidia)) return null;
        try (var dirs = Files.list(nvidia)) {
            return dirs.map(d -> d.resolve("lib")).filter(PipTorch::holdsCudaRuntime).sorted().findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean holdsCudaRuntime(Path lib) {
        if (!Files.isDirectory(lib)) return false;
        try (var files = Files.list(lib)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("libcudart.so"));
        } catch (IOException e) {
            return false;
        }
    }

    private static final Pattern PY_VERSION = Pattern.compile("(?m)^__version__\\s*(?::[^=]*)?=\\s*['\"]([^'\"]+)['\"]");
    private static final Pattern PY_CUDA = Pattern.compile("(?m)^cuda\\s*(?::[^=]*)?=\\s*(?:['\"]([^'\"]*)['\"]|None)");
    private static final Pattern LOCAL_FLAVOR = Pattern.compile("\\+(cpu|cu\\d+|rocm[\\d.]+)$");

    private PipTorch() {}

    /**
     * Locates and checks the libtorch to load.
     *
     * @param env      environment ({@code LADDER_TORCH_DIR}, {@code LADDER_TORCH_VERSION}, {@code LADDER_PYTHON})
     * @param required the libtorch version DJL's bridge needs (e.g. {@code 2.7.1})
     * @param shipped  the flavors the bridge jar holds for this platform (e.g. {@code [cpu, cu128]})
     * @throws TorchSetupException when nothing usable is found, with what was found and what to do
     */
    public static Found locate(Map<String, String> env, String required, List<String> shipped) {
        String dir = env.get("LADDER_TORCH_DIR");
        Found found;
        if (dir != null && !dir.isBlank()) {
            found = fromFolder(Path.of(dir), env.get("LADDER_TORCH_VERSION"), "LADDER_TORCH_DIR=" + dir);
        } else {
            String python = env.getOrDefault("LADDER_PYTHON", "python3");
            found = fromPython(python, env.get("LADDER_TORCH_VERSION"));
        }
        check(found, required, shipped);
        return found;
    }

    /** The libtorch of a folder (see the class comment for the layouts). */
    static Found fromFolder(Path dir, String statedVersion, String foundBy) {
        if (!Files.isDirectory(dir)) {
            throw new TorchSetupException(foundBy + ": no such folder (give the torch package folder, e.g. "
                    + "<site-packages>/torch, or its lib/ folder)");
        }
        Path lib;
        Path home;
        if (Files.isRegularFile(dir.resolve("libtorch.so"))) {
            lib = dir;
            home = dir.getParent();
        } else if (Files.isRegularFile(dir.resolve("lib").resolve("libtorch.so"))) {
            lib = dir.resolve("lib");
            home = dir;
        } else {
            throw new TorchSetupException(foundBy + ": no libtorch.so in " + dir + " or " + dir.resolve("lib"));
        }
        String version = statedVersion;
        String cuda = null;
        if (version == null || version.isBlank()) {
            Path py = home == null ? null : home.resolve("version.py");
            Path build = home == null ? null : home.resolve("build-version");
            try {
                if (py != null && Files.isRegularFile(py)) {
                    String text = Files.readString(py, StandardCharsets.UTF_8);
                    Matcher v = PY_VERSION.matcher(text);
                    if (v.find()) version = v.group(1);
                    Matcher c = PY_CUDA.matcher(text);
                    if (c.find()) cuda = c.group(1);
                } else if (build != null && Files.isRegularFile(build)) {
                    version = Files.readString(build, StandardCharsets.UTF_8).strip();
                }
            } catch (IOException e) {
                throw new TorchSetupException(foundBy + ": cannot read the torch version next to " + lib + ": "
                        + e.getMessage(), e);
            }
        }
        if (version == null || version.isBlank()) {
            throw new TorchSetupException(foundBy + ": cannot tell the torch version of " + lib + " (no version.py or "
                    + "build-version beside it); state it with LADDER_TORCH_VERSION, e.g. 2.7.1+cpu");
        }
        return new Found(realPath(lib), version.strip(), flavorOf(version.strip(), cuda), foundBy);
    }

    /** The torch that {@code python} imports. */
    static Found fromPython(String python, String statedVersion) {
        String script = "import os, torch; print(torch.__version__); print(torch.version.cuda or ''); "
                + "print(os.path.dirname(torch.__file__))";
        List<String> lines = run(List.of(python, "-c", script), python);
        if (lines.size() < 3) {
            throw new TorchSetupException("LADDER_TORCH=pip: '" + python + " -c \"import torch\"' printed "
                    + lines + ", not torch's version and folder");
        }
        String version = statedVersion == null || statedVersion.isBlank() ? lines.get(0).strip() : statedVersion;
        String cuda = lines.get(1).isBlank() ? null : lines.get(1).strip();
        Path torchDir = Path.of(lines.get(2).strip());
        Path lib = torchDir.resolve("lib");
        if (!Files.isRegularFile(lib.resolve("libtorch.so"))) {
            throw new TorchSetupException("LADDER_TORCH=pip: the torch that " + python + " imports (" + torchDir
                    + ") has no lib/libtorch.so");
        }
        return new Found(realPath(lib), version, flavorOf(version, cuda), python + " (import torch)");
    }

    /**
     * The DJL flavor of a torch build: the version's local part ({@code +cu128}, {@code +cpu}) when it has one, else
     * the CUDA version it was built with ({@code 12.8 -> cu128}), else {@code cpu}.
     */
    static String flavorOf(String version, String cudaVersion) {
        Matcher m = LOCAL_FLAVOR.matcher(version);
        if (m.find()) return m.group(1);
        if (cudaVersion == null || cudaVersion.isBlank()) return "cpu";
        String[] parts = cudaVersion.strip().split("\\.");
        return "cu" + parts[0] + (parts.length > 1 ? parts[1] : "");
    }

    /** The version without its local part: {@code 2.7.1+cu128 -> 2.7.1}. */
    static String baseVersion(String version) {
        int plus = version.indexOf('+');
        return (plus < 0 ? version : version.substring(0, plus)).strip();
    }

    private static void check(Found found, String required, List<String> shipped) {
        if (!baseVersion(found.version()).equals(required)) {
            throw new TorchSetupException("LADDER_TORCH=pip: the installed torch is " + found.version() + " (" + found.libDir()
                    + ", found by " + found.foundBy() + "), Ladder's DJL needs " + required + ": " + installHint(required));
        }
        if (!shipped.contains(found.flavor())) {
            throw new TorchSetupException("LADDER_TORCH=pip: torch " + found.version() + " is a " + found.flavor()
                    + " build; DJL's bridge ships " + String.join(", ", shipped) + " for " + required + ": "
                    + installHint(required));
        }
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    /** Stdout lines of a short command; a command that cannot start, fails or hangs is a setup error. */
    private static List<String> run(List<String> command, String python) {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("ladder-torch", ".out");
            err = Files.createTempFile("ladder-torch", ".err");
            Process p;
            try {
                p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            } catch (IOException e) {
                throw new TorchSetupException("LADDER_TORCH=pip: cannot run '" + python + "' (" + e.getMessage()
                        + "); set LADDER_PYTHON to the python that has torch, or LADDER_TORCH_DIR to its torch folder");
            }
            p.getOutputStream().close();
            // importing a CUDA torch for the first time can take a while
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new TorchSetupException("LADDER_TORCH=pip: '" + python + " -c \"import torch\"' did not finish in 180 s");
            }
            if (p.exitValue() != 0) {
                List<String> errLines = Files.readAllLines(err, StandardCharsets.UTF_8);
                String last = errLines.isEmpty() ? "exit " + p.exitValue() : errLines.get(errLines.size() - 1).strip();
                throw new TorchSetupException("LADDER_TORCH=pip: " + python + " cannot import torch (" + last + "): "
                        + installHint(TorchRuntime.requiredVersion()));
            }
            return new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new TorchSetupException("LADDER_TORCH=pip: running " + python + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TorchSetupException("LADDER_TORCH=pip: interrupted while asking " + python + " for torch", e);
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static void deleteQuietly(Path p) {
        if (p == null) return;
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a stray temp file is harmless
        }
    }
}
