package dev.ladder.cli;

import dev.ladder.inference.device.Placement;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.adapters.AdaptedWeightSource;
import dev.ladder.adapters.AdapterException;
import dev.ladder.adapters.PeftAdapter;
import dev.ladder.eval.engine.djl.DjlEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.llm.LlamaModel;
import dev.ladder.inference.llm.WeightSource;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.Weights;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The engine's logits for a prompt of token ids, written for comparison with another implementation (Hugging Face
 * {@code transformers}, scripts/reference/llama_reference.py): the parity checks of {@code scripts/gpu-check} on a GPU.
 */
@Command(name = "logits", mixinStandardHelpOptions = true,
        description = {"Run the djl engine on token ids and write the logits of every prompt position, plus the greedy "
                + "continuation, for parity checks against another implementation.",
                "Writes OUT (JSON: ids, greedy ids, shape, dtype, device, load time) and OUT.f32 (the logits as "
                        + "little-endian float32, [positions, vocab])."})
final class ModelLogitsCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin ModelFlags modelFlags;
    @Option(names = "--prompt-ids", required = true, paramLabel = "IDS", description = "Comma-separated token ids.")
    String promptIds;
    @Option(names = "--generate", defaultValue = "8", paramLabel = "N", description = "Greedy tokens after the prompt (default ${DEFAULT-VALUE}).")
    int generate;
    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The JSON file; the logits go to FILE.f32.")
    Path out;

    @Override
    public Integer call() throws IOException {
        List<Integer> ids = GenerateCommand.parseIds(promptIds);
        if (ids.isEmpty()) throw new UserError("--prompt-ids: no ids");
        String engine = modelFlags.engine().name();
        if (!engine.equals(DjlEngine.NAME)) {
            throw new UserError("ladder model logits reads the djl engine's logits; the engine here is " + engine
                    + " (give a model folder with safetensors weights, or --engine djl)");
        }
        var precision = ModelLoader.engineOptions(modelFlags.dtype);
        Path adapter = modelFlags.adapter;
        var merge = ModelFlags.mergeBase(modelFlags.mergeBase);
        Path dir = ModelCommand.resolve(modelFlags.model);
        Placement on = DeviceOptions.resolve(DeviceOptions.parse(modelFlags.device));
        ModelConfig config;
        try {
            config = ModelConfig.read(dir);
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        }
        for (int id : ids) {
            if (id >= config.vocabSize()) {
                throw new UserError("--prompt-ids: id " + id + " is outside the vocabulary (0.." + (config.vocabSize() - 1) + ")");
            }
        }
        var base = DjlLanguageModel.Options.DEFAULT;
        var options = new DjlLanguageModel.Options(precision, base.maxBatchRows(), base.prefillTokens(), base.threads());
        long t0 = System.nanoTime();
        float[] logits;
        List<Integer> greedy;
        String loadedAs;
        // ids in, logits out: no tokenizer needed (the checkpoints of scripts/gpu-check have none)
        try (PeftAdapter peft = adapter == null ? null : PeftAdapter.read(adapter)) {
            if (peft != null) peft.validate(dir);
            LlamaModel m;
            try (Weights weights = Weights.open(dir)) {
                WeightSource source = WeightSource.of(weights);
                m = LlamaModel.load(config, peft == null ? source : new AdaptedWeightSource(source, peft, merge), on, precision);
            }
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            try (DjlLanguageModel lm = new DjlLanguageModel(m, null, dir.getFileName().toString(), null, options)) {
                loadedAs = m.dtype().toString();
                logits = m.prefillLogits(ids.stream().mapToInt(Integer::intValue).toArray());
                greedy = generate == 0 ? List.of() : lm.generate(List.of(new GenerationRequest(null, ids, generate,
                        Sampling.GREEDY, 1, 0, Set.of(), List.of()))).get(0).candidates().get(0).tokenIds();
                write(ids, greedy, logits, config.vocabSize(), loadedAs, m.placement().label(),
                        loadSeconds);
            }
        } catch (ModelException | AdapterException e) {
            throw new UserError(e.getMessage(), e);
        }
        spec.commandLine().getOut().println("logits: " + out + " (+ .f32), greedy " + greedy);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** Both files, each through a temporary file in its folder and a move, so a failure leaves no half-written one. */
    private void write(List<Integer> ids, List<Integer> greedy, float[] logits, int vocab, String dtype, String where,
                       double loadSeconds) throws IOException {
        Path json = out.toAbsolutePath();
        Path raw = json.resolveSibling(json.getFileName() + ".f32");
        if (json.getParent() != null) Files.createDirectories(json.getParent());
        ByteBuffer buf = ByteBuffer.allocate(logits.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(logits);
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode o = mapper.createObjectNode();
        o.putArray("ids").addAll(ids.stream().map(mapper.getNodeFactory()::numberNode).toList());
        o.putArray("greedy").addAll(greedy.stream().map(mapper.getNodeFactory()::numberNode).toList());
        o.putArray("shape").add(ids.size()).add(vocab);
        o.put("dtype", dtype);
        o.put("device", where);
        o.put("adapter", modelFlags.adapter == null ? null : modelFlags.adapter.toString());
        o.put("merge_base", modelFlags.adapter == null ? null : modelFlags.mergeBase);
        o.put("load_seconds", loadSeconds);
        o.put("logits_file", raw.getFileName().toString());
        atomically(raw, s -> s.write(buf.array()));
        atomically(json, s -> s.write(mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(o)));
    }

    private interface Writer {
        void write(OutputStream s) throws IOException;
    }

    private static void atomically(Path target, Writer w) throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
        try {
            try (OutputStream s = Files.newOutputStream(tmp)) {
                w.write(s);
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UncheckedIOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }
}
