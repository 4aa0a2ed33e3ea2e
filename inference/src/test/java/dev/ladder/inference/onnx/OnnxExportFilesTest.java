package dev.ladder.inference.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether a folder holds an export is read from its files alone, where ONNX Runtime's jar is absent too (the GPU
 * check's bundle leaves it out, and every command that names a model asks the question to pick its engine).
 */
class OnnxExportFilesTest {

    static final Path EXPORT = Path.of("src/test/resources/onnx/tiny-optimum");

    @TempDir Path tmp;

    /** Loads Ladder's classes itself and refuses ONNX Runtime's, as a classpath without the runtime jar would. */
    static final class WithoutOnnxRuntime extends URLClassLoader {
        WithoutOnnxRuntime(URL classes) {
            super(new URL[] {classes}, OnnxExportFilesTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("ai.onnxruntime.")) throw new ClassNotFoundException(name);
            if (!name.startsWith("dev.ladder.")) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : findClass(name);
            }
        }
    }

    @Test
    void anExportIsFoundWithoutOnnxRuntimeOnTheClasspath() throws Exception {
        URL classes = OnnxExportFiles.class.getProtectionDomain().getCodeSource().getLocation();
        try (WithoutOnnxRuntime loader = new WithoutOnnxRuntime(classes)) {
            Method present = loader.loadClass(OnnxExportFiles.class.getName()).getMethod("present", Path.class);
            assertThat(present.invoke(null, EXPORT)).isEqualTo(true);
            assertThat(present.invoke(null, Files.createDirectories(tmp.resolve("weights-only")))).isEqualTo(false);
            // the engine itself does need the runtime: the loader above really hides it
            Class<?> engine = loader.loadClass(OnnxLanguageModel.class.getName());
            assertThatThrownBy(engine::getMethods).isInstanceOf(NoClassDefFoundError.class)
                    .hasMessageContaining("ai/onnxruntime");
        }
    }

    @Test
    void aGenaiConfigNamesTheDecoderAndAFolderWithoutOneHasNone() throws Exception {
        Path genai = Files.createDirectories(tmp.resolve("genai"));
        Files.writeString(genai.resolve("genai_config.json"), "{\"model\":{\"decoder\":{\"filename\":\"decoder.onnx\"}}}");
        assertThat(OnnxExportFiles.present(genai)).isFalse();
        Files.writeString(genai.resolve("decoder.onnx"), "not really a model");
        assertThat(OnnxExportFiles.present(genai)).isTrue();
        Files.writeString(genai.resolve("genai_config.json"), "{ not json");
        assertThat(OnnxExportFiles.present(genai)).isFalse();
        assertThat(OnnxExportFiles.present(tmp.resolve("missing"))).isFalse();
    }
}
