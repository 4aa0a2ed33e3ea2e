package dev.ladder.inference.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SafetensorsTest {

    @TempDir
    Path dir;

    private static final float[] VALUES = {0f, -0f, 1f, -2.5f, 0.1f, 3.14159265f, 65504f, 70000f, 1e-7f, 6e-8f,
            -1e-30f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1.00048828125f, 1.000732421875f, 123456.78f};

    private static float[] floats(ByteBuffer b) {
        float[] out = new float[b.remaining() / 4];
        b.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }

    @Test
    void roundTripF32F16Bf16() {
        Path file = dir.resolve("model.safetensors");
        new SafetensorsWriter()
                .metadata("format", "pt")
                .add("a.f32", DType.F32, new long[] {4, 4}, VALUES)
                .add("b.f16", DType.F16, new long[] {16}, VALUES)
                .add("c.bf16", DType.BF16, new long[] {2, 2, 4}, VALUES)
                .add("d.scalar", DType.F32, new long[] {}, new float[] {42f})
                .write(file);
        try (Weights w = Weights.open(dir)) {
            assertThat(w.names()).containsExactly("a.f32", "b.f16", "c.bf16", "d.scalar");
            assertThat(w.info("c.bf16")).isEqualTo(new TensorInfo("c.bf16", DType.BF16, new long[] {2, 2, 4}, 16));
            assertThat(w.info("d.scalar").shape()).isEmpty();
            assertThat(w.floats("d.scalar")).containsExactly(42f);

            assertThat(w.floats("a.f32")).containsExactly(VALUES);
            ByteBuffer direct = w.toFloat32("a.f32");
            assertThat(direct.isDirect()).isTrue();
            assertThat(direct.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            assertThat(direct.position()).isZero();
            assertThat(direct.capacity()).isEqualTo(64);

            float[] f16 = w.floats("b.f16");
            float[] bf16 = w.floats("c.bf16");
            for (int i = 0; i < VALUES.length; i++) {
                assertThat(f16[i]).isEqualTo(HalfFloats.f16ToFloat(HalfFloats.floatToF16(VALUES[i])));
                assertThat(bf16[i]).isEqualTo(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(VALUES[i])));
            }
            assertThat(f16[6]).isEqualTo(65504f);
            assertThat(f16[7]).isEqualTo(Float.POSITIVE_INFINITY);    // 70000 overflows half
            assertThat(f16[9]).isEqualTo(0x1p-24f);                    // 6e-8 rounds to the smallest subnormal
            assertThat(f16[13]).isEqualTo(1.0f);                       // 1 + 2^-11: tie to even
            assertThat(f16[14]).isEqualTo(1.0009765625f);              // 1 + 3*2^-12: rounds up
            assertThat(bf16[2]).isEqualTo(1f);
            assertThat(bf16[11]).isEqualTo(Float.POSITIVE_INFINITY);

            // narrowing F32 -> F16 and widening F16/BF16 -> F16
            java.util.List<F16Clamp> clamps = new java.util.ArrayList<>();
            ByteBuffer h = w.toFloat16("a.f32", clamps::add);
            assertThat(h.isDirect()).isTrue();
            assertThat(h.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < VALUES.length; i++) {
                assertThat(h.getShort(2 * i)).isEqualTo(HalfFloats.floatToF16Clamped(VALUES[i]));
            }
            // beyond the half range: clamped and reported, not turned into infinity; infinities stay
            assertThat(HalfFloats.f16ToFloat(h.getShort(2 * 7))).isEqualTo(65504f);
            assertThat(HalfFloats.f16ToFloat(h.getShort(2 * 15))).isEqualTo(65504f);
            assertThat(HalfFloats.f16ToFloat(h.getShort(2 * 12))).isEqualTo(Float.NEGATIVE_INFINITY);
            assertThat(clamps).containsExactly(new F16Clamp("a.f32", 2, 123456.78f));
            ByteBuffer hb = w.toFloat16("b.f16");
            assertThat(hb.getShort(2 * 4)).isEqualTo(HalfFloats.floatToF16(0.1f));
            ByteBuffer fromBf = w.toFloat16("c.bf16");
            assertThat(HalfFloats.f16ToFloat(fromBf.getShort(2 * 3))).isEqualTo(-2.5f);
        }
    }

    @Test
    void headerIsPaddedToEightBytesAndMetadataKept() throws IOException {
        Path file = dir.resolve("x.safetensors");
        new SafetensorsWriter().metadata("format", "pt").add("t", DType.F32, new long[] {3}, new float[] {1, 2, 3})
                .write(file);
        byte[] bytes = Files.readAllBytes(file);
        long n = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        assertThat(n % 8).isZero();
        assertThat(bytes.length).isEqualTo(8 + n + 12);
        String header = new String(bytes, 8, (int) n, StandardCharsets.UTF_8);
        assertThat(header).startsWith("{\"__metadata__\":{\"format\":\"pt\"},\"t\":{\"dtype\":\"F32\",\"shape\":[3],"
                + "\"data_offsets\":[0,12]}}");
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertThat(f.metadata()).containsEntry("format", "pt");
            assertThat(f.fileOffset("t")).isEqualTo(8 + n);
        }
        assertThat(dir.resolve("x.safetensors.tmp")).doesNotExist();
    }

    @Test
    void writingIsDeterministic() throws IOException {
        for (String name : new String[] {"1.safetensors", "2.safetensors"}) {
            new SafetensorsWriter().add("b", DType.BF16, new long[] {2}, new float[] {1, 2})
                    .add("a", DType.F32, new long[] {1}, new float[] {3}).write(dir.resolve(name));
        }
        assertThat(Files.readAllBytes(dir.resolve("1.safetensors")))
                .isEqualTo(Files.readAllBytes(dir.resolve("2.safetensors")));
    }

    @Test
    void shardedIndex() throws IOException {
        SafetensorsWriter w = new SafetensorsWriter();
        for (int i = 0; i < 6; i++) {
            float[] v = new float[100];
            java.util.Arrays.fill(v, i);
            w.add("layer." + i + ".weight", DType.F32, new long[] {10, 10}, v);
        }
        assertThat(w.writeSharded(dir, 3)).hasSize(3);
        assertThat(dir.resolve("model-00001-of-00003.safetensors")).exists();
        assertThat(dir.resolve("model-00003-of-00003.safetensors")).exists();
        assertThat(Files.readString(dir.resolve("model.safetensors.index.json")))
                .contains("\"total_size\" : 2400")
                .contains("\"layer.5.weight\" : \"model-00003-of-00003.safetensors\"");
        try (Weights weights = Weights.open(dir)) {
            assertThat(weights.files()).hasSize(3);
            assertThat(weights.names()).hasSize(6);
            for (int i = 0; i < 6; i++) {
                assertThat(weights.floats("layer." + i + ".weight")).containsOnly((float) i);
            }
        }
    }

    @Test
    void indexNamingMissingTensorOrShardFails() throws IOException {
        new SafetensorsWriter().add("a", DType.F32, new long[] {1}, new float[] {1}).write(dir.resolve("s1.safetensors"));
        Path index = dir.resolve("model.safetensors.index.json");
        Files.writeString(index, "{\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\"}}");
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessage("tensor 'b' named in " + index + " is not in " + dir.resolve("s1.safetensors"));
        Files.writeString(index, "{\"weight_map\": {\"a\": \"s2.safetensors\"}}");
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessage("shard 's2.safetensors' named in " + index + " not found");
    }

    @Test
    void anySafetensorsFilesWithoutIndex() {
        new SafetensorsWriter().add("a", DType.F32, new long[] {1}, new float[] {1}).write(dir.resolve("one.safetensors"));
        new SafetensorsWriter().add("b", DType.F32, new long[] {1}, new float[] {2}).write(dir.resolve("two.safetensors"));
        try (Weights w = Weights.open(dir)) {
            assertThat(w.names()).containsExactly("a", "b");
            assertThat(w.floats("b")).containsExactly(2f);
        }
        new SafetensorsWriter().add("a", DType.F32, new long[] {1}, new float[] {3}).write(dir.resolve("three.safetensors"));
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageContaining("tensor 'a' is in both");
    }

    @Test
    void missingTensorNamesTensorAndDirectory() {
        new SafetensorsWriter().add("a", DType.F32, new long[] {1}, new float[] {1}).write(dir.resolve("model.safetensors"));
        try (Weights w = Weights.open(dir)) {
            assertThatThrownBy(() -> w.toFloat32("model.norm.weight")).isInstanceOf(ModelException.class)
                    .hasMessage("tensor 'model.norm.weight' not found in " + dir);
            assertThatThrownBy(() -> w.info("nope")).isInstanceOf(ModelException.class);
        }
    }

    @Test
    void emptyOrMissingDirectory() {
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageStartingWith("no .safetensors weights in " + dir);
        assertThatThrownBy(() -> Weights.open(dir.resolve("absent"))).isInstanceOf(ModelException.class)
                .hasMessage("model directory not found: " + dir.resolve("absent"));
    }

    @Test
    void truncatedFileFailsWithPath() throws IOException {
        Path file = dir.resolve("model.safetensors");
        new SafetensorsWriter().add("a", DType.F32, new long[] {100}, new float[100]).write(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 4);
        }
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessage("truncated safetensors file: tensor 'a' in " + file
                        + " ends at data byte 400 but the file holds only 396 data bytes");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(20);
        }
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageStartingWith("truncated safetensors file (header of");
    }

    @Test
    void corruptHeadersFail() throws IOException {
        Path file = dir.resolve("model.safetensors");
        writeRaw(file, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,12]}}", 12);
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageContaining("do not fit F32[2]").hasMessageContaining(file.toString());
        writeRaw(file, "{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8);
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageStartingWith("unsupported dtype 'Q4'");
        writeRaw(file, "{\"a\":", 8);
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageStartingWith("corrupt safetensors header in " + file);
        Files.write(file, new byte[] {(byte) 0xff, (byte) 0xff, 0, 0, 0, 0, 0, 0, '{', '}'});
        assertThatThrownBy(() -> Weights.open(dir)).isInstanceOf(ModelException.class)
                .hasMessageStartingWith("truncated safetensors file (header of 65535 bytes");
    }

    private static void writeRaw(Path file, String header, int dataBytes) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h);
        Files.write(file, b.array());
    }

    @Test
    void largeTensorsConvertSegmentBySegmentAndByRows() {
        int rows = 300;
        int cols = 77;
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (i % 253) - 126f;                       // exact in bf16
        }
        new SafetensorsWriter().add("emb", DType.BF16, new long[] {rows, cols}, v)
                .add("f32", DType.F32, new long[] {rows, cols}, v)
                .write(dir.resolve("model.safetensors"));
        long saved = Weights.segmentBytes;
        Weights.segmentBytes = 1000;               // force many mapped segments (and parallel blocks across them)
        try (Weights w = Weights.open(dir)) {
            assertThat(w.floats("emb")).containsExactly(v);   // all values are exact in bf16
            assertThat(w.floats("f32")).containsExactly(v);
            float[] slice = floats(w.toFloat32Rows("emb", 17, 5));
            assertThat(slice).containsExactly(java.util.Arrays.copyOfRange(v, 17 * cols, 22 * cols));
            ByteBuffer h = w.toFloat16Rows("f32", 299, 1);
            assertThat(h.capacity()).isEqualTo(cols * 2);
            assertThat(HalfFloats.f16ToFloat(h.getShort(0))).isEqualTo(v[299 * cols]);
            assertThat(w.totalBytes()).isEqualTo((long) rows * cols * 6);
        } finally {
            Weights.segmentBytes = saved;
        }
    }

    @Test
    void nonFloatTensorsAreRawOnly() {
        ByteBuffer ints = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(7).putInt(-3).flip();
        new SafetensorsWriter().addRaw("ids", DType.I32, new long[] {2}, ints).write(dir.resolve("model.safetensors"));
        try (Weights w = Weights.open(dir)) {
            assertThat(w.raw("ids").getInt(4)).isEqualTo(-3);
            assertThatThrownBy(() -> w.toFloat32("ids")).isInstanceOf(ModelException.class)
                    .hasMessageContaining("is I32");
        }
    }
}
