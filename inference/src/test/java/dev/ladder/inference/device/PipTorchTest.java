package dev.ladder.inference.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locating an installed torch: the folder layouts, versions and flavors, and every refusal. The libraries here are
 * empty files (nothing is loaded; loading a pip-mode libtorch for real is TorchModesTest's, in eval).
 */
class PipTorchTest {

    @TempDir Path tmp;
    static final List<String> SHIPPED = List.of("cpu", "cu128");

    /** A pip {@code torch} package folder: lib/ with the libraries, version.py beside it. */
    private Path pipTorch(String version, String cuda) throws IOException {
        Path torch = tmp.resolve("site-packages").resolve("torch");
        Files.createDirectories(torch.resolve("lib"));
        for (String lib : List.of("libtorch.so", "libtorch_cpu.so", "libc10.so", "libtorch_python.so")) {
            Files.writeString(torch.resolve("lib").resolve(lib), "");
        }
        Files.writeString(torch.resolve("version.py"), """
                from typing import Optional

                __all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
                __version__ = '%s'
                debug = False
                cuda: Optional[str] = %s
                git_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'
                hip: Optional[str] = None
                """.formatted(version, cuda == null ? "None" : "'" + cuda + "'"));
        return torch;
    }

    @Test
    void pipPackageFolderOrItsLibFolder() throws IOException {
        Path torch = pipTorch("2.7.1+cu128", "12.8");
        PipTorch.Found a = PipTorch.locate(Map.of("LADDER_TORCH_DIR", torch.toString()), "2.7.1", SHIPPED);
        assertThat(a.libDir()).isEqualTo(torch.resolve("lib").toRealPath());
        assertThat(a.version()).isEqualTo("2.7.1+cu128");
        assertThat(a.flavor()).isEqualTo("cu128");
        PipTorch.Found b = PipTorch.locate(Map.of("LADDER_TORCH_DIR", torch.resolve("lib").toString()), "2.7.1", SHIPPED);
        assertThat(b.libDir()).isEqualTo(a.libDir());
        assertThat(b.flavor()).isEqualTo("cu128");
    }

    @Test
    void pipsCudaRuntimeBesideTorchIsFound() throws IOException {
        Path torch = pipTorch("2.7.1+cu128", "12.8");
        assertThat(PipTorch.locate(Map.of("LADDER_TORCH_DIR", torch.toString()), "2.7.1", SHIPPED).cudaRuntimeDir()).isNull();
        Path runtime = Files.createDirectories(tmp.resolve("site-packages/nvidia/cuda_runtime/lib"));
        Files.writeString(runtime.resolve("libcudart.so.12"), "");
        assertThat(PipTorch.locate(Map.of("LADDER_TORCH_DIR", torch.toString()), "2.7.1", SHIPPED).cudaRuntimeDir())
                .isEqualTo(runtime.toRealPath());
    }

    @Test
    void libtorchDistributionWithBuildVersion() throws IOException {
        Path home = tmp.resolve("libtorch");
        Files.createDirectories(home.resolve("lib"));
        Files.writeString(home.resolve("lib/libtorch.so"), "");
        Files.writeString(home.resolve("build-version"), "2.7.1+cpu\n");
        PipTorch.Found f = PipTorch.locate(Map.of("LADDER_TORCH_DIR", home.toString()), "2.7.1", SHIPPED);
        assertThat(f.flavor()).isEqualTo("cpu");
        assertThat(f.version()).isEqualTo("2.7.1+cpu");
    }

    @Test
    void flavorFromTheLocalVersionOrTheCudaVersion() {
        assertThat(PipTorch.flavorOf("2.7.1+cu128", null)).isEqualTo("cu128");
        assertThat(PipTorch.flavorOf("2.7.1+cpu", "12.8")).isEqualTo("cpu");
        // PyPI's default Linux wheel has no local part: the CUDA it was built with decides
        assertThat(PipTorch.flavorOf("2.7.1", "12.6")).isEqualTo("cu126");
        assertThat(PipTorch.flavorOf("2.7.1", null)).isEqualTo("cpu");
        assertThat(PipTorch.baseVersion("2.7.1+cu128")).isEqualTo("2.7.1");
    }

    @Test
    void versionMismatchNamesBothVersionsAndThePipCommand() throws IOException {
        Path torch = pipTorch("2.5.1+cu124", "12.4");
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_TORCH_DIR", torch.toString()), "2.7.1", SHIPPED))
                .isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("the installed torch is 2.5.1+cu124")
                .hasMessageContaining("needs 2.7.1")
                .hasMessageContaining("pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu128");
    }

    @Test
    void aFlavorTheBridgeDoesNotShipIsRefused() throws IOException {
        Path torch = pipTorch("2.7.1", "12.6");
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_TORCH_DIR", torch.toString()), "2.7.1", SHIPPED))
                .isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("is a cu126 build; DJL's bridge ships cpu, cu128");
    }

    @Test
    void foldersWithoutLibtorchOrVersion() throws IOException {
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_TORCH_DIR", tmp.resolve("nope").toString()), "2.7.1", SHIPPED))
                .hasMessageContaining("no such folder");
        Files.createDirectories(tmp.resolve("empty"));
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_TORCH_DIR", tmp.resolve("empty").toString()), "2.7.1", SHIPPED))
                .hasMessageContaining("no libtorch.so in");
        Path bare = tmp.resolve("bare");
        Files.createDirectories(bare);
        Files.writeString(bare.resolve("libtorch.so"), "");
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_TORCH_DIR", bare.toString()), "2.7.1", SHIPPED))
                .hasMessageContaining("cannot tell the torch version").hasMessageContaining("LADDER_TORCH_VERSION");
        // a stated version is taken as it is
        PipTorch.Found f = PipTorch.locate(Map.of("LADDER_TORCH_DIR", bare.toString(), "LADDER_TORCH_VERSION", "2.7.1+cpu"),
                "2.7.1", SHIPPED);
        assertThat(f.flavor()).isEqualTo("cpu");
    }

    /** A stand-in for the python interpreter (what is around the unit), answering like {@code import torch} does. */
    private Path python(String body) throws IOException {
        Path script = tmp.resolve("python");
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    @Test
    void theTorchPythonImports() throws IOException {
        Path torch = pipTorch("2.7.1+cu128", "12.8");
        Path py = python("printf '2.7.1+cu128\\n12.8\\n%s\\n'".formatted(torch));
        PipTorch.Found f = PipTorch.locate(Map.of("LADDER_PYTHON", py.toString()), "2.7.1", SHIPPED);
        assertThat(f.libDir()).isEqualTo(torch.resolve("lib").toRealPath());
        assertThat(f.flavor()).isEqualTo("cu128");
        assertThat(f.foundBy()).contains("import torch");
    }

    @Test
    void pythonWithoutTorchOrNoPythonAtAll() throws IOException {
        Path py = python("echo \"ModuleNotFoundError: No module named 'torch'\" >&2; exit 1");
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_PYTHON", py.toString()), "2.7.1", SHIPPED))
                .isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("cannot import torch (ModuleNotFoundError: No module named 'torch')")
                .hasMessageContaining("pip install torch==2.7.1");
        assertThatThrownBy(() -> PipTorch.locate(Map.of("LADDER_PYTHON", tmp.resolve("no-python").toString()), "2.7.1", SHIPPED))
                .isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("cannot run").hasMessageContaining("LADDER_TORCH_DIR");
    }
}
