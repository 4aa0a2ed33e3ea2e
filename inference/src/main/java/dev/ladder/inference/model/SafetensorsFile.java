package dev.ladder.inference.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One {@code .safetensors} file, read through memory maps.
 *
 * <p>Layout: an 8-byte little-endian header length N, N bytes of JSON ({@code name -> {dtype, shape, data_offsets}}
 * plus an optional {@code __metadata__} map of strings), then the data; offsets are relative to the start of the
 * data. Every entry is checked when the file is opened, so a truncated or corrupt file fails here with its path.
 *
 * <p>A single map is limited to 2 GiB, so tensor bytes are mapped on demand, per tensor or per region of a tensor
 * ({@link #map(String, long, long)}); larger tensors are read region by region.
 */
public final class SafetensorsFile implements AutoCloseable {

    /** The safetensors format refuses headers above 100 MB; so do we. */
    static final long MAX_HEADER_BYTES = 100L * 1024 * 1024;
    /** Largest region one {@link ByteBuffer} can map. */
    public static final long MAX_MAP_BYTES = Integer.MAX_VALUE - 8;

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Entry(TensorInfo info, long begin, long end) {}

    private final Path path;
    private final FileChannel channel;
    private final long dataStart;
    private final Map<String, Entry> entries;
    private final Map<String, String> metadata;

    private SafetensorsFile(Path path, FileChannel channel, long dataStart, Map<String, Entry> entries,
                            Map<String, String> metadata) {
        this.path = path;
        this.channel = channel;
        this.dataStart = dataStart;
        this.entries = entries;
        this.metadata = metadata;
    }

    /**
     * Opens and validates a safetensors file.
     *
     * @throws ModelException when the file is missing, truncated, or its header is malformed
     */
    public static SafetensorsFile open(Path file) {
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new ModelException("weight file not found: " + file);
        } catch (IOException e) {
            throw new ModelException("cannot open weight file " + file + ": " + e.getMessage(), e);
        }
        try {
            SafetensorsFile f = readHeader(file, channel);
            channel = null;
            return f;
        } finally {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // the header error is the one worth reporting
                }
            }
        }
    }

    private static SafetensorsFile readHeader(Path file, FileChannel channel) {
        try {
            long size = channel.size();
            if (size < 8) {
                throw new ModelException("not a safetensors file (only " + size + " bytes): " + file);
            }
            ByteBuffer lenBuf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(channel, lenBuf, 0);
            long headerLen = lenBuf.getLong(0);
            if (headerLen <= 0 || headerLen > MAX_HEADER_BYTES) {
                throw new ModelException("corrupt safetensors file (header length " + headerLen + "): " + file);
            }
            if (8 + headerLen > size) {
                throw new ModelException("truncated safetensors file (header of " + headerLen + " bytes, file of "
                        + size + " bytes): " + file);
            }
            ByteBuffer header = ByteBuffer.allocate((int) headerLen);
            readFully(channel, header, 8);
            JsonNode root;
            try {
                root = JSON.readTree(new String(header.array(), StandardCharsets.UTF_8));
            } catch (JsonProcessingException e) {
                throw new ModelException("corrupt safetensors header in " + file + ": "
                        + e.getOriginalMessage(), e);
            }
            if (root == null || !root.isObject()) {
                throw new ModelException("corrupt safetensors header in " + file + ": not a JSON object");
            }
            long dataStart = 8 + headerLen;
            long dataLen = size - dataStart;
            Map<String, Entry> entries = new LinkedHashMap<>();
            Map<String, String> metadata = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                String name = field.getKey();
                JsonNode node = field.getValue();
                if (name.equals("__metadata__")) {
                    if (node.isObject()) {
                        node.fields().forEachRemaining(m -> metadata.put(m.getKey(), m.getValue().asText()));
                    }
                    continue;
                }
                entries.put(name, parseEntry(file, name, node, dataLen));
            }
            return new SafetensorsFile(file, channel, dataStart, Collections.unmodifiableMap(entries),
                    Collections.unmodifiableMap(metadata));
        } catch (IOException e) {
            throw new ModelException("cannot read weight file " + file + ": " + e.getMessage(), e);
        }
    }

    private static Entry parseEntry(Path file, String name, JsonNode node, long dataLen) {
        String where = "tensor '" + name + "' in " + file;
        JsonNode dtypeNode = node.get("dtype");
        JsonNode shapeNode = node.get("shape");
        JsonNode offsets = node.get("data_offsets");
        if (dtypeNode == null || !dtypeNode.isTextual() || shapeNode == null || !shapeNode.isArray()
                || offsets == null || !offsets.isArray() || offsets.size() != 2) {
            throw new ModelException("corrupt safetensors header: " + where
                    + " needs dtype, shape and data_offsets [begin, end]");
        }
        DType dtype;
        try {
            dtype = DType.fromSafetensorsName(dtypeNode.asText());
        } catch (IllegalArgumentException e) {
            throw new ModelException("unsupported dtype '" + dtypeNode.asText() + "' of " + where);
        }
        long[] shape = new long[shapeNode.size()];
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = shapeNode.get(i);
            if (!d.canConvertToLong() || d.asLong() < 0) {
                throw new ModelException("corrupt safetensors header: bad shape " + shapeNode + " of " + where);
            }
            shape[i] = d.asLong();
        }
        if (!offsets.get(0).canConvertToLong() || !offsets.get(1).canConvertToLong()) {
            throw new ModelException("corrupt safetensors header: bad data_offsets " + offsets + " of " + where);
        }
        long begin = offsets.get(0).asLong();
        long end = offsets.get(1).asLong();
        TensorInfo info;
        try {
            info = new TensorInfo(name, dtype, shape);
        } catch (ArithmeticException e) {
            throw new ModelException("corrupt safetensors header: shape " + shapeNode + " overflows, " + where);
        }
        if (begin < 0 || end < begin || end - begin != info.byteSize()) {
            throw new ModelException("corrupt safetensors header: data_offsets " + offsets + " do not fit "
                    + dtype + shapeNode + " (" + info.byteSize() + " bytes), " + where);
        }
        if (end > dataLen) {
            throw new ModelException("truncated safetensors file: " + where + " ends at data byte " + end
                    + " but the file holds only " + dataLen + " data bytes");
        }
        return new Entry(info, begin, end);
    }

    private static void readFully(FileChannel channel, ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, pos);
            if (n < 0) {
                throw new IOException("unexpected end of file");
            }
            pos += n;
        }
    }

    /** The file. */
    public Path path() {
        return path;
    }

    /** The {@code __metadata__} map (empty when absent). */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** Tensor names in header order. */
    public Set<String> names() {
        return entries.keySet();
    }

    public boolean contains(String name) {
        return entries.containsKey(name);
    }

    /**
     * @throws ModelException when the file has no such tensor
     */
    public TensorInfo info(String name) {
        return entry(name).info();
    }

    /** Absolute file offset of the tensor's first byte. */
    public long fileOffset(String name) {
        return dataStart + entry(name).begin();
    }

    /** The whole tensor, mapped read-only, little-endian; tensors above {@link #MAX_MAP_BYTES} need regions. */
    public ByteBuffer map(String name) {
        Entry e = entry(name);
        return map(name, 0, e.end() - e.begin());
    }

    /**
     * A region of a tensor's bytes, mapped read-only, little-endian.
     *
     * @param byteOffset offset inside the tensor's data
     * @param byteLength at most {@link #MAX_MAP_BYTES}
     */
    public ByteBuffer map(String name, long byteOffset, long byteLength) {
        Entry e = entry(name);
        long size = e.end() - e.begin();
        if (byteOffset < 0 || byteLength < 0 || byteOffset + byteLength > size) {
            throw new IndexOutOfBoundsException("region [" + byteOffset + ", " + (byteOffset + byteLength)
                    + ") outside tensor '" + name + "' of " + size + " bytes");
        }
        if (byteLength > MAX_MAP_BYTES) {
            throw new ModelException("tensor '" + name + "' in " + path + " has " + size
                    + " bytes; map it in regions of at most " + MAX_MAP_BYTES + " bytes");
        }
        if (byteLength == 0) {
            return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN).asReadOnlyBuffer();
        }
        try {
            return channel.map(FileChannel.MapMode.READ_ONLY, dataStart + e.begin() + byteOffset, byteLength)
                    .order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException ex) {
            throw new ModelException("cannot map tensor '" + name + "' of " + path + ": " + ex.getMessage(), ex);
        }
    }

    private Entry entry(String name) {
        Entry e = entries.get(name);
        if (e == null) {
            throw new ModelException("tensor '" + name + "' not found in " + path);
        }
        return e;
    }

    /** Closes the channel; buffers already mapped stay readable until collected. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new ModelException("cannot close " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "SafetensorsFile[" + path + ", " + entries.size() + " tensors]";
    }
}
