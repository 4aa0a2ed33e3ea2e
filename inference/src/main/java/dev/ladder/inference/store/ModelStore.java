package dev.ladder.inference.store;

import dev.ladder.common.CacheLock;
import dev.ladder.common.StorePaths;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Local copies of Hugging Face model repos, under {@code <cache>/models/<owner>--<name>/<revision>/}.
 *
 * <p>{@link #pull} lists the repo through the hub API ({@code GET {endpoint}/api/models/{repo}/revision/{rev}?blobs=true}),
 * keeps what Ladder reads (config, generation config, tokenizer files, safetensors weights and their index; never
 * {@code .bin}/{@code .pth}/{@code .gguf} or sub-folders such as {@code original/}) and downloads each file from
 * {@code {endpoint}/{repo}/resolve/{commit}/{file}} into {@code <file>.part}: an interrupted download resumes with an
 * HTTP Range request, a finished one is checked against the size and SHA-256 (or git blob id) the hub listed and only
 * then renamed into place. {@code ladder-pull.json} is written last; a directory without it is an unfinished pull.
 * This class keeps the local layout (directories, manifests, what to pull); {@link HubClient} talks to the hub.
 *
 * <p>Environment: {@code HF_ENDPOINT} (default {@value #DEFAULT_ENDPOINT}; system property {@code ladder.hf.endpoint}
 * overrides it), {@code HF_TOKEN} or {@code HUGGING_FACE_HUB_TOKEN} (else the token file {@code huggingface-cli login}
 * writes, {@code $HF_HOME/token} or {@code ~/.cache/huggingface/token}) sent as {@code Authorization: Bearer} to the
 * hub only: redirects to another host (the hub sends LFS files to a CDN) are followed without it.
 */
public final class ModelStore {

    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    public static final String DEFAULT_REVISION = "main";

    /** Files Ladder reads besides {@code *.safetensors}. */
    public static final Set<String> METADATA_FILES = Set.of("config.json", "generation_config.json", "tokenizer.json",
            "tokenizer_config.json", "special_tokens_map.json", "model.safetensors.index.json");

    static final String INDEX = "model.safetensors.index.json";
    private static final String LOCK_FILE = ".ladder-pull.lock";
    private static final Pattern REPO_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}");
    private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path modelsDir;
    private final HubClient hub;

    /**
     * @param modelsDir where pulled models go (normally {@code <cache>/models})
     * @param endpoint  hub base URL, e.g. {@code https://huggingface.co}
     * @param token     bearer token for the hub, or null
     */
    public ModelStore(Path modelsDir, String endpoint, String token) {
        this(modelsDir, new HubClient(endpoint, token));
    }

    private ModelStore(Path modelsDir, HubClient hub) {
        this.modelsDir = modelsDir.toAbsolutePath();
        this.hub = hub;
    }

    /** The store under {@link StorePaths#modelsDir()}, with endpoint and token from the environment. */
    public static ModelStore fromEnvironment() {
        return new ModelStore(StorePaths.modelsDir(), environmentEndpoint(), environmentToken());
    }

    /**
     * How often a download that broke off (connection reset, timeout, server error) is resumed within one pull before
     * the pull fails, and how long to wait before each retry (default 3 retries, 2 s apart).
     */
    public ModelStore withRetries(int count, long delayMillis) {
        if (count < 0 || delayMillis < 0) throw new IllegalArgumentException("retries and delay must be >= 0");
        return new ModelStore(modelsDir, hub.withRetries(count, delayMillis));
    }

    public Path modelsDir() {
        return modelsDir;
    }

    public String endpoint() {
        return hub.endpoint();
    }

    static String environmentEndpoint() {
        String prop = System.getProperty("ladder.hf.endpoint");
        if (prop != null && !prop.isBlank()) return prop;
        String env = System.getenv("HF_ENDPOINT");
        return env != null && !env.isBlank() ? env : DEFAULT_ENDPOINT;
    }

    static String environmentToken() {
        for (String name : List.of("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")) {
            String v = System.getenv(name);
            if (v != null && !v.isBlank()) return v.strip();
        }
        String tokenPath = System.getenv("HF_TOKEN_PATH");
        String hfHome = System.getenv("HF_HOME");
        Path file = tokenPath != null && !tokenPath.isBlank() ? Path.of(tokenPath)
                : hfHome != null && !hfHome.isBlank() ? Path.of(hfHome, "token")
                : Path.of(System.getProperty("user.home"), ".cache", "huggingface", "token");
        try {
            if (Files.isRegularFile(file)) {
                String v = Files.readString(file).strip();
                if (!v.isEmpty()) return v;
            }
        } catch (IOException | RuntimeException ignored) {
            // no usable token file: go without
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------------- lookup

    /** {@code <models>/<owner>--<name>/<revision>} (a {@code /} in the revision becomes {@code --}). */
    public Path directoryFor(String repoId, String revision) {
        checkRepoId(repoId);
        String rev = revision == null ? DEFAULT_REVISION : revision;
        checkRevision(rev);
        return modelsDir.resolve(repoId.replace("/", "--")).resolve(rev.replace("/", "--"));
    }

    /** The manifest of a completed pull, if the repo was pulled at that revision. */
    public Optional<PullManifest> manifest(String repoId, String revision) {
        return PullManifest.read(directoryFor(repoId, revision));
    }

    /**
     * The model directory a spec names: an existing directory (it must hold {@code config.json}) is itself; a repo id
     * {@code owner/name} or {@code owner/name@revision} is the directory of its completed pull.
     *
     * @throws StoreException for a directory without config.json, a path that does not exist, a repo that is not
     *                        pulled
     */
    public Path resolve(String modelSpec) {
        if (modelSpec == null || modelSpec.isBlank()) throw new StoreException("no model given");
        Path path = null;
        try {
            path = Path.of(modelSpec);
        } catch (InvalidPathException ignored) {
            // not a path: maybe a repo id
        }
        if (path != null && Files.isDirectory(path)) {
            if (!Files.isRegularFile(path.resolve("config.json"))) {
                throw new StoreException("not a model directory: " + modelSpec + " (no config.json)");
            }
            return path.toAbsolutePath().normalize();
        }
        int at = modelSpec.indexOf('@');
        String repo = at < 0 ? modelSpec : modelSpec.substring(0, at);
        String rev = at < 0 ? DEFAULT_REVISION : modelSpec.substring(at + 1);
        if (REPO_ID.matcher(repo).matches() && REVISION.matcher(rev).matches() && !rev.contains("..")) {
            Path dir = directoryFor(repo, rev);
            if (PullManifest.read(dir).isPresent() && Files.isRegularFile(dir.resolve("config.json"))) return dir;
            String cmd = "ladder model pull " + repo + (at < 0 ? "" : " --revision " + rev);
            List<String> others = pulledRevisions(repo);
            throw new StoreException("model '" + modelSpec + "' is not pulled: run '" + cmd + "'"
                    + (others.isEmpty() ? "" : " (pulled revisions: " + String.join(", ", others) + ")"));
        }
        if (path != null && Files.exists(path)) throw new StoreException("not a model directory: " + modelSpec + " is a file");
        throw new StoreException("no such model directory: " + modelSpec + " (nor a hub repo id owner/name[@revision])");
    }

    private List<String> pulledRevisions(String repoId) {
        Path repoDir = modelsDir.resolve(repoId.replace("/", "--"));
        if (!Files.isDirectory(repoDir)) return List.of();
        List<String> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(repoDir)) {
            dirs.forEach(d -> PullManifest.read(d).ifPresent(m -> out.add(m.revision())));
        } catch (IOException ignored) {
            // nothing to add
        }
        out.sort(null);
        return out;
    }

    private static void checkRepoId(String repoId) {
        if (repoId == null || !REPO_ID.matcher(repoId).matches() || repoId.contains("..")) {
            throw new StoreException("not a hub repo id: '" + repoId + "' (expected owner/name, e.g. meta-llama/Llama-3.2-1B)");
        }
    }

    private static void checkRevision(String rev) {
        if (!REVISION.matcher(rev).matches() || rev.contains("..")) {
            throw new StoreException("not a revision: '" + rev + "' (a branch, tag or commit)");
        }
    }

    /** {@code --onnx auto}: the repo's default ONNX export when it has no safetensors weights, else none. */
    public static final String ONNX_AUTO = "auto";
    /** {@code --onnx none}: never an ONNX export. */
    public static final String ONNX_NONE = "none";
    /** Variants an automatic choice prefers, in order: full precision first (the djl engine's numbers), then int8. */
    static final List<String> ONNX_PREFERENCE = List.of("fp32", "quantized", "int8", "uint8", "fp16");

    /**
     * A decoder export in the layout public hubs publish (Optimum, transformers.js): {@code [onnx/]model[_VARIANT].onnx}
     * or {@code [onnx/]decoder_model_merged[_VARIANT].onnx}; no suffix is fp32.
     */
    private static final Pattern ONNX_DECODER = Pattern.compile("(onnx/)?(model|decoder_model_merged)(?:_([A-Za-z0-9]+))?\\.onnx");
    /** Its external weights beside it: {@code <file>_data}, {@code <file>_data_N} or {@code <file>.data}. */
    private static final Pattern ONNX_DATA = Pattern.compile("(onnx/)?(model|decoder_model_merged)(?:_[A-Za-z0-9]+)?\\.onnx(_data(_[0-9]+)?|\\.data)");

    /** One ONNX decoder export of a repo: its variant name, the decoder file and every file it needs from the repo. */
    public record OnnxExport(String variant, String file, List<HubFile> files) {}

    /**
     * The ONNX decoder exports among a repo's files, by variant ({@code fp32}, {@code quantized}, {@code int8},
     * {@code fp16}, {@code q4}, ...), in the preferred order. Where a variant exists twice, {@code onnx/model*} wins over
     * a top-level file and {@code model*} over {@code decoder_model_merged*}.
     */
    public static Map<String, OnnxExport> onnxExports(List<HubFile> files) {
        Map<String, OnnxExport> byVariant = new TreeMap<>();
        Map<String, Integer> rank = new TreeMap<>();
        for (HubFile f : files) {
            Matcher m = ONNX_DECODER.matcher(f.name());
            if (!m.matches()) continue;
            String variant = m.group(3) == null ? "fp32" : m.group(3).toLowerCase(Locale.ROOT);
            int r = (m.group(1) != null ? 0 : 1) + (m.group(2).equals("model") ? 0 : 2);
            if (rank.containsKey(variant) && rank.get(variant) <= r) continue;
            List<HubFile> needed = new ArrayList<>(List.of(f));
            for (HubFile d : files) {
                if (ONNX_DATA.matcher(d.name()).matches() && (d.name().startsWith(f.name() + "_data")
                        || d.name().equals(f.name() + ".data"))) {
                    needed.add(d);
                }
            }
            needed.sort(Comparator.comparing(HubFile::name));
            byVariant.put(variant, new OnnxExport(variant, f.name(), needed));
            rank.put(variant, r);
        }
        Map<String, OnnxExport> ordered = new LinkedHashMap<>();
        for (String v : ONNX_PREFERENCE) if (byVariant.containsKey(v)) ordered.put(v, byVariant.get(v));
        byVariant.forEach(ordered::putIfAbsent);
        return ordered;
    }

    /** Whether a file name is one an ONNX pull writes (a decoder export or its external weights). */
    static boolean onnxFile(String name) {
        return ONNX_DECODER.matcher(name).matches() || ONNX_DATA.matcher(name).matches();
    }

    /** Whether Ladder downloads a repo file of this name (top level, metadata or safetensors). */
    public static boolean wanted(String rfilename) {
        if (rfilename.contains("/") || rfilename.contains("\\")) return false;
        return METADATA_FILES.contains(rfilename) || rfilename.endsWith(".safetensors");
    }

    // ---------------------------------------------------------------------------------------------------- listing

    /** A repo listing: the commit the revision resolved to (or null) and every file. */
    public record Listing(String commit, List<HubFile> files) {}

    /** Lists a repo at a revision through the hub API. */
    public Listing list(String repoId, String revision) throws IOException {
        checkRepoId(repoId);
        String rev = revision == null ? DEFAULT_REVISION : revision;
        checkRevision(rev);
        return hub.list(repoId, rev);
    }

    // ---------------------------------------------------------------------------------------------------- pull

    /**
     * Downloads what Ladder needs of a hub repo (see the class comment) and returns its directory. Files already there
     * and intact are kept; {@code .part} files of an earlier, interrupted pull are resumed.
     *
     * @param revision branch, tag or commit; null means {@value #DEFAULT_REVISION}
     * @throws StoreException no such repo or revision, gated or private repo, not a safetensors model (another pull of
     *                        the same directory, by any process sharing the store, is waited for)
     * @throws IOException    the network or disk failed, or a file did not match its checksum; the final files are
     *                        never half-written, a later pull resumes
     */
    public Path pull(String repoId, String revision, ProgressListener listener) throws IOException {
        return pull(repoId, revision, ONNX_AUTO, listener);
    }

    /**
     * As {@link #pull(String, String, ProgressListener)}, with the ONNX export to take: {@value #ONNX_AUTO} (the
     * preferred variant when the repo has no safetensors weights, else none), {@value #ONNX_NONE}, or a variant name
     * ({@code fp32}, {@code quantized}, {@code int8}, {@code fp16}, ... as {@link #onnxExports} names them), pulled
     * beside the safetensors weights when the repo has both. The manifest records which.
     */
    public Path pull(String repoId, String revision, String onnx, ProgressListener listener) throws IOException {
        String rev = revision == null ? DEFAULT_REVISION : revision;
        Path dir = directoryFor(repoId, rev);
        ProgressListener l = listener == null ? ProgressListener.NONE : listener;
        Listing listing = list(repoId, rev);
        String fileRev = listing.commit() != null ? listing.commit() : rev;
        Map<String, HubFile> byName = new LinkedHashMap<>();
        for (HubFile f : listing.files()) byName.put(f.name(), f);
        if (!byName.containsKey("config.json")) {
            throw new StoreException(repoId + "@" + rev + " has no config.json: not a transformers model repo");
        }
        List<String> weights = byName.keySet().stream().filter(n -> wanted(n) && n.endsWith(".safetensors")).toList();
        Map<String, OnnxExport> exports = onnxExports(listing.files());
        OnnxExport export = chooseOnnx(onnx, weights.isEmpty(), exports, repoId, rev);
        if (weights.isEmpty() && export == null) {
            TreeSet<String> other = new TreeSet<>();
            for (String n : byName.keySet()) {
                if (n.matches("(?i).*\\.(bin|pth|pt|gguf|ckpt|h5|msgpack|onnx)")) other.add(n);
            }
            throw new StoreException(repoId + "@" + rev + " has no safetensors weights at the top level"
                    + (other.isEmpty() ? "" : " (only " + String.join(", ", other.stream().limit(3).toList())
                    + (other.size() > 3 ? ", ..." : "") + ")") + ": Ladder reads safetensors"
                    + (exports.isEmpty() ? " or an ONNX decoder export ([onnx/]model[_VARIANT].onnx)"
                    : ", or the ONNX export --onnx " + String.join("|", exports.keySet()) + " names"));
        }

        Files.createDirectories(dir);
        // processes sharing the store (the shards of an array) pull one at a time: a waiter then finds the files there
        try (CacheLock lock = CacheLock.acquire(dir.resolve(LOCK_FILE), () -> l.waiting(repoId, rev))) {
            Optional<PullManifest> old = PullManifest.read(dir);
            Map<String, PullManifest.Entry> done = new LinkedHashMap<>();
            Set<String> fetchedEarly = new LinkedHashSet<>();

            // small files first; the index says which shards belong to the model (a repo may also hold e.g. consolidated.safetensors)
            List<String> order = new ArrayList<>();
            for (String n : byName.keySet()) if (wanted(n) && !n.endsWith(".safetensors")) order.add(n);
            order.sort(null);
            List<String> shards = new ArrayList<>(weights);
            if (weights.isEmpty()) {
                shards = List.of();
            } else if (byName.containsKey(INDEX)) {
                HubFile index = byName.get(INDEX);
                PullManifest.Entry e = present(dir, index, old, listing.commit());
                if (e == null) {
                    invalidate(dir);
                    e = hub.fetchWithRetries(repoId, fileRev, index, dir, ProgressListener.NONE);
                    fetchedEarly.add(INDEX);
                }
                done.put(INDEX, e);
                shards = shardsOf(dir.resolve(INDEX), byName, repoId, rev);
            } else if (byName.containsKey("model.safetensors")) {
                shards = List.of("model.safetensors");
            }
            shards = new ArrayList<>(shards);
            shards.sort(null);
            order.addAll(shards);
            if (export != null) export.files().forEach(f -> order.add(f.name()));

            List<HubFile> plan = order.stream().map(byName::get).toList();
            long total = plan.stream().allMatch(f -> f.size() >= 0) ? plan.stream().mapToLong(HubFile::size).sum() : -1;
            l.started(repoId, rev, plan, total);

            for (HubFile f : plan) {
                PullManifest.Entry e = done.get(f.name());
                if (e != null) {
                    l.fileFinished(f.name(), e.size(), !fetchedEarly.contains(f.name()));
                    continue;
                }
                e = present(dir, f, old, listing.commit());
                if (e != null) {
                    done.put(f.name(), e);
                    l.fileFinished(f.name(), e.size(), true);
                    continue;
                }
                invalidate(dir);
                e = hub.fetchWithRetries(repoId, fileRev, f, dir, l);
                done.put(f.name(), e);
                l.fileFinished(f.name(), e.size(), false);
            }

            // files an earlier pull of this directory left that the repo no longer has
            if (old.isPresent()) {
                for (PullManifest.Entry stale : old.get().files()) {
                    if (!done.containsKey(stale.name()) && (wanted(stale.name()) || onnxFile(stale.name()))) {
                        invalidate(dir);
                        Files.deleteIfExists(dir.resolve(stale.name()));
                    }
                }
            }
            List<PullManifest.Entry> entries = plan.stream().map(f -> done.get(f.name())).toList();
            PullManifest manifest = new PullManifest(repoId, rev, listing.commit(), hub.endpoint(), Instant.now(), entries,
                    export == null ? null : export.variant(), export == null ? null : export.file());
            boolean same = old.isPresent() && old.get().files().equals(entries) && Objects.equals(old.get().commit(), listing.commit())
                    && Objects.equals(old.get().onnxFile(), manifest.onnxFile())
                    && Files.isRegularFile(dir.resolve(PullManifest.FILE_NAME));
            if (!same) manifest.write(dir);
            return dir;
        }
    }

    /** The export a pull takes (null for none): see {@link #pull(String, String, String, ProgressListener)}. */
    static OnnxExport chooseOnnx(String onnx, boolean noWeights, Map<String, OnnxExport> exports, String repoId, String rev) {
        String choice = onnx == null ? ONNX_AUTO : onnx.strip().toLowerCase(Locale.ROOT);
        if (choice.equals(ONNX_NONE)) return null;
        if (choice.equals(ONNX_AUTO)) return noWeights && !exports.isEmpty() ? exports.values().iterator().next() : null;
        OnnxExport named = exports.get(choice);
        if (named == null) {
            throw new StoreException(repoId + "@" + rev + " has no ONNX export '" + onnx + "'" + (exports.isEmpty()
                    ? " (no [onnx/]model[_VARIANT].onnx or decoder_model_merged[_VARIANT].onnx at all)"
                    : "; it has " + String.join(", ", exports.keySet())));
        }
        return named;
    }

    /** Removes the manifest before a file changes: from here on the directory is an unfinished pull. */
    private static void invalidate(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(PullManifest.FILE_NAME));
    }

    private static List<String> shardsOf(Path index, Map<String, HubFile> byName, String repoId, String rev) throws IOException {
        JsonNode map;
        try {
            map = JSON.readTree(index.toFile()).path("weight_map");
        } catch (IOException e) {
            throw new IOException(repoId + "@" + rev + ": cannot read " + INDEX + ": " + e.getMessage(), e);
        }
        if (!map.isObject() || map.isEmpty()) throw new StoreException(repoId + "@" + rev + ": " + INDEX + " has no weight_map");
        Set<String> shards = new TreeSet<>();
        map.fields().forEachRemaining(e -> shards.add(e.getValue().asText()));
        for (String s : shards) {
            if (!byName.containsKey(s) || !wanted(s) || !s.endsWith(".safetensors")) {
                throw new StoreException(repoId + "@" + rev + ": " + INDEX + " names shard '" + s + "' that the repo does not have");
            }
        }
        return new ArrayList<>(shards);
    }

    /**
     * The entry for a file already in place and intact, or null when it must be downloaded. Trusts the previous
     * manifest when it lists the same content (same SHA-256, or same commit when the hub gave no checksum) and the
     * size on disk agrees; otherwise hashes the file.
     */
    private static PullManifest.Entry present(Path dir, HubFile f, Optional<PullManifest> old, String commit) throws IOException {
        Path target = dir.resolve(f.name());
        if (!Files.isRegularFile(target)) return null;
        long size = Files.size(target);
        if (f.size() >= 0 && size != f.size()) return null;
        Optional<PullManifest.Entry> prev = old.flatMap(m -> m.entry(f.name()));
        if (prev.isPresent() && prev.get().size() == size && prev.get().sha256() != null) {
            if (f.sha256() != null ? f.sha256().equals(prev.get().sha256())
                    : commit != null && commit.equals(old.get().commit())) {
                return prev.get();
            }
        }
        if (f.sha256() == null && f.blobId() == null) return null;
        FileDigests d = FileDigests.of(f);
        try (InputStream in = Files.newInputStream(target)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) d.update(buf, 0, n);
        }
        if (f.sha256() != null && !f.sha256().equals(d.sha256())) return null;
        if (f.blobId() != null && !f.blobId().equals(d.gitBlob())) return null;
        return new PullManifest.Entry(f.name(), size, d.sha256());
    }
}
