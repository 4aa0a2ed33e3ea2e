package dev.ladder.inference.onnx;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which decoder export a folder holds, and the names and sizes the engine needs from it. Two layouts:
 * <ul>
 *   <li><b>Optimum</b>: {@code model.onnx} or {@code decoder_model_merged.onnx} beside {@code config.json};</li>
 *   <li><b>ONNX Runtime GenAI</b> (the model builder's output): {@code model.onnx} (the file {@code genai_config.json}
 *   names) beside {@code genai_config.json}, whose {@code model.decoder} gives the input and output names.</li>
 * </ul>
 * Both: {@code input_ids}, {@code attention_mask}, optionally {@code position_ids}, a past key and value per layer in,
 * {@code logits} and a present key and value per layer out; the cache shape is {@code [batch, kv_heads, length,
 * head_dim]}.
 *
 * @param keyIn   per layer, the past key input name (values likewise)
 * @param keyOut  per layer, the present key output name
 * @param context the longest sequence (config's max_position_embeddings, genai's context_length)
 */
record OnnxLayout(String kind, Path file, String inputIds, String attentionMask, String positionIds, List<String> keyIn,
                  List<String> valueIn, String logits, List<String> keyOut, List<String> valueOut, int kvHeads,
                  int headDim, int context, List<Integer> eosIds, String useCacheBranch) {

    /** Optimum's merged decoder ({@code decoder_model_merged.onnx}) picks its branch with this boolean input. */
    static final String USE_CACHE_BRANCH = "use_cache_branch";

    private static final ObjectMapper JSON = new ObjectMapper();

    static Path modelFile(Path dir) {
        return OnnxExportFiles.modelFile(dir);
    }

    /** Reads the layout from the folder and checks the session's inputs and outputs against it. */
    static OnnxLayout of(Path dir, Path file, OrtSession session) throws OrtException {
        Map<String, NodeInfo> in = session.getInputInfo();
        Map<String, NodeInfo> out = session.getOutputInfo();
        Path genai = dir.resolve("genai_config.json");
        String kind;
        String ids = "input_ids", mask = "attention_mask", pos = "position_ids", logits = "logits";
        String pastKey = "past_key_values.%d.key", pastValue = "past_key_values.%d.value";
        String presentKey = "present.%d.key", presentValue = "present.%d.value";
        int context;
        List<Integer> eos = new ArrayList<>();
        if (Files.isRegularFile(genai)) {
            kind = "onnxruntime-genai";
            JsonNode model;
            try {
                model = JSON.readTree(genai.toFile()).path("model");
            } catch (IOException e) {
                throw new ModelException(genai + ": not valid JSON: " + e.getMessage());
            }
            JsonNode d = model.path("decoder");
            JsonNode i = d.path("inputs");
            JsonNode o = d.path("outputs");
            ids = i.path("input_ids").asText(ids);
            mask = i.path("attention_mask").asText(mask);
            pos = i.path("position_ids").asText(pos);
            pastKey = i.path("past_key_names").asText(pastKey);
            pastValue = i.path("past_value_names").asText(pastValue);
            logits = o.path("logits").asText(logits);
            presentKey = o.path("present_key_names").asText(presentKey);
            presentValue = o.path("present_value_names").asText(presentValue);
            context = model.path("context_length").asInt(2048);
            JsonNode e = model.path("eos_token_id");
            if (e.isArray()) e.forEach(x -> eos.add(x.asInt()));
            else if (e.isInt()) eos.add(e.asInt());
        } else {
            kind = "optimum";
            var config = ModelConfig.read(dir);
            context = config.maxPositions();
            eos.addAll(config.eosTokenIds());
        }
        List<String> keyIn = new ArrayList<>(), valueIn = new ArrayList<>(), keyOut = new ArrayList<>(), valueOut = new ArrayList<>();
        for (int layer = 0; in.containsKey(String.format(pastKey, layer)); layer++) {
            keyIn.add(String.format(pastKey, layer));
            valueIn.add(String.format(pastValue, layer));
            keyOut.add(String.format(presentKey, layer));
            valueOut.add(String.format(presentValue, layer));
        }
        List<String> missing = new ArrayList<>();
        for (String n : List.of(ids, mask)) if (!in.containsKey(n)) missing.add("input " + n);
        if (keyIn.isEmpty()) missing.add("inputs " + String.format(pastKey, 0) + " ... (the key/value cache)");
        for (int l = 0; l < keyIn.size(); l++) {
            if (!in.containsKey(valueIn.get(l))) missing.add("input " + valueIn.get(l));
            if (!out.containsKey(keyOut.get(l))) missing.add("output " + keyOut.get(l));
            if (!out.containsKey(valueOut.get(l))) missing.add("output " + valueOut.get(l));
        }
        if (!out.containsKey(logits)) missing.add("output " + logits);
        if (!missing.isEmpty()) {
            throw new ModelException(file + ": not a decoder export Ladder can run (" + kind + " layout): missing "
                    + String.join(", ", missing) + "; found inputs " + new TreeSet<>(in.keySet()) + " and outputs "
                    + new TreeSet<>(out.keySet()));
        }
        long[] shape = ((TensorInfo) in.get(keyIn.get(0)).getInfo()).getShape();
        if (shape.length != 4 || shape[1] <= 0 || shape[3] <= 0) {
            throw new ModelException(file + ": the cache input " + keyIn.get(0) + " has shape "
                    + Arrays.toString(shape) + "; expected [batch, kv_heads, past, head_dim] with fixed kv_heads and head_dim");
        }
        return new OnnxLayout(kind, file, ids, mask, in.containsKey(pos) ? pos : null, keyIn, valueIn, logits, keyOut,
                valueOut, (int) shape[1], (int) shape[3], context, List.copyOf(eos),
                in.containsKey(USE_CACHE_BRANCH) ? USE_CACHE_BRANCH : null);
    }
}
