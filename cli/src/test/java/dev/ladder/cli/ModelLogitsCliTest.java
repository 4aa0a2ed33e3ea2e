package dev.ladder.cli;

import static dev.ladder.cli.LadderCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ladder model logits}: what scripts/gpu-check compares with transformers on a GPU. The file holds every prompt
 * position's logits; the greedy continuation is the engine's own and starts with the last position's arg-max; an
 * adapter merged at load time changes the logits; a bad request writes nothing.
 */
class ModelLogitsCliTest {

    @TempDir Path tmp;

    @Test
    void logitsOfEveryPositionAndTheGreedyContinuation() throws IOException {
        Path model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 1, DType.F32);
        Path out = tmp.resolve("out/logits.json");
        Run r = run("model", "logits", "--model", model.toString(), "--device", "cpu", "--prompt-ids", "1,2,3,4,5",
                "--generate", "6", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode head = new ObjectMapper().readTree(out.toFile());
        int vocab = head.path("shape").get(1).asInt();
        assertThat(head.path("shape").get(0).asInt()).isEqualTo(5);
        assertThat(head.path("dtype").asText()).isEqualTo("float32");
        assertThat(head.path("greedy")).hasSize(6);
        byte[] raw = Files.readAllBytes(out.resolveSibling("logits.json.f32"));
        assertThat(raw).hasSize(5 * vocab * 4);
        var floats = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        int best = 0;
        for (int v = 1; v < vocab; v++) if (floats.get(4 * vocab + v) > floats.get(4 * vocab + best)) best = v;
        assertThat(head.path("greedy").get(0).asInt()).as("first greedy token = arg-max of the last position").isEqualTo(best);

        // the same ids through ladder generate: the same greedy tokens
        Run gen = run("generate", "--model", model.toString(), "--device", "cpu", "--prompt-ids", "1,2,3,4,5",
                "--max-tokens", "6", "--json");
        assertThat(gen.code()).as(gen.err()).isZero();
        assertThat(new ObjectMapper().readTree(gen.out().strip()).path("ids")).isEqualTo(head.path("greedy"));

        // an adapter merged at load time moves the logits
        Path lora = tmp.resolve("lora");
        assertThat(run("adapters", "make-tiny", "--base", model.toString(), lora.toString()).code()).isZero();
        Path adapted = tmp.resolve("out/adapted.json");
        Run withLora = run("model", "logits", "--model", model.toString(), "--adapter", lora.toString(), "--device", "cpu",
                "--prompt-ids", "1,2,3,4,5", "--generate", "0", "--out", adapted.toString());
        assertThat(withLora.code()).as(withLora.err()).isZero();
        assertThat(Files.readAllBytes(adapted.resolveSibling("adapted.json.f32"))).hasSize(raw.length).isNotEqualTo(raw);
    }

    @Test
    void badRequestsAreOneLineAndWriteNothing() throws IOException {
        Path model = tmp.resolve("tiny");
        TinyModels.write(model, TinyModels.Shape.TINY, 1, DType.F32);
        Path out = tmp.resolve("out/x.json");
        Run outside = run("model", "logits", "--model", model.toString(), "--prompt-ids", "1,99999", "--out", out.toString());
        assertThat(outside.code()).isEqualTo(2);
        assertThat(outside.err().strip()).doesNotContain("\n").contains("id 99999 is outside the vocabulary");
        Run dtype = run("model", "logits", "--model", model.toString(), "--prompt-ids", "1", "--dtype", "bf16", "--out", out.toString());
        assertThat(dtype.code()).isEqualTo(2);
        assertThat(dtype.err().strip()).contains("--dtype must be auto, f32, f16 or int8, got 'bf16'");
        assertThat(out.getParent()).doesNotExist();
    }
}
