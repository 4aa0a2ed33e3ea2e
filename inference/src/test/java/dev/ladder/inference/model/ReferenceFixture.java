package dev.ladder.inference.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/**
 * A committed PyTorch reference output for a tiny random-weight model (see {@code scripts/reference/make_fixtures.sh}):
 * the model is re-created from (shape, seed, dtype) with {@link TinyModels}; the fixture holds the input ids, the
 * logits of every position (computed in float64, stored as float32) and the greedy continuation.
 *
 * <p>Use: {@code ReferenceFixture f = ReferenceFixture.load("tiny-seed1"); Path model = f.writeModel(tempDir);}
 * then compare a forward pass on {@code f.ids()} with {@code f.logits()} (to 1e-4) and greedy decoding with
 * {@code f.greedy()} ({@code f.greedyMargins()} is the top-1 minus top-2 logit at each step).
 */
public record ReferenceFixture(String name, TinyModels.Shape shape, long seed, DType dtype, String modelSha256,
                               int[] ids, float[][] logits, int[] greedy, double[] greedyMargins) {

    /** Every committed fixture. */
    public static final List<String> NAMES = List.of("tiny-seed1", "qwen2-tiny-seed2", "llama3-rope-scaled-tiny-seed3");

    private static final String ROOT = "/fixtures/";

    public static List<ReferenceFixture> all() {
        return NAMES.stream().map(ReferenceFixture::load).toList();
    }

    public static ReferenceFixture load(String name) {
        try {
            JsonNode h = new ObjectMapper().readTree(bytes(name + ".json"));
            int[] ids = ints(h.get("ids"));
            int positions = h.get("logits_shape").get(0).asInt();
            int vocab = h.get("logits_shape").get(1).asInt();
            ByteBuffer data = ByteBuffer.wrap(bytes(h.get("logits_file").asText())).order(ByteOrder.LITTLE_ENDIAN);
            if (data.capacity() != positions * vocab * 4 || positions != ids.length) {
                throw new IllegalStateException("fixture " + name + ": logits file does not match logits_shape");
            }
            float[][] logits = new float[positions][vocab];
            for (int p = 0; p < positions; p++) {
                data.asFloatBuffer().position(p * vocab).get(logits[p]);
            }
            double[] margins = new double[h.get("greedy_margins").size()];
            for (int i = 0; i < margins.length; i++) {
                margins[i] = h.get("greedy_margins").get(i).asDouble();
            }
            return new ReferenceFixture(name, TinyModels.Shape.valueOf(h.get("shape").asText()), h.get("seed").asLong(),
                    DType.fromSafetensorsName(h.get("dtype").asText()), h.get("model_sha256").asText(), ids, logits,
                    ints(h.get("greedy")), margins);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read fixture " + name, e);
        }
    }

    /** Writes this fixture's model into {@code dir} (created if needed) and returns it. */
    public Path writeModel(Path dir) {
        TinyModels.write(dir, shape, seed, dtype);
        return dir;
    }

    private static byte[] bytes(String resource) throws IOException {
        try (InputStream in = ReferenceFixture.class.getResourceAsStream(ROOT + resource)) {
            if (in == null) {
                throw new IOException("missing test resource " + ROOT + resource);
            }
            return in.readAllBytes();
        }
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }
}
