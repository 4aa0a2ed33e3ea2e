package dev.ladder.inference.text;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a small byte-level BPE {@code tokenizer.json} for offline tests: ids 0-255 are the 256 bytes (GPT-2 byte
 * to unicode mapping), no merges, so every UTF-8 byte is one token; 256 = {@code <s>}, 257 = {@code </s>},
 * 258 = {@code <|eot_id|>}, all special. Its post-processor is a TemplateProcessing that would prepend {@code <s>}
 * if special tokens were added, to show that they are not.
 */
final class TinyTokenizers {

    static final int BOS = 256;
    static final int EOS = 257;
    static final int EOT = 258;

    private static final ObjectMapper JSON = new ObjectMapper();

    private TinyTokenizers() {
    }

    static Path byteLevel(Path dir) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        addToken(added, BOS, "<s>");
        addToken(added, EOS, "</s>");
        addToken(added, EOT, "<|eot_id|>");
        root.putNull("normalizer");
        root.set("pre_tokenizer", byteLevelNode());
        ObjectNode post = root.putObject("post_processor");
        post.put("type", "TemplateProcessing");
        ArrayNode single = post.putArray("single");
        single.addObject().putObject("SpecialToken").put("id", "<s>").put("type_id", 0);
        single.addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        ArrayNode pair = post.putArray("pair");
        pair.addObject().putObject("SpecialToken").put("id", "<s>").put("type_id", 0);
        pair.addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        pair.addObject().putObject("Sequence").put("id", "B").put("type_id", 1);
        ObjectNode st = post.putObject("special_tokens").putObject("<s>");
        st.put("id", "<s>");
        st.putArray("ids").add(BOS);
        st.putArray("tokens").add("<s>");
        root.set("decoder", byteLevelNode());
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", false);
        model.put("byte_fallback", false);
        ObjectNode vocab = model.putObject("vocab");
        char[] byteToChar = byteToUnicode();
        for (int b = 0; b < 256; b++) {
            vocab.put(String.valueOf(byteToChar[b]), b);
        }
        model.putArray("merges");
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve("tokenizer.json").toFile(), root);
        return dir;
    }

    static void writeConfig(Path dir, String json) throws IOException {
        Files.writeString(dir.resolve("tokenizer_config.json"), json);
    }

    private static void addToken(ArrayNode added, int id, String content) {
        ObjectNode t = added.addObject();
        t.put("id", id);
        t.put("content", content);
        t.put("single_word", false);
        t.put("lstrip", false);
        t.put("rstrip", false);
        t.put("normalized", false);
        t.put("special", true);
    }

    private static ObjectNode byteLevelNode() {
        ObjectNode n = JSON.createObjectNode();
        n.put("type", "ByteLevel");
        n.put("add_prefix_space", false);
        n.put("trim_offsets", true);
        n.put("use_regex", true);
        return n;
    }

    /** GPT-2's reversible byte to printable character table. */
    static char[] byteToUnicode() {
        char[] table = new char[256];
        boolean[] printable = new boolean[256];
        for (int b = '!'; b <= '~'; b++) {
            printable[b] = true;
        }
        for (int b = 0xA1; b <= 0xAC; b++) {
            printable[b] = true;
        }
        for (int b = 0xAE; b <= 0xFF; b++) {
            printable[b] = true;
        }
        int next = 256;
        for (int b = 0; b < 256; b++) {
            table[b] = printable[b] ? (char) b : (char) next++;
        }
        return table;
    }
}
