package dev.ladder.inference.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small byte-level BPE tokenizer in Hugging Face {@code tokenizer.json} form, for tests and tiny models.
 *
 * <p>Ids 0-255 are the 256 bytes (in GPT-2's byte-to-unicode spelling), ids 256-506 are merges learned greedily
 * (most frequent pair, ties to the smallest ids) from a built-in English and SQL text, and ids 507-511 are the
 * Llama-3 special tokens. The result is the same on every run. The post-processor adds
 * {@code <|begin_of_text|>} when special tokens are requested, like Llama 3.
 */
public final class TinyTokenizer {

    /** Number of ids, and the smallest vocabulary a model using this tokenizer may have. */
    public static final int VOCAB_SIZE = 512;
    public static final int BEGIN_OF_TEXT = 507;
    public static final int END_OF_TEXT = 508;
    public static final int START_HEADER = 509;
    public static final int END_HEADER = 510;
    public static final int EOT = 511;
    /** Special tokens, from id {@link #BEGIN_OF_TEXT} up. */
    public static final List<String> SPECIAL_TOKENS = List.of("<|begin_of_text|>", "<|end_of_text|>",
            "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>");

    /** A Llama-3-style chat template (written for Ladder). */
    public static final String CHAT_TEMPLATE = "{{- bos_token }}"
            + "{%- for message in messages %}"
            + "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim"
            + " + '<|eot_id|>' }}"
            + "{%- endfor %}"
            + "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}";

    /** GPT-2's pre-tokenization: contractions, letter runs, digit runs, other runs, whitespace. */
    private static final Pattern PRE_TOKENS = Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");

    private static final String CORPUS = """
            A database holds tables, and every table holds rows and columns. To answer a question about the data,
            we write a query in SQL. The query names the columns we want, the table they come from, and the
            conditions the rows must meet. For example, to list the names of all customers who live in France,
            we select the customer name from the customers table where the country is France.
            SELECT customerName FROM customers WHERE country = 'France';
            SELECT COUNT(*) FROM orders WHERE status = 'Shipped';
            SELECT productLine, AVG(buyPrice) AS average_price FROM products GROUP BY productLine ORDER BY average_price DESC;
            SELECT o.orderNumber, c.customerName FROM orders AS o JOIN customers AS c ON o.customerNumber = c.customerNumber
            WHERE o.orderDate >= '2004-01-01' AND o.orderDate < '2005-01-01' LIMIT 10;
            SELECT e.firstName, e.lastName, offices.city FROM employees e JOIN offices ON e.officeCode = offices.officeCode;
            SELECT DISTINCT country FROM customers ORDER BY country;
            SELECT SUM(quantityOrdered * priceEach) AS total FROM orderdetails WHERE orderNumber = 10100;
            SELECT name, salary FROM employee WHERE salary > (SELECT AVG(salary) FROM employee);
            SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.name HAVING COUNT(*) > 1;
            INSERT INTO payments (customerNumber, checkNumber, amount) VALUES (103, 'HQ336336', 6066.78);
            UPDATE products SET quantityInStock = quantityInStock - 1 WHERE productCode = 'S10_1678';
            How many orders were shipped in the year two thousand and four? Which product line has the highest
            average price? What is the total amount paid by each customer, sorted from the largest to the smallest?
            List the first and last names of the employees who work in the office in Tokyo. Show the number of
            customers in each country, but only for countries with more than five customers.
            The model reads the question and the schema, then writes the query one token at a time. A good answer
            is a query that runs without error and returns the same result as the gold query. When the first
            attempt fails, the agent reads the error message, repairs the query, and tries again.
            Language models learn from large amounts of text. They predict the next token from the tokens before
            it. The tokenizer splits text into tokens: frequent words become single tokens, while rare words are
            split into smaller pieces, and any byte can always be written on its own.
            """;

    private TinyTokenizer() {}

    /** Writes {@code tokenizer.json} and {@code tokenizer_config.json} into {@code dir}. */
    public static void write(Path dir) {
        ObjectMapper json = new ObjectMapper();
        SafetensorsWriter.writeAtomically(dir.resolve("tokenizer.json"), bytes(json, tokenizerJson(json)));
        SafetensorsWriter.writeAtomically(dir.resolve("tokenizer_config.json"), bytes(json, tokenizerConfig(json)));
    }

    private static byte[] bytes(ObjectMapper json, ObjectNode node) {
        try {
            return (json.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n")
                    .getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** GPT-2's reversible byte-to-unicode map: printable bytes stand for themselves, others move above 255. */
    static String[] byteSymbols() {
        String[] symbols = new String[256];
        int next = 256;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            symbols[b] = new String(Character.toChars(printable ? b : next++));
        }
        return symbols;
    }

    /** The learned merges, as pairs of token strings, in rank order, and the vocabulary they produce. */
    record Bpe(List<String> vocab, List<String[]> merges) {}

    static Bpe learn() {
        String[] symbols = byteSymbols();
        List<String> vocab = new ArrayList<>(List.of(symbols));
        Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < vocab.size(); i++) {
            ids.put(vocab.get(i), i);
        }
        // words: sequences of token ids, with their frequency, in first-seen order
        Map<String, Integer> freq = new LinkedHashMap<>();
        Matcher m = PRE_TOKENS.matcher(CORPUS);
        while (m.find()) {
            freq.merge(m.group(), 1, Integer::sum);
        }
        List<int[]> words = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        for (Map.Entry<String, Integer> e : freq.entrySet()) {
            byte[] b = e.getKey().getBytes(StandardCharsets.UTF_8);
            int[] w = new int[b.length];
            for (int i = 0; i < b.length; i++) {
                w[i] = b[i] & 0xff;
            }
            words.add(w);
            counts.add(e.getValue());
        }
        List<String[]> merges = new ArrayList<>();
        int target = BEGIN_OF_TEXT;
        while (vocab.size() < target) {
            Map<Long, Integer> pairs = new HashMap<>();
            for (int wi = 0; wi < words.size(); wi++) {
                int[] w = words.get(wi);
                for (int i = 0; i + 1 < w.length; i++) {
                    pairs.merge(((long) w[i] << 32) | w[i + 1], counts.get(wi), Integer::sum);
                }
            }
            if (pairs.isEmpty()) {
                throw new IllegalStateException("tiny tokenizer corpus too small: " + vocab.size() + " tokens");
            }
            long best = -1;
            int bestCount = -1;
            for (Map.Entry<Long, Integer> e : pairs.entrySet()) {
                if (e.getValue() > bestCount || (e.getValue() == bestCount && e.getKey() < best)) {
                    best = e.getKey();
                    bestCount = e.getValue();
                }
            }
            int left = (int) (best >>> 32);
            int right = (int) best;
            String merged = vocab.get(left) + vocab.get(right);
            Integer id = ids.get(merged);
            if (id == null) {
                id = vocab.size();
                vocab.add(merged);
                ids.put(merged, id);
            }
            merges.add(new String[] {vocab.get(left), vocab.get(right)});
            for (int wi = 0; wi < words.size(); wi++) {
                words.set(wi, apply(words.get(wi), left, right, id));
            }
        }
        return new Bpe(vocab, merges);
    }

    private static int[] apply(int[] w, int left, int right, int id) {
        int[] out = new int[w.length];
        int n = 0;
        for (int i = 0; i < w.length; i++) {
            if (i + 1 < w.length && w[i] == left && w[i + 1] == right) {
                out[n++] = id;
                i++;
            } else {
                out[n++] = w[i];
            }
        }
        return n == w.length ? w : Arrays.copyOf(out, n);
    }

    static ObjectNode tokenizerJson(ObjectMapper json) {
        Bpe bpe = learn();
        ObjectNode root = json.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        for (int i = 0; i < SPECIAL_TOKENS.size(); i++) {
            ObjectNode t = added.addObject();
            t.put("id", BEGIN_OF_TEXT + i);
            t.put("content", SPECIAL_TOKENS.get(i));
            t.put("single_word", false);
            t.put("lstrip", false);
            t.put("rstrip", false);
            t.put("normalized", false);
            t.put("special", true);
        }
        root.putNull("normalizer");
        ObjectNode pre = root.putObject("pre_tokenizer");
        pre.put("type", "ByteLevel");
        pre.put("add_prefix_space", false);
        pre.put("trim_offsets", true);
        pre.put("use_regex", true);
        ObjectNode post = root.putObject("post_processor");
        post.put("type", "TemplateProcessing");
        ArrayNode single = post.putArray("single");
        single.addObject().putObject("SpecialToken").put("id", SPECIAL_TOKENS.get(0)).put("type_id", 0);
        single.addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        ArrayNode pair = post.putArray("pair");
        pair.addObject().putObject("SpecialToken").put("id", SPECIAL_TOKENS.get(0)).put("type_id", 0);
        pair.addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        pair.addObject().putObject("SpecialToken").put("id", SPECIAL_TOKENS.get(0)).put("type_id", 1);
        pair.addObject().putObject("Sequence").put("id", "B").put("type_id", 1);
        ObjectNode special = post.putObject("special_tokens").putObject(SPECIAL_TOKENS.get(0));
        special.put("id", SPECIAL_TOKENS.get(0));
        special.putArray("ids").add(BEGIN_OF_TEXT);
        special.putArray("tokens").add(SPECIAL_TOKENS.get(0));
        ObjectNode decoder = root.putObject("decoder");
        decoder.put("type", "ByteLevel");
        decoder.put("add_prefix_space", true);
        decoder.put("trim_offsets", true);
        decoder.put("use_regex", true);
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", false);
        model.put("byte_fallback", false);
        model.put("ignore_merges", false);
        ObjectNode vocab = model.putObject("vocab");
        for (int i = 0; i < bpe.vocab().size(); i++) {
            vocab.put(bpe.vocab().get(i), i);
        }
        for (int i = 0; i < SPECIAL_TOKENS.size(); i++) {
            vocab.put(SPECIAL_TOKENS.get(i), BEGIN_OF_TEXT + i);
        }
        ArrayNode merges = model.putArray("merges");
        for (String[] mg : bpe.merges()) {
            merges.add(mg[0] + " " + mg[1]);
        }
        return root;
    }

    static ObjectNode tokenizerConfig(ObjectMapper json) {
        ObjectNode c = json.createObjectNode();
        c.put("add_bos_token", true);
        c.put("add_eos_token", false);
        ObjectNode decoderMap = c.putObject("added_tokens_decoder");
        for (int i = 0; i < SPECIAL_TOKENS.size(); i++) {
            ObjectNode t = decoderMap.putObject(String.valueOf(BEGIN_OF_TEXT + i));
            t.put("content", SPECIAL_TOKENS.get(i));
            t.put("lstrip", false);
            t.put("normalized", false);
            t.put("rstrip", false);
            t.put("single_word", false);
            t.put("special", true);
        }
        c.put("bos_token", SPECIAL_TOKENS.get(0));
        c.put("chat_template", CHAT_TEMPLATE);
        c.put("clean_up_tokenization_spaces", true);
        c.put("eos_token", SPECIAL_TOKENS.get(4));
        c.putArray("model_input_names").add("input_ids").add("attention_mask");
        c.put("model_max_length", 2048);
        c.put("tokenizer_class", "PreTrainedTokenizerFast");
        return c;
    }
}
