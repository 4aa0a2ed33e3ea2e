package dev.ladder.inference.store;

import dev.ladder.common.StorePaths;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pulls from a fake hub on 127.0.0.1: listing, redirects, resume, checksums, refusals, the token. */
class ModelStoreTest {

    static final String REPO = "ladder-test/tiny-model";

    @TempDir Path cache;
    FakeHub hub;

    @BeforeEach
    void serveTinyModel() throws IOException {
        hub = new FakeHub(REPO);
        TinyRepo.files().forEach(hub::put);
        hub.put("pytorch_model.bin", new byte[100])
                .put("original/consolidated.00.pth", new byte[100])
                .put("README.md", "# tiny");
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    ModelStore store() {
        return new ModelStore(cache, hub.endpoint(), null).withRetries(0, 0);
    }

    static Map<String, String> tree(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), FakeHub.sha256(Files.readAllBytes(p)));
            }
        }
        return out;
    }

    @Test
    void pullsTheFilesLadderReadsAndWritesAManifest() throws IOException {
        List<String> events = new ArrayList<>();
        Path dir = store().pull(REPO, null, new ProgressListener() {
            @Override
            public void started(String repoId, String revision, List<HubFile> files, long totalBytes) {
                events.add("started " + files.size() + " " + totalBytes);
            }

            @Override
            public void fileFinished(String name, long size, boolean alreadyThere) {
                events.add(name + (alreadyThere ? " kept" : " fetched"));
            }
        });
        assertThat(dir).isEqualTo(cache.resolve("ladder-test--tiny-model").resolve("main"));
        Map<String, String> tree = tree(dir);
        tree.remove(".ladder-pull.lock");
        tree.remove(PullManifest.FILE_NAME);
        Map<String, String> expected = new TreeMap<>();
        TinyRepo.files().forEach((k, v) -> expected.put(k, FakeHub.sha256(v)));
        assertThat(tree).isEqualTo(expected);

        PullManifest m = PullManifest.read(dir).orElseThrow();
        assertThat(m.repo()).isEqualTo(REPO);
        assertThat(m.revision()).isEqualTo("main");
        assertThat(m.commit()).isEqualTo(FakeHub.COMMIT);
        assertThat(m.files()).extracting(PullManifest.Entry::name).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (PullManifest.Entry e : m.files()) {
            assertThat(e.sha256()).isEqualTo(expected.get(e.name()));
            assertThat(e.size()).isEqualTo(TinyRepo.files().get(e.name()).length);
        }
        long total = TinyRepo.files().values().stream().mapToLong(b -> b.length).sum();
        assertThat(events.get(0)).isEqualTo("started " + expected.size() + " " + total);
        assertThat(events).contains("model.safetensors fetched", "config.json fetched");
        // LFS files came through the redirect, from the resolved commit
        assertThat(hub.requestsTo("/cdn/")).isNotEmpty();
        assertThat(hub.requestsTo("/resolve/" + FakeHub.COMMIT + "/config.json")).hasSize(1);
        assertThat(hub.requestsTo(".bin")).isEmpty();
        assertThat(hub.requestsTo("original")).isEmpty();

        assertThat(store().resolve(REPO)).isEqualTo(dir);
        assertThat(store().resolve(REPO + "@main")).isEqualTo(dir);
        assertThat(store().resolve(dir.toString())).isEqualTo(dir);

        // a second pull finds everything in place and downloads nothing
        int before = hub.requests.size();
        events.clear();
        store().pull(REPO, "main", new ProgressListener() {
            @Override
            public void fileFinished(String name, long size, boolean alreadyThere) {
                events.add(name + (alreadyThere ? " kept" : " fetched"));
            }
        });
        assertThat(hub.requests.subList(before, hub.requests.size())).extracting(FakeHub.Request::path)
                .allMatch(p -> p.startsWith("/api/"));
        assertThat(events).allMatch(e -> e.endsWith(" kept"));
    }

    @Test
    void concurrentPullsOfOneRepoDownloadItOnceAndTheSecondWaitsThenFindsItThere() throws Exception {
        CountDownLatch firstHolds = new CountDownLatch(1);
        CountDownLatch secondWaits = new CountDownLatch(1);
        List<String> second = new CopyOnWriteArrayList<>();
        // the first pull holds the lock until the second has said it waits: the two overlap on every run
        CompletableFuture<Path> a = CompletableFuture.supplyAsync(() -> pullQuietly(new ProgressListener() {
            @Override
            public void started(String repoId, String revision, List<HubFile> files, long totalBytes) {
                firstHolds.countDown();
                try {
                    secondWaits.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        assertThat(firstHolds.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Path> b = CompletableFuture.supplyAsync(() -> pullQuietly(new ProgressListener() {
            @Override
            public void waiting(String repoId, String revision) {
                second.add("waiting " + repoId + "@" + revision);
                secondWaits.countDown();
            }

            @Override
            public void fileFinished(String name, long size, boolean alreadyThere) {
                second.add(name + (alreadyThere ? " kept" : " fetched"));
            }
        }));
        assertThat(a.get(60, TimeUnit.SECONDS)).isEqualTo(b.get(60, TimeUnit.SECONDS));
        assertThat(second.get(0)).isEqualTo("waiting " + REPO + "@main");
        assertThat(second.subList(1, second.size())).isNotEmpty().allMatch(e -> e.endsWith(" kept"));
        // every file came down once, for the first pull
        assertThat(hub.requestsTo("/resolve/" + FakeHub.COMMIT + "/config.json")).hasSize(1);
        assertThat(PullManifest.read(a.get())).isPresent();
    }

    private Path pullQuietly(ProgressListener listener) {
        try {
            return store().pull(REPO, null, listener);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void exportsAreNamedByVariantWithTheirExternalDataAndPreferredInOrder() {
        List<HubFile> files = Stream.of("onnx/model.onnx", "onnx/model.onnx_data", "onnx/model.onnx_data_1",
                        "onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data", "onnx/model_q4.onnx", "onnx/model_quantized.onnx",
                        "decoder_model_merged.onnx", "decoder_model_merged_int8.onnx", "decoder_model.onnx",
                        "onnx/vision_encoder.onnx", "onnx/model.onnx_data/../../x", "model.safetensors")
                .map(n -> new HubFile(n, 1, null, null)).toList();
        Map<String, ModelStore.OnnxExport> exports = ModelStore.onnxExports(files);
        // full precision first, then int8 kinds, fp16, then the rest by name
        assertThat(exports.keySet()).containsExactly("fp32", "quantized", "int8", "fp16", "q4");
        ModelStore.OnnxExport fp32 = exports.get("fp32");
        assertThat(fp32.file()).isEqualTo("onnx/model.onnx"); // onnx/model wins over a top-level decoder_model_merged
        assertThat(fp32.files()).extracting(HubFile::name)
                .containsExactly("onnx/model.onnx", "onnx/model.onnx_data", "onnx/model.onnx_data_1");
        assertThat(exports.get("fp16").files()).extracting(HubFile::name)
                .containsExactly("onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data");
        assertThat(exports.get("int8").file()).isEqualTo("decoder_model_merged_int8.onnx");
        assertThat(ModelStore.onnxExports(List.of(new HubFile("model.safetensors", 1, null, null)))).isEmpty();
    }

    @Test
    void anOnnxOnlyRepoPullsItsPreferredExportAndAnotherVariantReplacesIt() throws IOException {
        FakeHub onnxHub = new FakeHub("ladder-test/tiny-onnx");
        try (onnxHub) {
            onnxHub.put("config.json", TinyRepo.files().get("config.json")).put("tokenizer.json", "{}")
                    .put("onnx/model.onnx", new byte[300]).put("onnx/model.onnx_data", new byte[500])
                    .put("onnx/model_quantized.onnx", new byte[200]).put("README.md", "# onnx only");
            ModelStore store = new ModelStore(cache, onnxHub.endpoint(), null).withRetries(0, 0);
            Path dir = store.pull("ladder-test/tiny-onnx", null, null);
            PullManifest m = PullManifest.read(dir).orElseThrow();
            assertThat(m.onnxVariant()).isEqualTo("fp32");
            assertThat(m.onnxFile()).isEqualTo("onnx/model.onnx");
            assertThat(dir.resolve("onnx/model.onnx")).hasSize(300);
            assertThat(dir.resolve("onnx/model.onnx_data")).hasSize(500);
            assertThat(dir.resolve("onnx/model_quantized.onnx")).doesNotExist();
            assertThat(m.files()).extracting(PullManifest.Entry::name)
                    .containsExactly("config.json", "tokenizer.json", "onnx/model.onnx", "onnx/model.onnx_data");

            // another variant: pulled, recorded, and the previous export's files removed
            store.pull("ladder-test/tiny-onnx", null, "quantized", null);
            PullManifest q = PullManifest.read(dir).orElseThrow();
            assertThat(q.onnxVariant()).isEqualTo("quantized");
            assertThat(q.onnxFile()).isEqualTo("onnx/model_quantized.onnx");
            assertThat(dir.resolve("onnx/model_quantized.onnx")).hasSize(200);
            assertThat(dir.resolve("onnx/model.onnx")).doesNotExist();
            assertThat(dir.resolve("onnx/model.onnx_data")).doesNotExist();

            assertThatThrownBy(() -> store.pull("ladder-test/tiny-onnx", null, "q4", null)).isInstanceOf(StoreException.class)
                    .hasMessage("ladder-test/tiny-onnx@main has no ONNX export 'q4'; it has fp32, quantized");
            assertThatThrownBy(() -> store.pull("ladder-test/tiny-onnx", null, "none", null)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("has no safetensors weights").hasMessageContaining("--onnx fp32|quantized");
        }
    }

    @Test
    void aRepoWithSafetensorsTakesAnExportOnlyWhenAsked() throws IOException {
        hub.put("onnx/model.onnx", new byte[64]);
        Path dir = store().pull(REPO, null, null);
        assertThat(PullManifest.read(dir).orElseThrow().onnxFile()).isNull();
        assertThat(dir.resolve("onnx")).doesNotExist();
        store().pull(REPO, null, "fp32", null);
        PullManifest both = PullManifest.read(dir).orElseThrow();
        assertThat(both.onnxFile()).isEqualTo("onnx/model.onnx");
        assertThat(both.entry("model.safetensors")).isPresent();
        assertThat(dir.resolve("onnx/model.onnx")).hasSize(64);
        // nothing else changed: the safetensors were kept, not fetched again
        assertThat(hub.requestsTo("/cdn/")).hasSize(1);
    }

    @Test
    void pullsWithoutSizesOrChecksumsWhenTheListingHasNone() throws IOException {
        hub.blobs = false;
        Path dir = store().pull(REPO, null, null);
        PullManifest m = PullManifest.read(dir).orElseThrow();
        assertThat(m.entry("model.safetensors").orElseThrow().sha256())
                .isEqualTo(FakeHub.sha256(TinyRepo.files().get("model.safetensors")));
    }

    @Test
    void resumesAnInterruptedDownloadWithARangeRequest() throws IOException {
        byte[] weights = TinyRepo.files().get("model.safetensors");
        int cut = weights.length / 3;
        hub.dropOnceAfter.put("model.safetensors", cut);
        assertThatThrownBy(() -> store().pull(REPO, null, null)).isInstanceOf(IOException.class);

        Path dir = store().directoryFor(REPO, "main");
        assertThat(dir.resolve("model.safetensors")).doesNotExist();
        assertThat(dir.resolve("model.safetensors.part")).hasSize(cut);
        assertThat(dir.resolve(PullManifest.FILE_NAME)).doesNotExist();
        assertThatThrownBy(() -> store().resolve(REPO)).isInstanceOf(StoreException.class)
                .hasMessage("model '" + REPO + "' is not pulled: run 'ladder model pull " + REPO + "'");

        store().pull(REPO, null, null);
        assertThat(hub.requestsTo("/cdn/")).extracting(FakeHub.Request::range).contains("bytes=" + cut + "-");
        assertThat(dir.resolve("model.safetensors")).hasBinaryContent(weights);
        assertThat(dir.resolve("model.safetensors.part")).doesNotExist();
        assertThat(PullManifest.read(dir)).isPresent();
    }

    @Test
    void startsOverWhenTheServerIgnoresTheRange() throws IOException {
        byte[] weights = TinyRepo.files().get("model.safetensors");
        hub.dropOnceAfter.put("model.safetensors", weights.length / 2);
        hub.rangeSupport = false;
        assertThatThrownBy(() -> store().pull(REPO, null, null)).isInstanceOf(IOException.class);
        Path dir = store().pull(REPO, null, null);
        assertThat(dir.resolve("model.safetensors")).hasBinaryContent(weights);
    }

    @Test
    void retriesWithinOnePull() throws IOException {
        byte[] weights = TinyRepo.files().get("model.safetensors");
        hub.dropOnceAfter.put("model.safetensors", 1000);
        Path dir = new ModelStore(cache, hub.endpoint(), null).withRetries(2, 0).pull(REPO, null, null);
        assertThat(dir.resolve("model.safetensors")).hasBinaryContent(weights);
        assertThat(hub.requestsTo("/cdn/")).extracting(FakeHub.Request::range).containsExactly(null, "bytes=1000-");
    }

    @Test
    void aChecksumMismatchLeavesNoFile() {
        hub.corrupt.add("model.safetensors");
        assertThatThrownBy(() -> store().pull(REPO, null, null)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("sha256 mismatch for model.safetensors: expected "
                        + FakeHub.sha256(TinyRepo.files().get("model.safetensors")));
        Path dir = store().directoryFor(REPO, "main");
        assertThat(dir.resolve("model.safetensors")).doesNotExist();
        assertThat(dir.resolve("model.safetensors.part")).doesNotExist();
        assertThat(dir.resolve(PullManifest.FILE_NAME)).doesNotExist();
    }

    @Test
    void aCorruptSmallFileFailsItsGitBlobId() {
        hub.corrupt.add("tokenizer.json");
        assertThatThrownBy(() -> store().pull(REPO, null, null)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("git blob id mismatch for tokenizer.json");
        assertThat(store().directoryFor(REPO, "main").resolve("tokenizer.json")).doesNotExist();
    }

    @Test
    void aGatedRepoSaysSoInOneLine() {
        hub.requiredToken = "secret";
        assertThatThrownBy(() -> store().pull(REPO, null, null)).isInstanceOf(StoreException.class)
                .hasMessage(REPO + " is gated or needs a token: accept the license on the hub (" + hub.endpoint() + "/"
                        + REPO + ") and set HF_TOKEN");
        assertThatThrownBy(() -> new ModelStore(cache, hub.endpoint(), "wrong").pull(REPO, null, null))
                .isInstanceOf(StoreException.class).hasMessageContaining("a token was sent");
    }

    @Test
    void unknownRepoOrRevisionIsNoSuchModel() {
        assertThatThrownBy(() -> store().pull("ladder-test/nope", null, null)).isInstanceOf(StoreException.class)
                .hasMessageStartingWith("no such model or revision: ladder-test/nope@main on " + hub.endpoint());
        assertThatThrownBy(() -> store().pull(REPO, "v9", null)).isInstanceOf(StoreException.class)
                .hasMessage("no such model or revision: " + REPO + "@v9 on " + hub.endpoint());
        assertThat(store().directoryFor(REPO, "v9")).doesNotExist();
    }

    @Test
    void theTokenGoesToTheHubButNotAcrossAHostChange() throws IOException {
        hub.requiredToken = "secret";
        hub.cdnOnOtherHost = true;
        new ModelStore(cache, hub.endpoint(), "secret").withRetries(0, 0).pull(REPO, null, null);
        int hubPort = hub.hub.getAddress().getPort();
        int cdnPort = hub.cdn.getAddress().getPort();
        List<FakeHub.Request> toHub = hub.requests.stream().filter(r -> r.port() == hubPort).toList();
        List<FakeHub.Request> toCdn = hub.requests.stream().filter(r -> r.port() == cdnPort).toList();
        assertThat(toHub).isNotEmpty().allMatch(r -> "Bearer secret".equals(r.authorization()));
        assertThat(toCdn).isNotEmpty().allMatch(r -> r.authorization() == null);
    }

    @Test
    void aShardedModelTakesTheShardsItsIndexNames() throws IOException {
        hub.close();
        hub = new FakeHub(REPO);
        TinyRepo.shardedFiles().forEach(hub::put);
        hub.put("consolidated.safetensors", new byte[9000]);
        Path dir = store().pull(REPO, null, null);
        for (Map.Entry<String, byte[]> e : TinyRepo.shardedFiles().entrySet()) {
            assertThat(dir.resolve(e.getKey())).hasBinaryContent(e.getValue());
        }
        assertThat(TinyRepo.shardedFiles()).containsKeys("model.safetensors.index.json", "model-00002-of-00002.safetensors");
        assertThat(dir.resolve("consolidated.safetensors")).doesNotExist();
        assertThat(PullManifest.read(dir).orElseThrow().files()).extracting(PullManifest.Entry::name)
                .containsExactlyInAnyOrderElementsOf(TinyRepo.shardedFiles().keySet());
    }

    @Test
    void aRepoWithoutSafetensorsIsRefused() throws IOException {
        hub.close();
        hub = new FakeHub(REPO);
        hub.put("config.json", "{}").put("pytorch_model.bin", new byte[10]);
        assertThatThrownBy(() -> store().pull(REPO, null, null)).isInstanceOf(StoreException.class)
                .hasMessage(REPO + "@main has no safetensors weights at the top level (only pytorch_model.bin): "
                        + "Ladder reads safetensors or an ONNX decoder export ([onnx/]model[_VARIANT].onnx)");
    }

    @Test
    void resolveExplainsWhatIsMissing() throws IOException {
        assertThatThrownBy(() -> store().resolve("meta-llama/Llama-3.2-1B")).isInstanceOf(StoreException.class)
                .hasMessage("model 'meta-llama/Llama-3.2-1B' is not pulled: run 'ladder model pull meta-llama/Llama-3.2-1B'");
        assertThatThrownBy(() -> store().resolve("a/b@v2")).hasMessage("model 'a/b@v2' is not pulled: run 'ladder model pull a/b --revision v2'");
        Path empty = Files.createDirectories(cache.resolve("empty"));
        assertThatThrownBy(() -> store().resolve(empty.toString())).isInstanceOf(StoreException.class)
                .hasMessage("not a model directory: " + empty + " (no config.json)");
        assertThatThrownBy(() -> store().resolve("/no/such/dir")).isInstanceOf(StoreException.class)
                .hasMessageStartingWith("no such model directory: /no/such/dir");
        Files.writeString(empty.resolve("config.json"), "{}");
        assertThat(store().resolve(empty.toString())).isEqualTo(empty);
        assertThatThrownBy(() -> store().pull("not-a-repo", null, null)).isInstanceOf(StoreException.class)
                .hasMessageStartingWith("not a hub repo id: 'not-a-repo'");
    }

    @Test
    void wantedFiles() {
        assertThat(ModelStore.wanted("config.json")).isTrue();
        assertThat(ModelStore.wanted("model-00001-of-00004.safetensors")).isTrue();
        assertThat(ModelStore.wanted("model.safetensors.index.json")).isTrue();
        assertThat(ModelStore.wanted("pytorch_model.bin")).isFalse();
        assertThat(ModelStore.wanted("original/params.json")).isFalse();
        assertThat(ModelStore.wanted("original/model.safetensors")).isFalse();
        assertThat(ModelStore.wanted("model.gguf")).isFalse();
        assertThat(ModelStore.wanted("README.md")).isFalse();
    }

    @Test
    void cacheDirFollowsTheSystemProperty() {
        String old = System.getProperty("ladder.cache.dir");
        try {
            System.setProperty("ladder.cache.dir", cache.toString());
            assertThat(StorePaths.modelsDir()).isEqualTo(cache.resolve("models"));
        } finally {
            if (old == null) System.clearProperty("ladder.cache.dir");
            else System.setProperty("ladder.cache.dir", old);
        }
    }
}
