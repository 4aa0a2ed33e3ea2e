package dev.ladder.inference.text;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class MiniTarTest {

    @Test
    void extractsTheWantedFiles() throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("package/readme.md", "hello".getBytes(StandardCharsets.UTF_8));
        files.put("package/models/tokenizer.json", "{\"x\": 1}".repeat(100).getBytes(StandardCharsets.UTF_8));
        files.put("package/empty.txt", new byte[0]);
        files.put("package/block.bin", new byte[512]);
        files.put("package/last.txt", "end".getBytes(StandardCharsets.UTF_8));
        byte[] tar = MiniTar.write(files);

        Map<String, byte[]> out = MiniTar.extract(new ByteArrayInputStream(tar),
                n -> n.endsWith(".json") || n.endsWith(".txt") || n.endsWith(".bin"));
        assertThat(out.keySet()).containsExactly("package/models/tokenizer.json", "package/empty.txt",
                "package/block.bin", "package/last.txt");
        assertThat(out.get("package/models/tokenizer.json")).isEqualTo(files.get("package/models/tokenizer.json"));
        assertThat(out.get("package/empty.txt")).isEmpty();
        assertThat(out.get("package/block.bin")).hasSize(512);
        assertThat(new String(out.get("package/last.txt"), StandardCharsets.UTF_8)).isEqualTo("end");
    }

    @Test
    void usesPaxPathOfTheNextEntry() throws IOException {
        String longName = "package/" + "d/".repeat(60) + "tokenizer.json";
        String record = " path=" + longName + "\n";
        int len = record.length() + 3; // three digits for the length itself
        String pax = len + record;
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("PaxHeader/x", pax.getBytes(StandardCharsets.UTF_8));
        files.put("package/short.json", "{}".getBytes(StandardCharsets.UTF_8));
        byte[] tar = MiniTar.write(files);
        tar[156] = 'x'; // first header becomes a pax extended header

        Map<String, byte[]> out = MiniTar.extract(new ByteArrayInputStream(tar), n -> true);
        assertThat(out).containsOnlyKeys(longName);
    }
}
