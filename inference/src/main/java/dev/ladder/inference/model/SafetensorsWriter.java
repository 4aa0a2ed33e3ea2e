package dev.ladder.inference.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Writes safetensors files: tensors in the order added (data and header alike, so output is deterministic), header
 * padded with spaces to a multiple of 8 bytes. Tensor data is produced lazily, one tensor at a time, so large files
 * can be written without holding every tensor in memory. Files are written to a temporary name and moved into place.
 */
public final class SafetensorsWriter {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One tensor to write.
     *
     * @param dtype element type as stored
     * @param shape dimensions
     * @param data  yields exactly {@code numel * dtype.byteSize()} little-endian bytes (from position to limit);
     *              called once, when the tensor is written
     */
    public record Tensor(DType dtype, long[] shape, Supplier<ByteBuffer> data) {
        public Tensor {
            shape = shape.clone();
        }

        public long numel() {
            return TensorInfo.product(shape);
        }

        public long byteSize() {
            return numel() * dtype.byteSize();
        }
    }

    private final Map<String, Tensor> tensors = new LinkedHashMap<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();

    /** Adds a tensor whose bytes are produced when written. */
    public SafetensorsWriter add(String name, Tensor tensor) {
        if (name.equals("__metadata__") || tensors.containsKey(name)) {
            throw new IllegalArgumentException("duplicate or reserved tensor name '" + name + "'");
        }
        tensors.put(name, tensor);
        return this;
    }

    /** Adds float values stored as F32, F16 or BF16 (narrowing rounds to nearest even). */
    public SafetensorsWriter add(String name, DType dtype, long[] shape, float[] values) {
        if (TensorInfo.product(shape) != values.length) {
            throw new IllegalArgumentException(values.length + " values do not fill shape " + Arrays.toString(shape));
        }
        ByteBuffer bytes = encode(dtype, values);
        return add(name, new Tensor(dtype, shape, bytes::duplicate));
    }

    /** Adds raw little-endian bytes of any dtype. */
    public SafetensorsWriter addRaw(String name, DType dtype, long[] shape, ByteBuffer bytes) {
        ByteBuffer copy = bytes.duplicate();
        return add(name, new Tensor(dtype, shape, copy::duplicate));
    }

    /** Adds a {@code __metadata__} entry. */
    public SafetensorsWriter metadata(String key, String value) {
        metadata.put(key, value);
        return this;
    }

    /** Names in the order they will be written. */
    public List<String> names() {
        return List.copyOf(tensors.keySet());
    }

    /** Encodes floats as little-endian F32, F16 or BF16 bytes. */
    public static ByteBuffer encode(DType dtype, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * dtype.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        switch (dtype) {
            case F32 -> b.asFloatBuffer().put(values);
            case F16 -> {
                for (int i = 0; i < values.length; i++) {
                    b.putShort(i << 1, HalfFloats.floatToF16(values[i]));
                }
            }
            case BF16 -> {
                for (int i = 0; i < values.length; i++) {
                    b.putShort(i << 1, HalfFloats.floatToBf16(values[i]));
                }
            }
            default -> throw new IllegalArgumentException("cannot encode floats as " + dtype);
        }
        return b;
    }

    /** Writes every tensor into one file. */
    public void write(Path file) {
        writeFile(file, new ArrayList<>(tensors.keySet()), metadata);
    }

    /**
     * Writes the tensors into {@code shards} files {@code model-0000i-of-0000n.safetensors} (contiguous runs of the
     * tensors in order, split by bytes; fewer files when a tensor is larger than a share) and
     * {@code model.safetensors.index.json} in {@code dir}.
     *
     * @return the shard files written
     */
    public List<Path> writeSharded(Path dir, int shards) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be >= 1");
        }
        long total = 0;
        for (Tensor t : tensors.values()) {
            total += t.byteSize();
        }
        List<List<String>> groups = new ArrayList<>();
        for (int i = 0; i < shards; i++) {
            groups.add(new ArrayList<>());
        }
        long before = 0;
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            int g = total == 0 ? 0 : (int) Math.min(shards - 1, (before * shards) / total);
            groups.get(g).add(e.getKey());
            before += e.getValue().byteSize();
        }
        groups.removeIf(List::isEmpty);
        int n = groups.size();
        Map<String, String> weightMap = new TreeMap<>();
        List<Path> written = new ArrayList<>();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        for (int i = 0; i < n; i++) {
            String name = String.format("model-%05d-of-%05d.safetensors", i + 1, n);
            Path file = dir.resolve(name);
            writeFile(file, groups.get(i), metadata);
            groups.get(i).forEach(t -> weightMap.put(t, name));
            written.add(file);
        }
        ObjectNode index = JSON.createObjectNode();
        index.putObject("metadata").put("total_size", total);
        ObjectNode map = index.putObject("weight_map");
        weightMap.forEach(map::put);
        writeAtomically(dir.resolve(Weights.INDEX_FILE), (index.toPrettyString() + "\n").getBytes(StandardCharsets.UTF_8));
        return written;
    }

    private void writeFile(Path file, List<String> names, Map<String, String> meta) {
        ObjectNode header = JSON.createObjectNode();
        if (!meta.isEmpty()) {
            ObjectNode m = header.putObject("__metadata__");
            meta.forEach(m::put);
        }
        long offset = 0;
        for (String name : names) {
            Tensor t = tensors.get(name);
            ObjectNode node = header.putObject(name);
            node.put("dtype", t.dtype().safetensorsName());
            ArrayNode shape = node.putArray("shape");
            for (long d : t.shape()) {
                shape.add(d);
            }
            ArrayNode offs = node.putArray("data_offsets");
            offs.add(offset);
            offset += t.byteSize();
            offs.add(offset);
        }
        byte[] json = header.toString().getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8;
        ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(padded).put(json);
        while (head.hasRemaining()) {
            head.put((byte) ' ');
        }
        head.flip();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(ch, head);
                for (String name : names) {
                    Tensor t = tensors.get(name);
                    ByteBuffer data = t.data().get();
                    if (data.remaining() != t.byteSize()) {
                        throw new IllegalStateException("tensor '" + name + "' produced " + data.remaining()
                                + " bytes, expected " + t.byteSize());
                    }
                    writeFully(ch, data);
                }
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(tmp);
            throw e;
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    static void writeAtomically(Path file, byte[] bytes) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.write(tmp, bytes);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort
        }
    }
}
