package dev.ladder.inference.onnx;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.model.ModelException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
     * {@code decoder_model_merged.onnx}.
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
