package dev.ladder.inference.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
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
    private static final Pattern HEX40 = Pattern.compile("[0-9a-f]{40}");
    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");
    private static final int MAX_REDIRECTS = 10;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path modelsDir;
    private final String endpoint;
    private final String token;
    private final int retries;
    private final long retryDelayMillis;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;

    /**
     * @param modelsDir where pulled models go (normally {@code <cache>/models})
     * @param endpoint  hub base URL, e.g. {@code https://huggingface.co}
     * @param token     bearer token for the hub, or null
     */
    public ModelStore(Path modelsDir, String endpoint, String token) {
        this(modelsDir, endpoint, token, 3, 2000, 30_000, 120_000);
    }

    private ModelStore(Path modelsDir, String endpoint, String token, int retries, long retryDelayMillis,
                       int connectTimeoutMillis, int readTimeoutMillis) {
        this.modelsDir = modelsDir.toAbsolutePath();
        String e = Objects.requireNonNull(endpoint, "endpoint").strip();
        while (e.endsWith("/")) e = e.substring(0, e.length() - 1);
        if (!e.startsWith("http://") && !e.startsWith("https://")) {
            throw new StoreException("hub endpoint must be an http(s) URL, got '" + endpoint + "' (HF_ENDPOINT)");
        }
        this.endpoint = e;
        this.token = token == null || token.isBlank() ? null : token.strip();
        this.retries = retries;
        this.retryDelayMillis = retryDelayMillis;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.readTimeoutMillis = readTimeoutMillis;
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
        return new ModelStore(modelsDir, endpoint, token, count, delayMillis, connectTimeoutMillis, readTimeoutMillis);
    }

    public Path modelsDir() {
        return modelsDir;
    }

    public String endpoint() {
        return endpoint;
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
        URI uri = URI.create(endpoint + "/api/models/" + repoId + "/revision/" + encodeSegment(rev) + "?blobs=true");
        HttpURLConnection c = open(uri, -1, repoId, rev, null);
        JsonNode root;
        try (InputStream in = c.getInputStream()) {
            root = JSON.readTree(in);
        } catch (IOException e) {
            throw new IOException("could not read the hub's file list for " + repoId + "@" + rev + ": " + e.getMessage(), e);
        } finally {
            c.disconnect();
        }
        String commit = root.hasNonNull("sha") ? root.get("sha").asText() : null;
        if (commit != null && !HEX40.matcher(commit).matches()) commit = null;
        List<HubFile> files = new ArrayList<>();
        JsonNode siblings = root.path("siblings");
        if (!siblings.isArray()) throw new IOException("the hub's answer for " + repoId + "@" + rev + " has no file list (siblings)");
        for (JsonNode s : siblings) {
            String name = s.path("rfilename").asText(null);
            if (name == null || name.isEmpty()) continue;
            JsonNode lfs = s.path("lfs");
            long size = lfs.hasNonNull("size") ? lfs.get("size").asLong(-1) : s.hasNonNull("size") ? s.get("size").asLong(-1) : -1;
            String sha = lfs.hasNonNull("sha256") ? lfs.get("sha256").asText().toLowerCase(Locale.ROOT) : null;
            if (sha != null && !HEX64.matcher(sha).matches()) sha = null;
            String blob = !lfs.isMissingNode() && !lfs.isNull() ? null
                    : s.hasNonNull("blobId") ? s.get("blobId").asText().toLowerCase(Locale.ROOT) : null;
            if (blob != null && (!HEX40.matcher(blob).matches() || size < 0)) blob = null;
            files.add(new HubFile(name, size, sha, blob));
        }
        return new Listing(commit, files);
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
                    e = fetchWithRetries(repoId, fileRev, index, dir, ProgressListener.NONE);
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
                e = fetchWithRetries(repoId, fileRev, f, dir, l);
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
            PullManifest manifest = new PullManifest(repoId, rev, listing.commit(), endpoint, Instant.now(), entries,
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
        Digests d = Digests.of(f);
        try (InputStream in = Files.newInputStream(target)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) d.update(buf, 0, n);
        }
        if (f.sha256() != null && !f.sha256().equals(d.sha256())) return null;
        if (f.blobId() != null && !f.blobId().equals(d.gitBlob())) return null;
        return new PullManifest.Entry(f.name(), size, d.sha256());
    }

    private PullManifest.Entry fetchWithRetries(String repoId, String fileRev, HubFile f, Path dir, ProgressListener l)
            throws IOException {
        boolean restartedAfterMismatch = false;
        for (int attempt = 0; ; attempt++) {
            try {
                return fetch(repoId, fileRev, f, dir, l);
            } catch (ChecksumMismatch e) {
                // a part file from an older revision of the file: start over once
                if (e.resumed && !restartedAfterMismatch) {
                    restartedAfterMismatch = true;
                    continue;
                }
                throw e;
            } catch (StoreException e) {
                throw e;
            } catch (IOException e) {
                if (attempt >= retries) throw e;
                try {
                    Thread.sleep(retryDelayMillis * (attempt + 1));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("pull interrupted");
                }
            }
        }
    }

    /** A downloaded file does not match what the hub listed; its part file has been removed. */
    static final class ChecksumMismatch extends IOException {
        private static final long serialVersionUID = 1L;
        final transient boolean resumed;

        ChecksumMismatch(String message, boolean resumed) {
            super(message);
            this.resumed = resumed;
        }
    }

    /** Downloads one file into {@code <name>.part}, resuming what is there, checks it and renames it into place. */
    private PullManifest.Entry fetch(String repoId, String fileRev, HubFile f, Path dir, ProgressListener l) throws IOException {
        Path target = dir.resolve(f.name());
        Path part = dir.resolve(f.name() + ".part");
        Files.createDirectories(target.getParent()); // an ONNX export keeps the repo's onnx/ folder
        long have = Files.isRegularFile(part) ? Files.size(part) : 0;
        if (f.size() >= 0 && have > f.size()) {
            Files.delete(part);
            have = 0;
        }
        if (f.size() >= 0 && have == f.size() && have > 0) {
            // an earlier pull got every byte but stopped before the rename
            l.fileStarted(f.name(), f.size(), have);
            return finish(f, part, target, digestOf(f, part, have), have, true);
        }
        URI uri = URI.create(endpoint + "/" + repoId + "/resolve/" + encodeSegment(fileRev) + "/" + encodePath(f.name()));
        HttpURLConnection c = open(uri, have, repoId, fileRev, f.name());
        try {
            int status = c.getResponseCode();
            long start = 0;
            long length = c.getContentLengthLong();
            long expectedTotal = f.size();
            if (status == 206) {
                Matcher m = CONTENT_RANGE.matcher(Objects.toString(c.getHeaderField("Content-Range"), ""));
                if (!m.matches()) throw new IOException("bad Content-Range for " + f.name() + ": " + c.getHeaderField("Content-Range"));
                start = Long.parseLong(m.group(1));
                if (start > have) throw new IOException("server resumed " + f.name() + " at byte " + start + ", not " + have);
                if (!m.group(3).equals("*")) {
                    long total = Long.parseLong(m.group(3));
                    if (expectedTotal >= 0 && total != expectedTotal) {
                        Files.deleteIfExists(part);
                        throw new IOException(f.name() + " is " + total + " bytes on the server, the listing said " + expectedTotal);
                    }
                    expectedTotal = total;
                }
            } else if (status == 416) {
                // what we have is not a prefix of the file (or is all of it without a known size): start over
                c.disconnect();
                Files.deleteIfExists(part);
                return fetch(repoId, fileRev, f, dir, l);
            } else if (status != 200) {
                throw new IOException("hub answered HTTP " + status + " for " + uri);
            } else if (length >= 0) {
                expectedTotal = expectedTotal >= 0 ? expectedTotal : length;
            }
            boolean resumed = start > 0;
            if (start < have) {
                try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
                    ch.truncate(start);
                }
            }
            have = start;
            Digests d = resumed ? digestOf(f, part, have) : Digests.of(f);
            l.fileStarted(f.name(), expectedTotal, have);
            long got = 0;
            try (InputStream in = c.getInputStream();
                 OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                         have > 0 ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
                byte[] buf = new byte[1 << 16];
                for (int n; (n = in.read(buf)) > 0; ) {
                    out.write(buf, 0, n);
                    d.update(buf, 0, n);
                    got += n;
                    l.transferred(f.name(), n);
                }
            }
            if (length >= 0 && got < length) {
                throw new IOException("connection closed after " + (have + got) + " of " + (have + length) + " bytes of " + f.name());
            }
            try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            return finish(f, part, target, d, have + got, resumed);
        } finally {
            c.disconnect();
        }
    }

    private static Digests digestOf(HubFile f, Path part, long have) throws IOException {
        Digests d = Digests.of(f);
        try (InputStream in = Files.newInputStream(part)) {
            byte[] buf = new byte[1 << 16];
            long left = have;
            for (int n; left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0; left -= n) d.update(buf, 0, n);
        }
        return d;
    }

    private static PullManifest.Entry finish(HubFile f, Path part, Path target, Digests d, long size, boolean resumed)
            throws IOException {
        String problem = null;
        if (f.size() >= 0 && size != f.size()) {
            problem = "size mismatch for " + f.name() + ": expected " + f.size() + " bytes, got " + size;
        } else if (f.sha256() != null && !f.sha256().equals(d.sha256())) {
            problem = "sha256 mismatch for " + f.name() + ": expected " + f.sha256() + ", got " + d.sha256();
        } else if (f.blobId() != null && !f.blobId().equals(d.gitBlob())) {
            problem = "git blob id mismatch for " + f.name() + ": expected " + f.blobId() + ", got " + d.gitBlob();
        }
        if (problem != null) {
            Files.deleteIfExists(part);
            throw new ChecksumMismatch(problem + " (download removed; run the pull again)", resumed);
        }
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return new PullManifest.Entry(f.name(), size, d.sha256());
    }

    // ---------------------------------------------------------------------------------------------------- HTTP

    /**
     * Opens a GET, following redirects by hand so that the token goes to the hub's host only. Returns a connection
     * whose status is 200 or 206 (or 416 for a range request); turns the hub's refusals into {@link StoreException}s.
     *
     * @param rangeFrom bytes already there (a Range request when > 0), or -1 for an API call
     * @param file      the file being fetched, or null for the listing
     */
    private HttpURLConnection open(URI uri, long rangeFrom, String repoId, String rev, String file) throws IOException {
        URI origin = URI.create(endpoint);
        URI current = uri;
        for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
            HttpURLConnection c = (HttpURLConnection) current.toURL().openConnection();
            c.setInstanceFollowRedirects(false);
            c.setConnectTimeout(connectTimeoutMillis);
            c.setReadTimeout(readTimeoutMillis);
            c.setRequestProperty("User-Agent", "ladder (java " + System.getProperty("java.version") + ")");
            c.setRequestProperty("Accept-Encoding", "identity");
            if (token != null && sameOrigin(origin, current)) c.setRequestProperty("Authorization", "Bearer " + token);
            if (rangeFrom > 0) c.setRequestProperty("Range", "bytes=" + rangeFrom + "-");
            int status = c.getResponseCode();
            if (status == 301 || status == 302 || status == 303 || status == 307 || status == 308) {
                String location = c.getHeaderField("Location");
                c.disconnect();
                if (location == null) throw new IOException("redirect without Location from " + current);
                try {
                    current = current.resolve(location.replace(" ", "%20").replace("|", "%7C"));
                } catch (IllegalArgumentException e) {
                    throw new IOException("bad redirect from " + current + " to " + location, e);
                }
                if (!"http".equals(current.getScheme()) && !"https".equals(current.getScheme())) {
                    throw new IOException("redirect to a non-http URL: " + current);
                }
                continue;
            }
            if (status == 200 || status == 206 || (status == 416 && rangeFrom > 0)) return c;
            String code = c.getHeaderField("X-Error-Code");
            String what = file == null ? repoId + "@" + rev : file + " of " + repoId + "@" + rev;
            c.disconnect();
            if ("RepoNotFound".equals(code) || "RevisionNotFound".equals(code) || status == 404 && file == null) {
                throw new StoreException("no such model or revision: " + repoId + "@" + rev + " on " + endpoint
                        + (token == null && "RepoNotFound".equals(code) ? " (if it is private, set HF_TOKEN)" : ""));
            }
            if ("EntryNotFound".equals(code) || status == 404) {
                throw new StoreException("the hub has no file " + what + " (404) although it listed it");
            }
            if (status == 401 || status == 403 || "GatedRepo".equals(code)) {
                throw new StoreException(repoId + " is gated or needs a token: accept the license on the hub ("
                        + endpoint + "/" + repoId + ") and set HF_TOKEN"
                        + (token != null ? " (a token was sent; its account has no access yet)" : ""));
            }
            if (status == 429) throw new IOException("the hub is rate-limiting requests (HTTP 429): try again later");
            throw new IOException("hub answered HTTP " + status + " for " + current);
        }
        throw new IOException("too many redirects from " + uri);
    }

    private static boolean sameOrigin(URI a, URI b) {
        return Objects.equals(a.getScheme(), b.getScheme())
                && a.getHost() != null && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) return u.getPort();
        return "https".equals(u.getScheme()) ? 443 : 80;
    }

    private static String encodeSegment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String encodePath(String path) {
        StringBuilder sb = new StringBuilder();
        for (String seg : path.split("/", -1)) {
            if (!sb.isEmpty()) sb.append('/');
            sb.append(encodeSegment(seg));
        }
        return sb.toString();
    }

    /** SHA-256 of the content, and the git blob id when the listing gave one to check. */
    private static final class Digests {
        private final MessageDigest sha256;
        private final MessageDigest gitBlob;

        private Digests(MessageDigest sha256, MessageDigest gitBlob) {
            this.sha256 = sha256;
            this.gitBlob = gitBlob;
        }

        static Digests of(HubFile f) {
            try {
                MessageDigest git = null;
                if (f.blobId() != null) {
                    git = MessageDigest.getInstance("SHA-1");
                    git.update(("blob " + f.size() + "\0").getBytes(StandardCharsets.US_ASCII));
                }
                return new Digests(MessageDigest.getInstance("SHA-256"), git);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        void update(byte[] b, int off, int len) {
            sha256.update(b, off, len);
            if (gitBlob != null) gitBlob.update(b, off, len);
        }

        private String sha256Hex;
        private String gitBlobHex;

        String sha256() {
            if (sha256Hex == null) sha256Hex = HexFormat.of().formatHex(sha256.digest());
            return sha256Hex;
        }

        String gitBlob() {
            if (gitBlob != null && gitBlobHex == null) gitBlobHex = HexFormat.of().formatHex(gitBlob.digest());
            return gitBlobHex;
        }
    }
}
