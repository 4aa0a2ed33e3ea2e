package dev.ladder.inference.nativeext;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the native extension is loaded, and the one line that says why not: switched off, not built, a folder without
 * its properties or library, a build for another torch than the one running (never loaded into it).
 */
class NativeExtensionTest {

    @TempDir
    Path dir;

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) p.setProperty(kv[i], kv[i + 1]);
        return p;
    }

    private void build(String version, String flavor, boolean library) throws IOException {
        Files.writeString(dir.resolve(NativeExtension.PROPERTIES), "torch_version=" + version + "\nflavor=" + flavor
                + "\ncuda=false\n");
        if (library) Files.writeString(dir.resolve(System.mapLibraryName("ladder_native")), "not a library");
    }

    @Test
    void offAndNotBuiltSaySo() {
        assertThat(NativeExtension.load(Map.of("LADDER_NATIVE", "off", "LADDER_NATIVE_DIR", dir.toString()), props()))
                .isEqualTo(new NativeExtension.Status(false, "off (LADDER_NATIVE=off)", false, 0));
        NativeExtension.Status none = NativeExtension.load(Map.of(), props());
        assertThat(none.loaded()).isFalse();
        assertThat(none.line()).isEqualTo("not built (scripts/build-native writes native/build; LADDER_NATIVE_DIR names another folder)");
    }

    @Test
    void aFolderWithoutPropertiesOrLibraryIsNamed() throws IOException {
        assertThat(NativeExtension.load(Map.of("LADDER_NATIVE_DIR", dir.toString()), props()).line())
                .isEqualTo("not loaded: no native.properties in " + dir + " (build it with scripts/build-native)");
        build("0.9.9", "cpu", false);
        // the property wins over the environment, as for every LADDER_ setting
        assertThat(NativeExtension.load(Map.of("LADDER_NATIVE_DIR", "/elsewhere"), props("ladder.native.dir", dir.toString())).line())
                .startsWith("not loaded: " + dir.toAbsolutePath().resolve("libladder_native.so") + " is missing");
    }

    @Test
    void aBuildForAnotherTorchIsNeverLoaded() throws IOException {
        build("0.9.9", "cpu", true);
        NativeExtension.Status s = NativeExtension.load(Map.of("LADDER_NATIVE_DIR", dir.toString()), props());
        assertThat(s.loaded()).isFalse();
        assertThat(s.line()).startsWith("not loaded: built for torch 0.9.9 (cpu) but the running libtorch is ")
                .contains(", LADDER_TORCH=").endsWith("; rebuild " + dir.toAbsolutePath()
                        + " for it with scripts/build-native, or run the torch it was built for")
                .doesNotContain("\n");
    }

    @Test
    void versionsMatchExactlyForAPipTorchAndByReleaseAndFlavorForDjlsOwn() {
        NativeExtension.Build b = new NativeExtension.Build(dir, dir.resolve("lib.so"), "2.7.1+cpu", "cpu", false);
        assertThat(NativeExtension.mismatch(b, new NativeExtension.Running("2.7.1", "cpu", "bundled", false))).isNull();
        assertThat(NativeExtension.mismatch(b, new NativeExtension.Running("2.7.1", "cu128", "download", false))).isNotNull();
        assertThat(NativeExtension.mismatch(b, new NativeExtension.Running("2.7.1+cpu", "cpu", "pip", true))).isNull();
        NativeExtension.Build debian = new NativeExtension.Build(dir, dir.resolve("lib.so"), "1.13.0a0", "cpu", false);
        assertThat(NativeExtension.mismatch(debian, new NativeExtension.Running("1.13.0a0", "cpu", "bridge", true))).isNull();
        assertThat(NativeExtension.mismatch(debian, new NativeExtension.Running("1.13.1", "cpu", "bridge", true)))
                .startsWith("built for torch 1.13.0a0 (cpu) but the running libtorch is 1.13.1 (cpu, LADDER_TORCH=bridge)");
    }

    @Test
    void aLoadedLibraryMustSayItWasBuiltForTheRecordedTorch() {
        NativeExtension.Build b = new NativeExtension.Build(dir, dir.resolve("libladder_native.so"), "2.11.0+cu130",
                "cu130", true);
        NativeExtension.Status ok = NativeExtension.loaded(b, "torch=2.11.0+cu130;kernels=avx2+cuda;max_rows=32");
        assertThat(ok).isEqualTo(new NativeExtension.Status(true, "loaded " + dir.resolve("libladder_native.so")
                + " (torch 2.11.0+cu130, cu130, kernels avx2+cuda)", true, 32));
        NativeExtension.Status stale = NativeExtension.loaded(b, "torch=2.10.0;kernels=avx2;max_rows=32");
        assertThat(stale.loaded()).isFalse();
        assertThat(stale.line()).contains("was compiled against torch 2.10.0 but native.properties says 2.11.0+cu130");
    }
}
