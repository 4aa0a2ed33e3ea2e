package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.ladder.cli.LadderCliTest.Run;
import dev.ladder.inference.model.ModelConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ladder model ...}: make-tiny, info, pull (from a hub on 127.0.0.1), and their one-line user errors. */
class ModelCliTest {

    @TempDir Path tmp;
    private String oldCache;

    @BeforeAll
    static void offline() {
        System.setProperty("ai.djl.offline", "true");
    }

    @BeforeEach
    void cacheInTemp() {
        oldCache = System.getProperty("ladder.cache.dir");
        System.setProperty("ladder.cache.dir", tmp.resolve("cache").toString());
    }

    @AfterEach
    void restoreCache() {
        if (oldCache == null) System.clearProperty("ladder.cache.dir");
        else System.setProperty("ladder.cache.dir", oldCache);
        System.clearProperty("ladder.hf.endpoint");
    }

    static Run run(String... args) {
        return LadderCliTest.run(args);
    }

    static void assertUserError(Run r, String errStart) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("ladder: " + errStart).endsWith("\n");
        assertThat(r.err().strip()).doesNotContain("\n");
        assertThat(r.out()).isEmpty();
    }

    /** Parameters of a Llama/Qwen2 decoder from its config: embeddings (+ LM head unless tied), layers, final norm. */
    static long parameters(ModelConfig c) {
        long h = c.hiddenSize();
        long q = (long) c.numHeads() * c.headDim();
        long kv = (long) c.numKvHeads() * c.headDim();
        long attn = h * q + 2 * h * kv + q * h + (c.attentionBias() ? q + 2 * kv : 0);
        long mlp = 3 * h * c.intermediateSize();
        long layer = attn + mlp + 2 * h;
        return (long) c.vocabSize() * h * (c.tieWordEmbeddings() ? 1 : 2) + c.numLayers() * layer + h;
    }

    @Test
    void makeTinyThenInfo() {
        Path dir = tmp.resolve("tiny");
        Run made = run("model", "make-tiny", dir.toString());
        assertThat(made.code()).as(made.err()).isZero();
        assertThat(made.out()).startsWith("wrote tiny model (f32, seed 1, ");
        ModelConfig c = ModelConfig.read(dir);
        long expected = parameters(c);
        assertThat(expected).isEqualTo(156_480L);

        Run info = run("model", "info", dir.toString());
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(info.out())
                .containsPattern("(?m)^architecture +llama \\(LlamaForCausalLM\\)$")
                .containsPattern("(?m)^layers +2$")
                .containsPattern("(?m)^hidden +64 \\(intermediate 172\\)$")
                .containsPattern("(?m)^heads +4 query, 2 key/value, head dim 16$")
                .containsPattern("(?m)^vocab +512$")
                .containsPattern("(?m)^parameters +" + expected + " \\(156\\.5K\\)$")
                .containsPattern("(?m)^stored dtype +F32 \\(config: float32\\)$")
                .containsPattern("(?m)^files +\\d+ files, [\\d.]+ KiB$")
                .containsPattern("(?m)^weights as +on +weights +KV cache / 1k tokens +KV dtype$")
                // the memory plan's figures: f32 weights = parameters x 4 (611.3 KiB) + RoPE cos/sin for the engine's
                // 2048-token context, 2 x 2048 x 16 x 4 (256 KiB); KV = 2 (k, v) x 2 layers x 2 kv heads x 16 x 1000
                // tokens x 4 bytes = 512,000, + the f32 padding mask 1000 x 4
                .containsPattern("(?m)^f32 +cpu +867\\.3 KiB +503\\.9 KiB +f32$")
                .containsPattern("(?m)^int8 +cuda +348\\.1 KiB +253\\.9 KiB +f16$")
                .contains("ladder model plan");
    }

    @Test
    void makeTinyShapesAndDtypes() throws IOException {
        Path dir = tmp.resolve("qwen");
        Run made = run("model", "make-tiny", dir.toString(), "--shape", "qwen2-tiny", "--dtype", "bf16", "--seed", "7");
        assertThat(made.code()).as(made.err()).isZero();
        ModelConfig c = ModelConfig.read(dir);
        assertThat(c.architecture()).isEqualTo(ModelConfig.Architecture.QWEN2);
        Run info = run("model", "info", dir.toString());
        assertThat(info.out()).containsPattern("(?m)^parameters +" + parameters(c) + " ")
                .containsPattern("(?m)^stored dtype +BF16 ");

        // same shape, seed and dtype: same bytes
        Path again = tmp.resolve("qwen-again");
        run("model", "make-tiny", again.toString(), "--shape", "qwen2-tiny", "--dtype", "bf16", "--seed", "7");
        assertThat(again.resolve("model.safetensors")).hasSameBinaryContentAs(dir.resolve("model.safetensors"));

        // --force replaces the model files, keeps the rest
        Files.writeString(dir.resolve("notes.txt"), "mine");
        Run forced = run("model", "make-tiny", dir.toString(), "--force");
        assertThat(forced.code()).as(forced.err()).isZero();
        assertThat(ModelConfig.read(dir).architecture()).isEqualTo(ModelConfig.Architecture.LLAMA);
        assertThat(dir.resolve("notes.txt")).hasContent("mine");
    }

    @Test
    void userErrorsAreOneLineExitTwoAndWriteNothing() throws IOException {
        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("x.txt"), "x");
        assertUserError(run("model", "make-tiny", full.toString()), full + " is not empty (use --force");
        assertThat(full.resolve("config.json")).doesNotExist();

        Path fresh = tmp.resolve("fresh");
        assertUserError(run("model", "make-tiny", fresh.toString(), "--shape", "huge"), "unknown shape 'huge'");
        assertUserError(run("model", "make-tiny", fresh.toString(), "--dtype", "i8"), "--dtype must be f32, bf16 or f16");
        assertUserError(run("model", "make-tiny", fresh.toString(), "--seed", "abc"), "");
        assertThat(fresh).doesNotExist();
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".tmp-"));
        }

        assertUserError(run("model", "info", tmp.resolve("missing").toString()), "no such model directory: ");
        assertUserError(run("model", "info", full.toString()), "not a model directory: " + full + " (no config.json)");
        assertUserError(run("model", "info", "meta-llama/Llama-3.2-1B"),
                "model 'meta-llama/Llama-3.2-1B' is not pulled: run 'ladder model pull meta-llama/Llama-3.2-1B'");
        Files.writeString(full.resolve("config.json"), "{\"model_type\":\"gpt2\"}");
        assertUserError(run("model", "info", full.toString()), "");
        assertUserError(run("model", "pull", "not-a-repo"), "not a hub repo id: 'not-a-repo'");
        assertUserError(run("model", "bogus"), "");
    }

    @Test
    void pullFromAHubThenInfoByRepoId() throws IOException {
        Path src = tmp.resolve("src");
        assertThat(run("model", "make-tiny", src.toString()).code()).isZero();
        Map<String, byte[]> files = LocalHub.filesOf(src);
        String repo = "ladder-test/tiny";
        HttpServer server = LocalHub.serve(repo, files);
        try {
            System.setProperty("ladder.hf.endpoint", "http://127.0.0.1:" + server.getAddress().getPort());
            Run pulled = run("model", "pull", repo);
            assertThat(pulled.code()).as(pulled.err()).isZero();
            Path dir = tmp.resolve("cache/models/ladder-test--tiny/main");
            assertThat(pulled.out()).isEqualTo(dir + System.lineSeparator());
            assertThat(pulled.err()).contains("pulled " + repo + "@main (commit 111111111111): " + files.size() + " files");
            for (Map.Entry<String, byte[]> e : files.entrySet()) {
                assertThat(dir.resolve(e.getKey())).hasBinaryContent(e.getValue());
            }
            Run info = run("model", "info", repo);
            assertThat(info.code()).as(info.err()).isZero();
            assertThat(info.out()).containsPattern("(?m)^pulled +ladder-test/tiny@main \\(commit 111111111111\\)")
                    .containsPattern("(?m)^parameters +156480 ");

            assertUserError(run("model", "pull", "ladder-test/none"), "no such model or revision: ladder-test/none@main");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void generateFromPromptIdsIsDeterministic() throws IOException {
        Path dir = tmp.resolve("tiny");
        assertThat(run("model", "make-tiny", dir.toString()).code()).isZero();
        String[] args = {"generate", "--model", dir.toString(), "--prompt-ids", "507,10,20,30", "--json", "--greedy", "--max-tokens", "5"};
        Run first = run(args);
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.out().strip()).doesNotContain("\n");
        JsonNode a = json(first.out());
        assertThat(a.fieldNames()).toIterable().containsExactly("ids", "text");
        List<Integer> ids = ids(a);
        assertThat(ids).hasSizeBetween(1, 5).allMatch(i -> i >= 0 && i < 512);
        assertThat(a.get("text").isTextual()).isTrue();
        Run second = run(args);
        assertThat(ids(json(second.out()))).isEqualTo(ids);
        assertThat(second.out()).isEqualTo(first.out());

        // a text prompt prints the text; with --json the same shape
        Run text = run("generate", "--model", dir.toString(), "--max-tokens", "4", "hello");
        assertThat(text.code()).as(text.err()).isZero();
        Run textJson = run("generate", "--model", dir.toString(), "--max-tokens", "4", "--json", "hello");
        JsonNode t = json(textJson.out());
        assertThat(text.out()).isEqualTo(t.get("text").asText() + System.lineSeparator());

        // a chat turn in the model's template (tiny models carry a Llama 3 one)
        Run chat = run("generate", "--model", dir.toString(), "--chat", "--system", "be brief", "--max-tokens", "3", "hello");
        assertThat(chat.code()).as(chat.err()).isZero();

        // sampling with a seed repeats; n candidates print one JSON line each
        String[] sampled = {"generate", "--model", dir.toString(), "--prompt-ids", "507,1,2", "--json", "--temperature", "0.9",
            "--top-k", "50", "--top-p", "0.95", "--seed", "11", "-n", "3", "--max-tokens", "6"};
        Run s1 = run(sampled);
        assertThat(s1.code()).as(s1.err()).isZero();
        assertThat(s1.out().lines()).hasSize(3);
        assertThat(run(sampled).out()).isEqualTo(s1.out());
    }

    @Test
    void generateUserErrors() {
        Path dir = tmp.resolve("tiny");
        assertThat(run("model", "make-tiny", dir.toString()).code()).isZero();
        String m = dir.toString();
        assertUserError(run("generate", "--model", m, "--prompt-ids", "1,x,3", "--json"), "--prompt-ids must be comma-separated integers, got 'x'");
        assertUserError(run("generate", "--model", m, "--prompt-ids", "1,2.5"), "--prompt-ids must be comma-separated integers");
        assertUserError(run("generate", "--model", m, "--prompt-ids", "1,9999"), "--prompt-ids: id 9999 is outside the vocabulary (0..511)");
        assertUserError(run("generate", "--model", m, "--stop", "", "SELECT"), "--stop: an empty stop string would stop at once");
        assertUserError(run("generate", "--model", m, "--prompt-ids", "1", "hello"), "give a text prompt or --prompt-ids, not both");
        assertUserError(run("generate", "--model", m), "no prompt");
        assertUserError(run("generate", "--model", m, "--greedy", "--temperature", "0.7", "hi"), "--greedy cannot be combined");
        assertUserError(run("generate", "--model", m, "--temperature", "-1", "hi"), "--temperature must be >= 0");
        assertUserError(run("generate", "--model", m, "--top-p", "0", "hi"), "--top-p must be in (0, 1]");
        assertUserError(run("generate", "--model", m, "--max-tokens", "0", "hi"), "--max-tokens must be >= 1");
        assertUserError(run("generate", "--model", m, "-n", "zero", "hi"), "");
        assertUserError(run("generate", "--model", tmp.resolve("none").toString(), "hi"), "no such model directory");
        assertUserError(run("generate", "hi"), "");
    }

    @Test
    void benchGeneratePrintsThroughputByBatch() {
        Path dir = tmp.resolve("tiny");
        assertThat(run("model", "make-tiny", dir.toString()).code()).isZero();
        Run r = run("bench", "generate", "--model", dir.toString(), "--new-tokens", "4", "--threads", "1");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("(?m)^prefill, prompt 128 \\(tok/s\\) +[\\d.]+$")
                .containsPattern("(?m)^decode, batch 1 \\(tok/s\\) +[\\d.]+$")
                .containsPattern("(?m)^decode, batch 4 \\(tok/s\\) +[\\d.]+$")
                .containsPattern("(?m)^decode, batch 16 \\(tok/s\\) +[\\d.]+$")
                .containsPattern("(?m)^peak RSS, VmHWM \\(MB\\) +\\d+$")
                .containsPattern("(?m)^peak anonymous RSS while loading \\(MB\\) +\\d+$")
                .containsPattern("(?m)^KV cache read per step, context 130 \\(MB\\) +[\\d.]+$")
                .containsPattern("(?m)^  \\(host read of 512 MB, 1 thread, the fastest of: Java long\\[\\] sum [\\d.]+, "
                        + "PyTorch sum [\\d.]+, blocked matrix-vector product [\\d.]+ GB/s\\)$")
                .containsPattern("(?m)^batch-1 decode / roofline +\\d+%$")
                // the small-batch forms: measured at load, compared in the same run
                .containsPattern("(?m)^decode, batch 4, forms off \\(tok/s\\) +[\\d.]+$")
                .containsPattern("(?m)^  small-batch forms speed-up, batch 4 +[\\d.]+x$")
                .containsPattern("(?m)^  \\d+ x \\d+: 1 [a-zA-Z. ]+, 2 .+, 16 [a-zA-Z. ]+$")
                // how the load came to them, and the machine's load beside the decode rates
                .containsPattern("(?m)^  \\d+ x \\d+: measured now \\(.+, spread \\d+%\\): this load only: models under 64 MB are not stored$")
                .containsPattern("(?m)^  \\(machine during decode: (others \\d+\\.\\d\\d of \\d+ cores|others' load unknown).*\\)$");

        String m = dir.toString();
        assertUserError(run("bench", "generate", "--model", m, "--batches", "1,x"), "");
        assertUserError(run("bench", "generate", "--model", m, "--batches", "0"), "--batches must be >= 1, got 0");
        assertUserError(run("bench", "generate", "--model", m, "--new-tokens", "1"), "--new-tokens must be >= 2");
        assertUserError(run("bench", "generate", "--model", m, "--prompt-tokens", "0"), "--prompt-tokens must be >= 1");
        assertUserError(run("bench", "generate", "--model", tmp.resolve("none").toString()), "no such model directory");
    }

    static JsonNode json(String s) throws IOException {
        return new ObjectMapper().readTree(s);
    }

    static List<Integer> ids(JsonNode n) {
        List<Integer> out = new java.util.ArrayList<>();
        n.path("ids").forEach(i -> out.add(i.asInt()));
        return out;
    }
}
