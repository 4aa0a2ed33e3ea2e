package dev.ladder.inference.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mode selection against class paths with and without the bundled CPU libtorch jar. */
class TorchRuntimeTest {

    @TempDir Path tmp;

    /** A class loader that sees only a jar with the given {@code native/lib/pytorch.properties} (or none). */
    private ClassLoader classPath(String properties) throws IOException {
        Path jar = tmp.resolve("cp-" + System.nanoTime() + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            if (properties != null) {
                out.putNextEntry(new JarEntry("native/lib/pytorch.properties"));
                out.write(properties.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.closeEntry();
            }
            out.putNextEntry(new JarEntry("jnilib/linux-x86_64/cpu/libdjl_torch.so"));
            out.closeEntry();
        }
        return new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
    }

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) p.setProperty(kv[i], kv[i + 1]);
        return p;
    }

    @Test
    void bundledIsTheDefaultAndNeedsTheCpuJar() throws IOException {
        ClassLoader withJar = classPath("version=2.7.1-20250812\nflavor=cpu\nclassifier=linux-x86_64\n");
        TorchRuntime.Selection s = TorchRuntime.select(Map.of(), props(), withJar);
        assertThat(s.mode()).isEqualTo(TorchMode.BUNDLED);
        assertThat(s.chosenBy()).isEqualTo("default");
        ClassLoader placeholderOnly = classPath("placeholder=true\nversion=2.7.1\n");
        assertThatThrownBy(() -> TorchRuntime.select(Map.of("LADDER_TORCH", "bundled"), props(), placeholderOnly))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("pytorch-native-cpu jar is not on the class path");
    }

    @Test
    void thePropertyWinsOverTheEnvironment() throws IOException {
        ClassLoader noJar = classPath(null);
        TorchRuntime.Selection s = TorchRuntime.select(Map.of("LADDER_TORCH", "bundled"),
                props("ladder.torch", "download", "ladder.torch.source", "LADDER_TORCH"), noJar);
        assertThat(s.mode()).isEqualTo(TorchMode.DOWNLOAD);
        assertThat(s.chosenBy()).isEqualTo("LADDER_TORCH");
    }

    @Test
    void downloadRefusesTheCpuJarAndOfflineMode() throws IOException {
        ClassLoader withJar = classPath("version=2.7.1-20250812\nflavor=cpu\n");
        assertThatThrownBy(() -> TorchRuntime.select(Map.of("LADDER_TORCH", "download"), props(), withJar))
                .hasMessageContaining("the bundled CPU libtorch (pytorch-native-cpu jar) is on the class path");
        ClassLoader noJar = classPath(null);
        assertThatThrownBy(() -> TorchRuntime.select(Map.of("LADDER_TORCH", "download"), props("ai.djl.offline", "true"), noJar))
                .hasMessageContaining("needs DJL online, but ai.djl.offline=true");
    }

    @Test
    void bridgeRefusesTheCpuJarAndFindsItsFolderThroughTheProperty() throws IOException {
        ClassLoader withJar = classPath("version=2.7.1-20250812\nflavor=cpu\n");
        assertThatThrownBy(() -> TorchRuntime.select(Map.of("LADDER_TORCH", "bridge"), props(), withJar))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("pytorch-native-cpu");
        // scripts/gpu-check passes the folder as -Dladder.bridge.dir; an empty one is refused naming scripts/build-bridge
        Path empty = java.nio.file.Files.createDirectories(tmp.resolve("no-bridge"));
        assertThatThrownBy(() -> TorchRuntime.select(Map.of(), props("ladder.torch", "bridge", "ladder.bridge.dir",
                empty.toString()), classPath(null)))
                .isInstanceOf(TorchSetupException.class).hasMessageContaining("LADDER_BRIDGE_DIR=" + empty)
                .hasMessageContaining("scripts/build-bridge");
    }

    @Test
    void unknownModeIsOneLine() throws IOException {
        assertThatThrownBy(() -> TorchRuntime.select(Map.of("LADDER_TORCH", "cuda"), props(), classPath(null)))
                .isInstanceOf(TorchSetupException.class)
                .hasMessage("LADDER_TORCH must be bundled, pip, download or bridge, got 'cuda'");
    }

    @Test
    void pipLocatesThroughPropertiesOrEnvironment() throws IOException {
        Path lib = tmp.resolve("torch/lib");
        Files.createDirectories(lib);
        Files.writeString(lib.resolve("libtorch.so"), "");
        Files.writeString(tmp.resolve("torch/version.py"), "__version__ = '2.7.1+cpu'\ncuda = None\n");
        ClassLoader cp = classPath(null);
        TorchRuntime.Selection s = TorchRuntime.select(Map.of("LADDER_TORCH", "pip"),
                props("ladder.torch.dir", tmp.resolve("torch").toString()), cp);
        assertThat(s.mode()).isEqualTo(TorchMode.PIP);
        assertThat(s.pip().flavor()).isEqualTo("cpu");
        assertThat(s.pip().libDir()).isEqualTo(lib.toRealPath());
        // the jar of this test's class path ships only the cpu bridge: a CUDA build is refused with the list
        Files.writeString(tmp.resolve("torch/version.py"), "__version__ = '2.7.1+cu128'\n");
        assertThatThrownBy(() -> TorchRuntime.select(Map.of("LADDER_TORCH", "pip", "LADDER_TORCH_DIR",
                tmp.resolve("torch").toString()), props(), cp))
                .hasMessageContaining("is a cu128 build; DJL's bridge ships cpu");
    }

    @Test
    void theRealClassPathShipsCpuAndCuda128Bridges() {
        assertThat(TorchRuntime.shippedFlavors(TorchRuntime.class.getClassLoader())).contains("cpu", "cu128");
        assertThat(TorchRuntime.requiredVersion()).isEqualTo("2.7.1");
        assertThat(TorchRuntime.bundledJarPresent(TorchRuntime.class.getClassLoader())).isTrue();
    }

    @Test
    void flavorOfDjlCacheFolders() {
        assertThat(TorchRuntime.flavorOf("/root/.djl.ai/pytorch/2.7.1-20250812-cpu-linux-x86_64")).isEqualTo("cpu");
        assertThat(TorchRuntime.flavorOf("/c/pytorch/2.7.1-cu128-linux-x86_64")).isEqualTo("cu128");
    }

}
