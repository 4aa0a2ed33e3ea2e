package dev.ladder.inference.model;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TinyTokenizerTest {

    @TempDir
    static Path dir;

    @BeforeAll
    static void write() {
        TinyTokenizer.write(dir);
    }

    private static HuggingFaceTokenizer load(boolean addSpecial) throws IOException {
        return HuggingFaceTokenizer.newInstance(dir, Map.of("truncation", "false", "padding", "false",
                "addSpecialTokens", String.valueOf(addSpecial)));
    }

    @Test
    void loadsInDjlAndRoundTrips() throws IOException {
        try (HuggingFaceTokenizer tok = load(false)) {
            for (String text : new String[] {
                    "SELECT customerName FROM customers WHERE country = 'France';",
                    "How many orders were shipped in 2004?",
                    "  leading spaces, tabs\tand\nnewlines  ",
                    "Unicode: café, Größe, 東京, emoji 🙂",
                    ""}) {
                Encoding e = tok.encode(text);
                long[] ids = e.getIds();
                assertThat(Arrays.stream(ids).allMatch(id -> id >= 0 && id < TinyTokenizer.BEGIN_OF_TEXT)).isTrue();
                assertThat(tok.decode(ids)).isEqualTo(text);
            }
            // merges make common words single tokens
            long[] ids = tok.encode("SELECT name FROM customers").getIds();
            assertThat(ids.length).isLessThan("SELECT name FROM customers".length() / 2);
        }
    }

    @Test
    void specialTokensSitAtTheTopAndBosIsAdded() throws IOException {
        try (HuggingFaceTokenizer tok = load(false); HuggingFaceTokenizer withBos = load(true)) {
            long[] ids = tok.encode("<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>").getIds();
            assertThat(ids[0]).isEqualTo(TinyTokenizer.START_HEADER);
            assertThat(ids).contains((long) TinyTokenizer.END_HEADER);
            assertThat(ids[ids.length - 1]).isEqualTo(TinyTokenizer.EOT);
            assertThat(tok.encode("<|begin_of_text|><|end_of_text|>").getIds())
                    .containsExactly(TinyTokenizer.BEGIN_OF_TEXT, TinyTokenizer.END_OF_TEXT);
            long[] plain = tok.encode("hello").getIds();
            long[] bos = withBos.encode("hello").getIds();
            assertThat(bos[0]).isEqualTo(TinyTokenizer.BEGIN_OF_TEXT);
            assertThat(Arrays.copyOfRange(bos, 1, bos.length)).containsExactly(plain);
            assertThat(tok.decode(bos, true)).isEqualTo("hello");
        }
    }

    @Test
    void longInputsAreNotTruncated() throws IOException {
        try (HuggingFaceTokenizer tok = load(false)) {
            String text = "abc xyz 17 ".repeat(400);
            long[] ids = tok.encode(text).getIds();
            assertThat(ids.length).isGreaterThan(600);
            assertThat(tok.decode(ids)).isEqualTo(text);
        }
    }

    @Test
    void vocabularyAndConfig() throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode t = json.readTree(dir.resolve("tokenizer.json").toFile());
        JsonNode vocab = t.get("model").get("vocab");
        assertThat(vocab.size()).isEqualTo(TinyTokenizer.VOCAB_SIZE);
        assertThat(t.get("model").get("merges").size()).isGreaterThanOrEqualTo(251);
        assertThat(vocab.get("<|eot_id|>").asInt()).isEqualTo(511);
        assertThat(vocab.get("Ġ").asInt()).isEqualTo(32);   // byte 0x20 in GPT-2's spelling
        JsonNode c = json.readTree(dir.resolve("tokenizer_config.json").toFile());
        assertThat(c.get("bos_token").asText()).isEqualTo("<|begin_of_text|>");
        assertThat(c.get("eos_token").asText()).isEqualTo("<|eot_id|>");
        assertThat(c.get("chat_template").asText()).contains("<|start_header_id|>").contains("add_generation_prompt");
    }
}
