package dev.ladder.inference.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding a bridge that scripts/build-bridge wrote, and every refusal: no folder, no properties, a bridge for another
 * torch, a folder copied without its cache link. The libraries are empty files here; building and loading a bridge for
 * real is scripts/gpu-check's rehearsal in CI (.ci/run).
 */
class BridgeTorchTest {

    @TempDir Path tmp;

    private Path torch(String version, String cuda) throws IOException {
        Path torch = tmp.resolve("site-packages").resolve("torch");
        Files.createDirectories(torch.resolve("lib"));
        for (String lib : List.of("libtorch.so", "libtorch_cpu.so", "libc10.so")) Files.writeString(torch.resolve("lib").resolve(lib), "");
        Files.writeString(torch.resolve("version.py"), "__version__ = '" + version + "'\ncuda = "
                + (cuda == null ? "None" : "'" + cuda + "'") + "\n");
        return torch;
    }

    /** What build-bridge writes: the library, bridge.properties, and DJL's cache folder with its link. */
    private Path bridge(Path torch, String version, String flavor) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("bridge"));
        Files.writeString(dir.resolve("libdjl_torch.so"), "");
        Files.writeString(dir.resolve(BridgeTorch.PROPERTIES), "torch_version=" + version + "\ntorch_dir=" + torch
                + "\nflavor=" + flavor + "\n");
        Path cache = Files.createDirectories(dir.resolve("djl-cache/pytorch/" + BridgeTorch.plainVersion(version) + "-" + flavor
                + "-" + TorchRuntime.classifier()));
        Files.createSymbolicLink(cache.resolve("0.35.1-libdjl_torch.so"), Path.of("../../../libdjl_torch.so"));
        return dir;
    }

    @Test
    void aBridgeForTheInstalledTorchIsUsedWithItsOwnCache() throws IOException {
        Path torch = torch("2.11.0+cu130", "13.0");
        Path dir = bridge(torch, "2.11.0+cu130", "cu130");
        BridgeTorch.Found f = BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", dir.toString()), null);
        assertThat(f.builtFor()).isEqualTo("2.11.0+cu130");
        assertThat(f.flavor()).isEqualTo("cu130");
        assertThat(f.djlVersion()).isEqualTo("2.11.0");
        assertThat(f.engineCache()).isEqualTo(dir.toAbsolutePath().resolve("djl-cache"));
        assertThat(f.torch().libDir()).isEqualTo(torch.resolve("lib").toRealPath());
        // the checkout's .ladder-bridge when LADDER_BRIDGE_DIR is unset
        Path home = tmp.resolve("checkout");
        Files.createDirectories(home);
        Files.move(dir, home.resolve(".ladder-bridge"));
        assertThat(BridgeTorch.locate(Map.of(), home).dir()).isEqualTo(home.resolve(".ladder-bridge").toAbsolutePath());
    }

    @Test
    void debiansVersionNamesAnXyzCacheFolder() {
        assertThat(BridgeTorch.plainVersion("1.13.0a0")).isEqualTo("1.13.0");
        assertThat(BridgeTorch.plainVersion("2.7.1+cu128")).isEqualTo("2.7.1");
        assertThatThrownBy(() -> BridgeTorch.plainVersion("nightly")).isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("unexpected torch version 'nightly'");
    }

    @Test
    void aBridgeBuiltForAnotherTorchIsRefusedNamingBoth() throws IOException {
        Path built = torch("2.11.0+cu130", "13.0");
        Path dir = bridge(built, "2.11.0+cu130", "cu130");
        // the same folder now holds another torch (pip upgraded it)
        Files.writeString(built.resolve("version.py"), "__version__ = '2.12.0+cu130'\ncuda = '13.0'\n");
        assertThatThrownBy(() -> BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", dir.toString()), null))
                .isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("built for torch 2.11.0+cu130")
                .hasMessageContaining("is 2.12.0+cu130")
                .hasMessageContaining("scripts/build-bridge");
        // or LADDER_TORCH_DIR points at another torch than the one it was built for
        Files.writeString(built.resolve("version.py"), "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
        Path other = Files.createDirectories(tmp.resolve("other/torch/lib"));
        Files.writeString(other.resolve("libtorch.so"), "");
        Files.writeString(other.getParent().resolve("version.py"), "__version__ = '1.13.1'\n");
        assertThatThrownBy(() -> BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", dir.toString(),
                "LADDER_TORCH_DIR", other.getParent().toString()), null))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("is 1.13.1");
    }

    @Test
    void missingPiecesAreOneLineEach() throws IOException {
        assertThatThrownBy(() -> BridgeTorch.locate(Map.of(), null)).isInstanceOf(TorchSetupException.class)
                .hasMessageContaining("set LADDER_BRIDGE_DIR");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertThatThrownBy(() -> BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", empty.toString()), null))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("bridge.properties missing")
                .hasMessageContaining("scripts/build-bridge");
        Path torch = torch("1.13.0a0", null);
        Path dir = bridge(torch, "1.13.0a0", "cpu");
        Files.writeString(dir.resolve(BridgeTorch.PROPERTIES), "torch_dir=" + torch + "\nflavor=cpu\n");
        assertThatThrownBy(() -> BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", dir.toString()), null))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("has no torch_version");
        Files.writeString(dir.resolve(BridgeTorch.PROPERTIES), "torch_version=1.13.0a0\ntorch_dir=" + torch + "\nflavor=cpu\n");
        Files.delete(dir.resolve("libdjl_torch.so"));   // copied without its library: the link dangles
        assertThatThrownBy(() -> BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", dir.toString()), null))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("0.35.1-libdjl_torch.so is missing");
        assertThat(BridgeTorch.locate(Map.of("LADDER_BRIDGE_DIR", bridgeAgain(dir).toString()), null).flavor()).isEqualTo("cpu");
    }

    private static Path bridgeAgain(Path dir) throws IOException {
        Files.writeString(dir.resolve("libdjl_torch.so"), "");
        return dir;
    }
}
