package dev.ladder.inference.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The tensors of a model directory: one {@code model.safetensors}, shards named by
 * {@code model.safetensors.index.json}, or else every {@code *.safetensors} file in the directory.
 *
 * <p>Converters return direct little-endian buffers ready for
 * {@code NDManager.create(buffer, new Shape(info.shape()), DataType.FLOAT32 / FLOAT16)}. bfloat16 is always widened
 * here in Java: never hand bf16 bytes to DJL (a BFLOAT16 NDArray kills the JVM).
 *
 * <p>Not thread-safe to open or close; conversions of different tensors may run concurrently.
 */
public final class Weights implements AutoCloseable {

    public static final String SINGLE_FILE = "model.safetensors";
    public static final String INDEX_FILE = "model.safetensors.index.json";

    /** Source bytes converted per mapped segment (a multiple of every element size); tests make it small. */
    static long segmentBytes = 1L << 30;
    /** Elements per parallel block inside a segment. */
    private static final int BLOCK = 1 << 18;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;
    private final List<SafetensorsFile> files;
    private final Map<String, SafetensorsFile> byName;
    private final Set<String> names;

    private Weights(Path directory, List<SafetensorsFile> files, Map<String, SafetensorsFile> byName) {
        this.directory = directory;
        this.files = List.copyOf(files);
        this.byName = byName;
        this.names = Collections.unmodifiableSet(new TreeSet<>(byName.keySet()));
    }

    /**
     * Opens the weights of a model directory (or a single {@code .safetensors} file).
     *
     * @throws ModelException when the directory has no weights, the index names a missing shard or tensor, two files
     *                        hold the same tensor, or a file is corrupt
     */
    public static Weights open(Path modelDir) {
        if (Files.isRegularFile(modelDir) && modelDir.getFileName().toString().endsWith(".safetensors")) {
            SafetensorsFile f = SafetensorsFile.open(modelDir);
            Map<String, SafetensorsFile> byName = new LinkedHashMap<>();
            f.names().forEach(n -> byName.put(n, f));
            return new Weights(modelDir, List.of(f), byName);
        }
        if (!Files.isDirectory(modelDir)) {
            throw new ModelException("model directory not found: " + modelDir);
        }
        Path index = modelDir.resolve(INDEX_FILE);
        if (Files.isRegularFile(index)) {
            return openIndexed(modelDir, index);
        }
        Path single = modelDir.resolve(SINGLE_FILE);
        if (Files.isRegularFile(single)) {
            return openFiles(modelDir, List.of(single));
        }
        List<Path> found;
        try (Stream<Path> s = Files.list(modelDir)) {
            found = s.filter(p -> p.getFileName().toString().endsWith(".safetensors") && Files.isRegularFile(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new ModelException("cannot list model directory " + modelDir + ": " + e.getMessage(), e);
        }
        if (found.isEmpty()) {
            throw new ModelException("no .safetensors weights in " + modelDir
                    + " (expected " + SINGLE_FILE + " or " + INDEX_FILE + ")");
        }
        return openFiles(modelDir, found);
    }

    private static Weights openFiles(Path dir, List<Path> paths) {
        List<SafetensorsFile> files = new ArrayList<>();
        Map<String, SafetensorsFile> byName = new LinkedHashMap<>();
        try {
            for (Path p : paths) {
                SafetensorsFile f = SafetensorsFile.open(p);
                files.add(f);
                for (String n : f.names()) {
                    SafetensorsFile prev = byName.putIfAbsent(n, f);
                    if (prev != null) {
                        throw new ModelException("tensor '" + n + "' is in both " + prev.path() + " and " + p);
                    }
                }
            }
            return new Weights(dir, files, byName);
        } catch (RuntimeException e) {
            files.forEach(Weights::closeQuietly);
            throw e;
        }
    }

    private static Weights openIndexed(Path dir, Path index) {
        JsonNode root;
        try {
            root = JSON.readTree(index.toFile());
        } catch (JsonProcessingException e) {
            throw new ModelException("malformed JSON in " + index + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ModelException("cannot read " + index + ": " + e.getMessage(), e);
        }
        JsonNode map = root == null ? null : root.get("weight_map");
        if (map == null || !map.isObject() || map.isEmpty()) {
            throw new ModelException("no weight_map in " + index);
        }
        Map<String, String> shardOf = new LinkedHashMap<>();
        map.fields().forEachRemaining(e -> shardOf.put(e.getKey(), e.getValue().asText()));
        Map<String, SafetensorsFile> shards = new LinkedHashMap<>();
        Map<String, SafetensorsFile> byName = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, String> e : shardOf.entrySet()) {
                String shardName = e.getValue();
                SafetensorsFile f = shards.get(shardName);
                if (f == null) {
                    Path shard = dir.resolve(shardName).normalize();
                    if (!shard.startsWith(dir.normalize()) || !Files.isRegularFile(shard)) {
                        throw new ModelException("shard '" + shardName + "' named in " + index + " not found");
                    }
                    f = SafetensorsFile.open(shard);
                    shards.put(shardName, f);
                }
                if (!f.contains(e.getKey())) {
                    throw new ModelException("tensor '" + e.getKey() + "' named in " + index + " is not in "
                            + f.path());
                }
                byName.put(e.getKey(), f);
            }
            return new Weights(dir, new ArrayList<>(shards.values()), byName);
        } catch (RuntimeException e) {
            shards.values().forEach(Weights::closeQuietly);
            throw e;
        }
    }

    /** The model directory (or file) these weights came from. */
    public Path directory() {
        return directory;
    }

    /** The safetensors files, in the order opened. */
    public List<Path> files() {
        return files.stream().map(SafetensorsFile::path).toList();
    }

    /** All tensor names, sorted. */
    public Set<String> names() {
        return names;
    }

    public boolean contains(String name) {
        return byName.containsKey(name);
    }

    /**
     * @throws ModelException naming the tensor and the directory when absent
     */
    public TensorInfo info(String name) {
        return file(name).info(name);
    }

    /** Bytes of all tensors as stored. */
    public long totalBytes() {
        long n = 0;
        for (Map.Entry<String, SafetensorsFile> e : byName.entrySet()) {
            n += e.getValue().info(e.getKey()).byteSize();
        }
        return n;
    }

    /** The stored bytes, mapped read-only little-endian (any dtype; at most 2 GiB). */
    public ByteBuffer raw(String name) {
        return file(name).map(name);
    }

    /**
     * The tensor as float32, in a new direct little-endian buffer (F32, F16, BF16 or F64 stored). The caller owns it
     * and may release it at once with {@link DirectBuffers#free}.
     */
    public ByteBuffer toFloat32(String name) {
        return convert(name, 0, info(name).numel(), DType.F32, null);
    }

    /**
     * The tensor as IEEE float16 (round to nearest even when narrowing), in a new direct little-endian buffer owned by
     * the caller. Finite values beyond the half range are clamped to ±65504 ({@link F16Clamp}).
     */
    public ByteBuffer toFloat16(String name) {
        return toFloat16(name, null);
    }

    /** As {@link #toFloat16(String)}, telling {@code clamped} (when not null) if any value was clamped. */
    public ByteBuffer toFloat16(String name, Consumer<F16Clamp> clamped) {
        return convert(name, 0, info(name).numel(), DType.F16, clamped);
    }

    /**
     * Rows {@code [firstRow, firstRow + rows)} along dimension 0 as float32: for tensors whose float32 form would
     * exceed one buffer (2 GiB), or to load part of an embedding. A new buffer owned by the caller.
     */
    public ByteBuffer toFloat32Rows(String name, long firstRow, long rows) {
        long row = rowLength(name, firstRow, rows);
        return convert(name, firstRow * row, rows * row, DType.F32, null);
    }

    /** Rows along dimension 0 as float16; see {@link #toFloat32Rows} and {@link #toFloat16(String)}. */
    public ByteBuffer toFloat16Rows(String name, long firstRow, long rows) {
        return toFloat16Rows(name, firstRow, rows, null);
    }

    /** As {@link #toFloat16Rows(String, long, long)}, telling {@code clamped} of values clamped in these rows. */
    public ByteBuffer toFloat16Rows(String name, long firstRow, long rows, Consumer<F16Clamp> clamped) {
        long row = rowLength(name, firstRow, rows);
        return convert(name, firstRow * row, rows * row, DType.F16, clamped);
    }

    /** The tensor as a float array (for small tensors and tests). */
    public float[] floats(String name) {
        TensorInfo info = info(name);
        if (info.numel() > Integer.MAX_VALUE - 8) {
            throw new ModelException("tensor '" + name + "' in " + directory + " has " + info.numel()
                    + " elements, too many for a float[]");
        }
        float[] out = new float[(int) info.numel()];
        toFloat32(name).asFloatBuffer().get(out);
        return out;
    }

    private long rowLength(String name, long firstRow, long rows) {
        TensorInfo info = info(name);
        if (info.rank() == 0) {
            throw new IllegalArgumentException("tensor '" + name + "' is a scalar; it has no rows");
        }
        if (firstRow < 0 || rows < 0 || firstRow + rows > info.dim(0)) {
            throw new IndexOutOfBoundsException("rows [" + firstRow + ", " + (firstRow + rows) + ") outside "
                    + info);
        }
        return info.dim(0) == 0 ? 0 : info.numel() / info.dim(0);
    }

    private SafetensorsFile file(String name) {
        SafetensorsFile f = byName.get(name);
        if (f == null) {
            throw new ModelException("tensor '" + name + "' not found in " + directory);
        }
        return f;
    }

    private ByteBuffer convert(String name, long firstElem, long count, DType target, Consumer<F16Clamp> clamped) {
        SafetensorsFile f = file(name);
        TensorInfo info = f.info(name);
        DType src = info.dtype();
        if (!src.isFloat()) {
            throw new ModelException("tensor '" + name + "' in " + f.path() + " is " + src
                    + "; only F32, F16, BF16 and F64 convert to " + target);
        }
        long outBytes = count * target.byteSize();
        if (outBytes > SafetensorsFile.MAX_MAP_BYTES) {
            throw new ModelException("tensor '" + name + "' in " + f.path() + " needs " + outBytes + " bytes as "
                    + target + ", more than one buffer holds (2 GiB); load it in row slices");
        }
        ByteBuffer out = ByteBuffer.allocateDirect((int) outBytes).order(ByteOrder.LITTLE_ENDIAN);
        int srcSize = src.byteSize();
        long segElems = segmentBytes / srcSize;
        Range range = new Range();
        for (long done = 0; done < count; done += segElems) {
            long n = Math.min(segElems, count - done);
            ByteBuffer in = f.map(name, (firstElem + done) * srcSize, n * srcSize);
            try {
                convertSegment(in, src, out, (int) done, (int) n, target, range);
            } finally {
                DirectBuffers.free(in); // unmap now: mapped pages would otherwise stay resident until a GC
            }
        }
        long over = range.count.sum();
        if (over > 0 && clamped != null) {
            clamped.accept(new F16Clamp(name, over, Float.intBitsToFloat((int) range.maxAbsBits.get())));
        }
        return out;
    }

    /** Values clamped while narrowing to float16, gathered across parallel blocks. */
    private static final class Range {
        final LongAdder count = new LongAdder();
        /** Bits of the largest |x| clamped (non-negative floats order like their bits). */
        final AtomicLong maxAbsBits = new AtomicLong();

        void add(long n, float maxAbs) {
            if (n == 0) return;
            count.add(n);
            long bits = Float.floatToIntBits(maxAbs);
            maxAbsBits.accumulateAndGet(bits, Math::max);
        }
    }

    /** Narrows to half with clamping, counting clamped values of one block (one thread). */
    private static final class BlockRange {
        long count;
        float maxAbs;

        short f16(float v) {
            float a = Math.abs(v);
            if (a > F16Clamp.F16_MAX && a != Float.POSITIVE_INFINITY) {
                count++;
                if (a > maxAbs) maxAbs = a;
            }
            return HalfFloats.floatToF16Clamped(v);
        }
    }

    /** Converts {@code n} elements of {@code in} (from 0) into {@code out} starting at element {@code outElem}. */
    private static void convertSegment(ByteBuffer in, DType src, ByteBuffer out, int outElem, int n, DType target,
                                       Range range) {
        int outSize = target.byteSize();
        if (src == target) {
            out.put(outElem * outSize, in, 0, n * outSize);
            return;
        }
        int blocks = (n + BLOCK - 1) / BLOCK;
        IntStream.range(0, blocks).parallel().forEach(b -> {
            int from = b * BLOCK;
            int to = Math.min(n, from + BLOCK);
            BlockRange r = new BlockRange();
            convertBlock(in, src, out, outElem, from, to, target, r);
            range.add(r.count, r.maxAbs);
        });
    }

    private static void convertBlock(ByteBuffer in, DType src, ByteBuffer out, int outElem, int from, int to,
                                     DType target, BlockRange r) {
        if (target == DType.F32) {
            switch (src) {
                case BF16 -> {
                    for (int i = from; i < to; i++) {
                        out.putInt((outElem + i) << 2, (in.getShort(i << 1) & 0xffff) << 16);
                    }
                }
                case F16 -> {
                    for (int i = from; i < to; i++) {
                        out.putFloat((outElem + i) << 2, HalfFloats.f16ToFloat(in.getShort(i << 1)));
                    }
                }
                case F64 -> {
                    for (int i = from; i < to; i++) {
                        out.putFloat((outElem + i) << 2, (float) in.getDouble(i << 3));
                    }
                }
                default -> throw new IllegalStateException("no conversion " + src + " -> " + target);
            }
        } else if (target == DType.F16) {
            switch (src) {
                case BF16 -> {
                    for (int i = from; i < to; i++) {
                        out.putShort((outElem + i) << 1, r.f16(HalfFloats.bf16ToFloat(in.getShort(i << 1))));
                    }
                }
                case F32 -> {
                    for (int i = from; i < to; i++) {
                        out.putShort((outElem + i) << 1, r.f16(in.getFloat(i << 2)));
                    }
                }
                case F64 -> {
                    for (int i = from; i < to; i++) {
                        out.putShort((outElem + i) << 1, r.f16((float) in.getDouble(i << 3)));
                    }
                }
                default -> throw new IllegalStateException("no conversion " + src + " -> " + target);
            }
        } else {
            throw new IllegalStateException("no conversion " + src + " -> " + target);
        }
    }

    private static void closeQuietly(SafetensorsFile f) {
        try {
            f.close();
        } catch (RuntimeException ignored) {
            // closing after another failure
        }
    }

    @Override
    public void close() {
        files.forEach(Weights::closeQuietly);
    }

    @Override
    public String toString() {
        return "Weights[" + directory + ", " + names.size() + " tensors in " + files.size() + " file(s)]";
    }
}
