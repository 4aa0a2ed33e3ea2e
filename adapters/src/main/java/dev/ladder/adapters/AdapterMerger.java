package dev.ladder.adapters;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.common.FileTrees;
import dev.ladder.inference.llm.WeightSource;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.HalfFloats;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.SafetensorsFile;
import dev.ladder.inference.model.SafetensorsWriter;
import dev.ladder.inference.model.TensorInfo;
import dev.ladder.inference.model.Weights;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Writes a merged model directory: every base tensor (LoRA-adapted ones as {@code W + scale · B · A}, replaced ones
 * from the adapter), {@code config.json} (with {@code torch_dtype} set to the output dtype), the generation config and
 * tokenizer files, and {@code ladder-merge.json} recording what was merged. The directory is written next to
 * {@code out} and moved into place, so an error leaves {@code out} as it was.
 */
public final class AdapterMerger {

    public static final String RECORD_FILE = "ladder-merge.json";
    /** Target shard size when the number of shards is not given. */
    public static final long SHARD_BYTES = 2_000_000_000L;
    /** Float32 values per row block read while merging or converting (64 MiB). */
    static long blockFloats = 1L << 24;

    /** Non-weight files copied from the base directory when present. */
    static final List<String> COPIED = List.of(ModelConfig.GENERATION_CONFIG_FILE, "tokenizer.json",
            "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model", "vocab.json", "merges.txt",
            "added_tokens.json", "chat_template.jinja");

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param dtype         output dtype (F32, F16, BF16), or null for the base's stored dtype
     * @param shards        number of safetensors files, or 0 for one per ~2 GB
     * @param force         write into a non-empty {@code out} (its model files are replaced)
     * @param ladderVersion recorded in {@code ladder-merge.json}
     */
    public record Options(DType dtype, int shards, MergeBase mergeBase, boolean force, String ladderVersion) {
        public static final Options DEFAULT = new Options(null, 0, MergeBase.FULL, false, "unknown");

        public Options {
            Objects.requireNonNull(mergeBase, "mergeBase");
            if (dtype != null && dtype != DType.F32 && dtype != DType.F16 && dtype != DType.BF16) {
                throw new IllegalArgumentException("output dtype must be F32, F16 or BF16, not " + dtype);
            }
            if (shards < 0) throw new IllegalArgumentException("shards must be >= 0");
        }
    }

    /** What was written. */
    public record Result(Path out, DType dtype, int tensors, int adapted, int replaced, List<Path> weightFiles,
                         long bytes) {}

    private AdapterMerger() {}

    /**
     * Merges the adapter into the base model and writes the result to {@code out}.
     *
     * @throws AdapterException for an adapter that does not fit the base, an unusable {@code out}, or a write error
     */
    public static Result merge(Path baseDir, Path adapterDir, Path out, Options options) {
        Path target = out.toAbsolutePath().normalize();
        Path baseAbs = baseDir.toAbsolutePath().normalize();
        Path adapterAbs = adapterDir.toAbsolutePath().normalize();
        if (target.equals(baseAbs) || target.equals(adapterAbs) || baseAbs.startsWith(target)
                || adapterAbs.startsWith(target)) {
            throw new AdapterException("--out " + out + " must not be (or contain) the base model or adapter directory");
        }
        if (Files.exists(target) && !Files.isDirectory(target)) throw new AdapterException("not a directory: " + out);
        if (Files.isDirectory(target) && !options.force() && !isEmpty(target)) {
            throw new AdapterException(out + " is not empty (use --force to replace the model files in it)");
        }
        ModelConfig config;
        try {
            config = ModelConfig.read(baseDir);
        } catch (ModelException e) {
            throw new AdapterException(e.getMessage(), e);
        }
        DType dtype = options.dtype() != null ? options.dtype() : outputDtype(config.storedDType());
        Path parent = target.getParent();
        Path tmp;
        try {
            Files.createDirectories(parent);
            tmp = Files.createDirectory(parent.resolve("." + target.getFileName() + ".tmp-" + Long.toHexString(System.nanoTime())));
        } catch (IOException e) {
            throw new AdapterException("cannot create a directory next to " + out + ": " + e.getMessage(), e);
        }
        try (PeftAdapter adapter = PeftAdapter.read(adapterDir); Weights base = Weights.open(baseDir)) {
            AdaptedWeightSource source = new AdaptedWeightSource(WeightSource.of(base), adapter, options.mergeBase());
            SafetensorsWriter w = new SafetensorsWriter().metadata("format", "pt");
            long total = 0;
            for (String name : base.names()) {
                TensorInfo info = base.info(name);
                DType outType = info.dtype().isFloat() ? dtype : info.dtype();
                long bytes = info.numel() * outType.byteSize();
                if (bytes > SafetensorsFile.MAX_MAP_BYTES) {
                    throw new AdapterException("tensor '" + name + "' would be " + bytes + " bytes as " + outType
                            + ", more than one safetensors buffer holds here (2 GiB); choose --dtype bf16 or f16");
                }
                total += bytes;
                w.add(name, new SafetensorsWriter.Tensor(outType, info.shape(),
                        () -> tensorBytes(base, source, info, outType)));
            }
            List<Path> files;
            int shards = options.shards() > 0 ? options.shards() : (int) Math.max(1, (total + SHARD_BYTES - 1) / SHARD_BYTES);
            if (shards == 1) {
                Path single = tmp.resolve(Weights.SINGLE_FILE);
                w.write(single);
                files = List.of(single);
            } else {
                files = w.writeSharded(tmp, shards);
            }
            writeConfig(baseDir, tmp, dtype);
            for (String f : COPIED) {
                Path src = baseDir.resolve(f);
                if (Files.isRegularFile(src)) Files.copy(src, tmp.resolve(f));
            }
            ObjectNode record = record(baseDir, base, adapter, source, options, dtype, base.names().size(), files);
            Files.writeString(tmp.resolve(RECORD_FILE), record.toPrettyString() + "\n");
            install(tmp, target);
            List<Path> finalFiles = files.stream().map(p -> target.resolve(p.getFileName())).toList();
            return new Result(target, dtype, base.names().size(), source.plan().targets().size(),
                    source.plan().replacements().size(), finalFiles, total);
        } catch (ModelException e) {
            throw new AdapterException(e.getMessage(), e);
        } catch (IOException | UncheckedIOException e) {
            throw new AdapterException("cannot write merged model to " + out + ": " + e.getMessage(), e);
        } finally {
            FileTrees.deleteQuietly(tmp);
        }
    }

    /** bf16/f16/f32 stay; anything else (f64) is written as f32. */
    private static DType outputDtype(DType stored) {
        return stored == DType.BF16 || stored == DType.F16 ? stored : DType.F32;
    }

    /** One tensor's bytes in the output dtype, produced one block of rows at a time. */
    private static ByteBuffer tensorBytes(Weights base, AdaptedWeightSource source, TensorInfo info, DType outType) {
        String name = info.name();
        if (!source.modified(name) && (info.dtype() == outType || !info.dtype().isFloat())) {
            return base.raw(name);
        }
        long numel = info.numel();
        ByteBuffer out = ByteBuffer.allocateDirect((int) (numel * outType.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
        long rows = info.rank() == 0 ? 1 : info.dim(0);
        long cols = rows == 0 ? 0 : numel / rows;
        long step = Math.max(1, blockFloats / Math.max(1, cols));
        if (source.mergeBase() == MergeBase.NF4 && cols % Nf4.BLOCK_SIZE != 0) {
            // keep blocks of rows aligned to NF4 blocks so each is quantised once
            long unit = Nf4.BLOCK_SIZE / gcd(cols, Nf4.BLOCK_SIZE);
            step = Math.max(unit, step / unit * unit);
        }
        for (long first = 0; first < rows; first += step) {
            long n = Math.min(step, rows - first);
            float[] f = info.rank() == 0 ? new float[] {source.float32(name).getFloat(0)} : source.rows(name, first, n);
            encode(f, out, (int) (first * cols), outType);
        }
        return out;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    private static void encode(float[] f, ByteBuffer out, int firstElem, DType type) {
        int chunk = 1 << 16;
        IntStream.range(0, (f.length + chunk - 1) / chunk).parallel().forEach(c -> {
            int from = c * chunk;
            int to = Math.min(f.length, from + chunk);
            switch (type) {
                case F32 -> {
                    for (int i = from; i < to; i++) out.putFloat((firstElem + i) << 2, f[i]);
                }
                case F16 -> {
                    for (int i = from; i < to; i++) out.putShort((firstElem + i) << 1, HalfFloats.floatToF16(f[i]));
                }
                case BF16 -> {
                    for (int i = from; i < to; i++) out.putShort((firstElem + i) << 1, HalfFloats.floatToBf16(f[i]));
                }
                default -> throw new IllegalStateException("cannot encode " + type);
            }
        });
    }

    private static void writeConfig(Path baseDir, Path tmp, DType dtype) throws IOException {
        JsonNode c = JSON.readTree(baseDir.resolve(ModelConfig.CONFIG_FILE).toFile());
        if (c instanceof ObjectNode o) {
            o.put("torch_dtype", dtype.torchName());
            if (o.has("dtype")) o.put("dtype", dtype.torchName());
        }
        Files.writeString(tmp.resolve(ModelConfig.CONFIG_FILE),
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(c) + "\n");
    }

    private static ObjectNode record(Path baseDir, Weights base, PeftAdapter adapter, AdaptedWeightSource source,
                                     Options options, DType dtype, int tensors, List<Path> files) throws IOException {
        PeftAdapter.Config c = adapter.config();
        ObjectNode r = JSON.createObjectNode();
        r.put("ladder_version", options.ladderVersion());
        ObjectNode b = r.putObject("base");
        b.put("dir", baseDir.toAbsolutePath().normalize().toString());
        ArrayNode bf = b.putArray("files");
        List<Path> baseFiles = new ArrayList<>(base.files());
        Path index = baseDir.resolve(Weights.INDEX_FILE);
        if (Files.isRegularFile(index)) baseFiles.add(0, index);
        for (Path p : baseFiles) {
            bf.addObject().put("name", p.getFileName().toString()).put("sha256", sha256(p));
        }
        ObjectNode a = r.putObject("adapter");
        a.put("dir", adapter.directory().toAbsolutePath().normalize().toString());
        a.put("base_model_name_or_path", c.baseModel());
        a.put("peft_type", c.peftType());
        a.put("task_type", c.taskType());
        ObjectNode af = a.putObject("sha256");
        af.put(PeftAdapter.CONFIG_FILE, sha256(adapter.directory().resolve(PeftAdapter.CONFIG_FILE)));
        af.put(PeftAdapter.WEIGHTS_FILE, sha256(adapter.directory().resolve(PeftAdapter.WEIGHTS_FILE)));
        r.put("merge_base", options.mergeBase().cliName());
        if (options.mergeBase() == MergeBase.NF4) {
            r.putObject("nf4").put("block_size", Nf4.BLOCK_SIZE).put("double_quant", false)
                    .put("applies_to", "2-D model.layers.N.*.weight tensors");
        }
        r.put("dtype", dtype.name());
        r.put("r", c.r());
        r.put("lora_alpha", c.alpha());
        r.put("use_rslora", c.useRslora());
        r.put("scale", c.scale(c.r(), c.alpha()));
        r.put("formula", c.useRslora() ? "W + alpha / sqrt(r) * B @ A" : "W + alpha / r * B @ A");
        if (!c.rankPattern().isEmpty()) {
            ObjectNode p = r.putObject("rank_pattern");
            c.rankPattern().forEach(p::put);
        }
        if (!c.alphaPattern().isEmpty()) {
            ObjectNode p = r.putObject("alpha_pattern");
            c.alphaPattern().forEach(p::put);
        }
        ArrayNode mods = r.putArray("modules");
        for (PeftAdapter.Target t : source.plan().targets().values()) {
            mods.addObject().put("tensor", t.baseTensor()).put("r", t.rank()).put("alpha", t.lora().alpha())
                    .put("scale", t.lora().scale());
        }
        ArrayNode rep = r.putArray("replaced");
        source.plan().replacements().keySet().forEach(rep::add);
        r.put("tensors", tensors);
        ArrayNode out = r.putArray("files");
        files.forEach(f -> out.add(f.getFileName().toString()));
        return r;
    }

    /** Lower-case hex SHA-256 of a file. */
    public static String sha256(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** Moves the finished temp directory to {@code target}: a rename, or file by file into an existing directory. */
    private static void install(Path tmp, Path target) throws IOException {
        if (Files.isDirectory(target) && isEmpty(target)) Files.delete(target);
        if (!Files.exists(target)) {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            return;
        }
        try (Stream<Path> s = Files.list(target)) {
            for (Path f : s.filter(Files::isRegularFile).toList()) {
                String n = f.getFileName().toString();
                if (n.endsWith(".safetensors") || n.equals(Weights.INDEX_FILE) || n.equals(RECORD_FILE)
                        || n.equals(ModelConfig.CONFIG_FILE) || COPIED.contains(n)) {
                    Files.delete(f);
                }
            }
        }
        try (Stream<Path> s = Files.list(tmp)) {
            for (Path f : s.toList()) {
                Files.move(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static boolean isEmpty(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        } catch (IOException e) {
            throw new AdapterException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
