package dev.ladder.inference.text;

import dev.ladder.inference.model.ModelException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Offline tests on a tiny byte-level tokenizer (one token per UTF-8 byte). */
class TokenizerTest {

    @TempDir
    static Path tmp;
    static Tokenizer tokenizer;

    @BeforeAll
    static void load() throws IOException {
        Path dir = TinyTokenizers.byteLevel(tmp.resolve("tiny"));
        TinyTokenizers.writeConfig(dir, """
                {"bos_token": {"__type": "AddedToken", "content": "<s>"}, "eos_token": "</s>",
                 "model_max_length": 1000000000000000019884624838656}""");
        tokenizer = Tokenizer.load(dir);
    }

    @AfterAll
    static void close() {
        tokenizer.close();
    }

    @Test
    void encodesEveryByteWithoutAddingBos() {
        int[] ids = tokenizer.encode("ab c");
        assertThat(ids).containsExactly('a', 'b', 0x20, 'c');
        assertThat(tokenizer.decode(ids)).isEqualTo("ab c");
        assertThat(tokenizer.encode("")).isEmpty();
    }

    @Test
    void doesNotTruncateLongText() {
        String text = "x".repeat(2000);
        int[] ids = tokenizer.encode(text);
        assertThat(ids).hasSize(2000);
        assertThat(tokenizer.decode(ids)).isEqualTo(text);
    }

    @Test
    void djlAloneWouldTruncateAt512() throws IOException {
        // why Tokenizer sets truncation off: DJL's defaults cut the same text to 512 tokens
        try (var in = Files.newInputStream(tokenizer.path());
             var djl = ai.djl.huggingface.tokenizers.HuggingFaceTokenizer.newInstance(in, java.util.Map.of())) {
            assertThat(djl.encode("x".repeat(2000), false, false).getIds()).hasSize(512);
        }
    }

    @Test
    void specialTokenStringsMapToTheirIds() {
        assertThat(tokenizer.encode("<s>a<|eot_id|>")).containsExactly(TinyTokenizers.BOS, 'a', TinyTokenizers.EOT);
        int[] ids = {TinyTokenizers.BOS, 'a', TinyTokenizers.EOT};
        assertThat(tokenizer.decode(ids)).isEqualTo("<s>a<|eot_id|>");
        assertThat(tokenizer.decode(ids, true)).isEqualTo("a");
        assertThat(tokenizer.decode(List.of(TinyTokenizers.BOS, (int) 'a'), true)).isEqualTo("a");
        assertThat(tokenizer.isSpecial(TinyTokenizers.EOT)).isTrue();
        assertThat(tokenizer.isSpecial('a')).isFalse();
    }

    @Test
    void vocabularyAndSpecialIds() {
        assertThat(tokenizer.vocabSize()).isEqualTo(259);
        assertThat(tokenizer.tokenId("<|eot_id|>")).isEqualTo(TinyTokenizers.EOT);
        assertThat(tokenizer.tokenId("\u0120")).isEqualTo(0x20); // Ġ, the byte-level space
        assertThat(tokenizer.tokenId("no such token")).isNull();
        assertThat(tokenizer.bosId()).hasValue(TinyTokenizers.BOS);
        assertThat(tokenizer.eosIds()).containsExactly(TinyTokenizers.EOS, TinyTokenizers.EOT);
    }

    @Test
    void roundTripsMultiByteText() {
        for (String s : List.of("café", "中文", "emoji 😀 ok", "SELECT 'a''b' AS \"x\"\nFROM t;\n\t")) {
            assertThat(tokenizer.decode(tokenizer.encode(s))).isEqualTo(s);
            assertThat(tokenizer.encode(s)).hasSize(s.getBytes(StandardCharsets.UTF_8).length);
        }
    }

    @Test
    void incrementalDecodingEqualsFullDecodeAcrossSplitCharacters() {
        String text = "é中😀 x\uFFFDy";
        int[] ids = tokenizer.encode(text);
        IncrementalDetokenizer detok = tokenizer.detokenizer(false);
        List<String> pieces = new ArrayList<>();
        for (int id : ids) {
            String piece = detok.push(id);
            pieces.add(piece);
            assertThat(text).startsWith(detok.text());
        }
        pieces.add(detok.finish());
        assertThat(String.join("", pieces)).isEqualTo(text).isEqualTo(tokenizer.decode(ids));
        // é is two bytes: its first byte gives nothing yet, the second the whole character
        assertThat(pieces.get(0)).isEmpty();
        assertThat(pieces.get(1)).isEqualTo("é");
        assertThat(detok.ids()).containsExactly(ids);
    }

    @Test
    void incompleteTailIsHeldBackUntilFinish() {
        byte[] smile = "😀".getBytes(StandardCharsets.UTF_8);
        IncrementalDetokenizer detok = tokenizer.detokenizer(false);
        assertThat(detok.push('a')).isEqualTo("a");
        assertThat(detok.push(smile[0] & 0xff)).isEmpty();
        assertThat(detok.push(smile[1] & 0xff)).isEmpty();
        assertThat(detok.text()).isEqualTo("a");
        String rest = detok.finish();
        assertThat(detok.text()).isEqualTo(tokenizer.decode(detok.ids())).isEqualTo("a" + rest);
        assertThat(rest).isNotEmpty().matches("\uFFFD+");
    }

    @Test
    void skippedSpecialTokensProduceNoText() {
        IncrementalDetokenizer detok = tokenizer.detokenizer(true);
        assertThat(detok.pushAll('o', 'k', TinyTokenizers.EOT)).isEqualTo("ok");
        assertThat(detok.finish()).isEmpty();
    }

    @Test
    void rejectsIdsOutsideTheVocabulary() {
        assertThatThrownBy(() -> tokenizer.decode(new int[] {'a', 259}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("259");
        IncrementalDetokenizer detok = tokenizer.detokenizer(false);
        detok.push('a');
        assertThatThrownBy(() -> detok.push(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(detok.size()).isEqualTo(1);
    }

    @Test
    void missingTokenizerJsonNamesThePath(@TempDir Path empty) {
        assertThatThrownBy(() -> Tokenizer.load(empty))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining("missing tokenizer.json")
                .hasMessageContaining(empty.resolve("tokenizer.json").toString());
    }

    @Test
    void malformedTokenizerJsonNamesThePath(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tokenizer.json");
        Files.writeString(file, "{\"model\": {\"vocab\": {\"a\": 0}\n");
        assertThatThrownBy(() -> Tokenizer.load(dir))
                .isInstanceOf(ModelException.class)
                .hasMessageStartingWith("malformed tokenizer.json at " + file)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        Files.writeString(file, "[1, 2]");
        assertThatThrownBy(() -> Tokenizer.load(dir)).isInstanceOf(ModelException.class)
                .hasMessageContaining(file.toString());
    }

    @Test
    void jsonThatIsNoTokenizerNamesThePath(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tokenizer.json");
        Files.writeString(file, "{\"model\": {\"type\": \"Nonsense\", \"vocab\": {\"a\": 0}}}");
        assertThatThrownBy(() -> Tokenizer.load(dir))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining(file.toString())
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void malformedTokenizerConfigNamesThePath(@TempDir Path dir) throws IOException {
        TinyTokenizers.byteLevel(dir);
        TinyTokenizers.writeConfig(dir, "{\"bos_token\": ");
        assertThatThrownBy(() -> Tokenizer.load(dir))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining("malformed tokenizer_config.json at " + dir.resolve("tokenizer_config.json"));
    }

    @Test
    void loadsFromTheJsonFileAndFindsBosWithoutConfig(@TempDir Path dir) throws IOException {
        TinyTokenizers.byteLevel(dir);
        try (Tokenizer t = Tokenizer.load(dir.resolve("tokenizer.json"))) {
            assertThat(t.bosId()).hasValue(TinyTokenizers.BOS);
            assertThat(t.eosIds()).containsExactly(TinyTokenizers.EOT);
            assertThat(t.path()).isEqualTo(dir.resolve("tokenizer.json"));
            t.close();
            assertThatThrownBy(() -> t.encode("a")).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void generationConfigAddsEosIds(@TempDir Path dir) throws IOException {
        TinyTokenizers.byteLevel(dir);
        Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [257, 10]}");
        try (Tokenizer t = Tokenizer.load(dir)) {
            assertThat(t.eosIds()).containsExactly(TinyTokenizers.EOS, 10, TinyTokenizers.EOT);
        }
    }
}
