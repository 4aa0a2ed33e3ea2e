package dev.ladder.inference.onnx;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.store.PullManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where a folder's ONNX decoder is, read from its files alone. Kept free of ONNX Runtime's classes: a command that only
 * asks whether a folder holds an export (engine detection) must work where the runtime's jar is absent (the GPU check's
 * bundle leaves it out).
 */
public final class OnnxExportFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private OnnxExportFiles() {}

    /**
     * The decoder file: the one {@code genai_config.json} names, else {@code model.onnx} or
     * {@code decoder_model_merged.onnx}, else the export a {@code ladder model pull} chose (its manifest names it, e.g.
     * {@code onnx/model_quantized.onnx}).
     *
     * @throws ModelException when there is none, or genai_config.json is not JSON
     */
    static Path modelFile(Path dir) {
        Path genai = dir.resolve("genai_config.json");
        if (Files.isRegularFile(genai)) {
            try {
                String name = JSON.readTree(genai.toFile()).path("model").path("decoder").path("filename").asText("model.onnx");
                return dir.resolve(name);
            } catch (IOException e) {
                throw new ModelException(genai + ": not valid JSON: " + e.getMessage());
            }
        }
        for (String name : List.of("model.onnx", "decoder_model_merged.onnx")) {
            if (Files.isRegularFile(dir.resolve(name))) return dir.resolve(name);
        }
        Optional<String> pulled = PullManifest.read(dir).map(PullManifest::onnxFile);
        if (pulled.isPresent() && Files.isRegularFile(dir.resolve(pulled.get()))) return dir.resolve(pulled.get());
        throw new ModelException(dir + ": no ONNX decoder here (expected model.onnx or decoder_model_merged.onnx "
                + "beside config.json, or the file genai_config.json names)");
    }

    /** Whether a folder holds an ONNX decoder export (the file one of the two layouts names), without checking more. */
    public static boolean present(Path dir) {
        try {
            return Files.isDirectory(dir) && Files.isRegularFile(modelFile(dir));
        } catch (ModelException e) {
            return false;
        }
    }
}
