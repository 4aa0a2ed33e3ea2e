package dev.ladder.inference.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.inference.model.ModelException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A model's tokenizer: DJL's {@link HuggingFaceTokenizer} over the model directory's {@code tokenizer.json}, set up
 * the way a generation loop needs it.
 *
 * <ul>
 *   <li><b>No truncation, no padding.</b> DJL truncates to 512 tokens unless told otherwise; here every token of the
 *       text comes back, whatever its length.</li>
 *   <li><b>No special tokens added.</b> {@link #encode} never prepends BOS (even when {@code tokenizer.json}'s
 *       post-processor would); the {@link dev.ladder.inference.PromptFormat} writes {@code <|begin_of_text|>} itself.
 *       Special-token strings present in the text (e.g. {@code <|eot_id|>}) do map to their ids.</li>
 *   <li><b>Lossless decode.</b> Decoding is the {@code tokenizer.json} decoder and nothing else: transformers'
 *       {@code clean_up_tokenization_spaces} is not applied (it would turn {@code a ,b} into {@code a,b} in SQL), so
 *       {@code decode(encode(x)).equals(x)} for byte-level BPE tokenizers such as Llama 3's.</li>
 * </ul>
 *
 * BOS/EOS come from {@code tokenizer_config.json} ({@code bos_token}, {@code eos_token}) and
 * {@code generation_config.json} ({@code eos_token_id}) when the directory has them; see {@link #eosIds()}.
 *
 * <p>Thread-safe for encode/decode; {@link #close()} frees the native tokenizer, after which every call fails.
 */
public final class Tokenizer implements AutoCloseable {

    /** The file name DJL and HF use. */
    public static final String TOKENIZER_JSON = "tokenizer.json";

    /** End-of-turn/end-of-text tokens that stop generation whenever the vocabulary has them as special tokens. */
    private static final List<String> KNOWN_EOS = List.of("<|eot_id|>", "<|eom_id|>", "<|end_of_text|>");

    /** BOS tokens looked for when {@code tokenizer_config.json} names none. */
    private static final List<String> KNOWN_BOS = List.of("<|begin_of_text|>", "<s>");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;
    private final HuggingFaceTokenizer hf;
    private final Map<String, Integer> tokenToId;
    private final BitSet special;
    private final int vocabSize;
    private final Integer bosId;
    private final List<Integer> eosIds;
    private volatile boolean closed;

    private Tokenizer(Path path, HuggingFaceTokenizer hf, Map<String, Integer> tokenToId, BitSet special,
                      int vocabSize, Integer bosId, List<Integer> eosIds) {
        this.path = path;
        this.hf = hf;
        this.tokenToId = tokenToId;
        this.special = special;
        this.vocabSize = vocabSize;
        this.bosId = bosId;
        this.eosIds = eosIds;
    }

    /**
     * Loads {@code modelDir/tokenizer.json} (a path to the json file itself works too; then its folder is the model
     * directory), plus {@code tokenizer_config.json} and {@code generation_config.json} next to it when present.
     *
     * @throws ModelException one line naming the path: missing or unreadable file, malformed JSON, not a tokenizer
     */
    public static Tokenizer load(Path modelDir) {
        Objects.requireNonNull(modelDir, "modelDir");
        Path file = Files.isRegularFile(modelDir) ? modelDir : modelDir.resolve(TOKENIZER_JSON);
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isRegularFile(file)) {
            throw new ModelException("missing " + TOKENIZER_JSON + ": " + file
                    + (Files.isDirectory(modelDir) ? "" : " (no such model directory)"));
        }
        String json;
        try {
            json = Files.readString(file);
        } catch (IOException e) {
            throw new ModelException("cannot read " + file + ": " + e, e);
        }

        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JacksonException e) {
            throw new ModelException("malformed " + TOKENIZER_JSON + " at " + file + ": " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject() || !root.path("model").isObject()) {
            throw new ModelException("malformed " + TOKENIZER_JSON + " at " + file + ": no \"model\" object");
        }

        Map<String, Integer> tokenToId = new HashMap<>(256 * 1024);
        BitSet special = new BitSet();
        int maxId = readVocab(root.path("model").path("vocab"), tokenToId, file);
        for (JsonNode added : root.path("added_tokens")) {
            if (!added.path("id").canConvertToInt() || !added.path("content").isTextual()) {
                throw new ModelException("malformed " + TOKENIZER_JSON + " at " + file
                        + ": added_tokens entry without id/content: " + added);
            }
            int id = added.path("id").intValue();
            tokenToId.put(added.path("content").textValue(), id);
            if (added.path("special").asBoolean(false)) {
                special.set(id);
            }
            maxId = Math.max(maxId, id);
        }
        root = null; // the tree of a 9 MB file is not needed any more

        HfTokenizerConfig config = HfTokenizerConfig.read(dir);
        Integer bos = resolveBos(config, tokenToId, special);
        List<Integer> eos = resolveEos(config, tokenToId, special, maxId + 1);

        Map<String, String> options = Map.of(
                "addSpecialTokens", "false",
                "withOverflowingTokens", "false",
                "truncation", "false",
                "padding", "false");
        HuggingFaceTokenizer hf;
        try {
            // from a stream, so DJL does not apply its own reading of tokenizer_config.json (model_max_length etc.)
            hf = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), options);
        } catch (IOException | RuntimeException e) {
            throw new ModelException(TOKENIZER_JSON + " at " + file + " cannot be loaded by HuggingFace tokenizers: "
                    + e.getMessage(), e);
        }
        if (!"DO_NOT_TRUNCATE".equals(hf.getTruncation())) {
            hf.close();
            throw new IllegalStateException("DJL tokenizer for " + file + " truncates (" + hf.getTruncation() + ")");
        }
        return new Tokenizer(file, hf, Map.copyOf(tokenToId), special, maxId + 1, bos, eos);
    }

    private static int readVocab(JsonNode vocab, Map<String, Integer> tokenToId, Path file) {
        int maxId = -1;
        if (vocab.isObject()) { // BPE, WordPiece, WordLevel: {"token": id}
            for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                int id = e.getValue().intValue();
                tokenToId.put(e.getKey(), id);
                maxId = Math.max(maxId, id);
            }
        } else if (vocab.isArray()) { // Unigram: [["piece", score], ...], id = position
            int id = 0;
            for (JsonNode piece : vocab) {
                tokenToId.put(piece.path(0).asText(), id);
                maxId = id++;
            }
        } else {
            throw new ModelException("malformed " + TOKENIZER_JSON + " at " + file + ": model has no vocab");
        }
        return maxId;
    }

    private static Integer resolveBos(HfTokenizerConfig config, Map<String, Integer> ids, BitSet special) {
        if (config.bosToken() != null) {
            return ids.get(config.bosToken());
        }
        for (String t : KNOWN_BOS) {
            Integer id = ids.get(t);
            if (id != null && special.get(id)) {
                return id;
            }
        }
        return null;
    }

    private static List<Integer> resolveEos(HfTokenizerConfig config, Map<String, Integer> ids, BitSet special,
                                            int vocabSize) {
        Set<Integer> eos = new LinkedHashSet<>();
        if (config.eosToken() != null && ids.containsKey(config.eosToken())) {
            eos.add(ids.get(config.eosToken()));
        }
        for (int id : config.generationEosIds()) {
            if (id >= 0 && id < vocabSize) {
                eos.add(id);
            }
        }
        for (String t : KNOWN_EOS) {
            Integer id = ids.get(t);
            if (id != null && special.get(id)) {
                eos.add(id);
            }
        }
        if (eos.isEmpty()) {
            Integer id = ids.get("</s>");
            if (id != null) {
                eos.add(id);
            }
        }
        return List.copyOf(eos);
    }

    /**
     * The ids of {@code text}, all of them (no truncation), with no BOS/EOS added. Special-token strings in the text
     * become their ids.
     */
    public int[] encode(String text) {
        Objects.requireNonNull(text, "text");
        checkOpen();
        if (text.isEmpty()) {
            return new int[0];
        }
        Encoding encoding = hf.encode(text, false, false);
        if (encoding.exceedMaxLength()) {
            throw new IllegalStateException("tokenizer " + path + " truncated the input");
        }
        long[] ids = encoding.getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = Math.toIntExact(ids[i]);
        }
        return out;
    }

    /** The text of {@code ids}, special tokens kept as their strings (so {@code decode(encode(x)).equals(x)}). */
    public String decode(int[] ids) {
        return decode(ids, false);
    }

    /**
     * The text of {@code ids}; with {@code skipSpecialTokens} the special tokens ({@code <|eot_id|>} ...) are left
     * out. A byte sequence that is not complete UTF-8 (a token sequence cut inside a character) decodes to U+FFFD.
     *
     * @throws IllegalArgumentException for an id outside {@code [0, vocabSize())}
     */
    public String decode(int[] ids, boolean skipSpecialTokens) {
        Objects.requireNonNull(ids, "ids");
        return decodeRange(ids, ids.length, skipSpecialTokens);
    }

    /** {@link #decode(int[])} for a list. */
    public String decode(List<Integer> ids) {
        return decode(ids, false);
    }

    /** {@link #decode(int[], boolean)} for a list. */
    public String decode(List<Integer> ids, boolean skipSpecialTokens) {
        Objects.requireNonNull(ids, "ids");
        int[] array = new int[ids.size()];
        for (int i = 0; i < array.length; i++) {
            array[i] = ids.get(i);
        }
        return decode(array, skipSpecialTokens);
    }

    /** Decodes {@code ids[0, length)}. */
    String decodeRange(int[] ids, int length, boolean skipSpecialTokens) {
        checkOpen();
        if (length == 0) {
            return "";
        }
        long[] longs = new long[length];
        for (int i = 0; i < length; i++) {
            int id = ids[i];
            if (id < 0 || id >= vocabSize) {
                throw new IllegalArgumentException("token id " + id + " at position " + i
                        + " is outside the vocabulary [0, " + vocabSize + ") of " + path);
            }
            longs[i] = id;
        }
        return hf.decode(longs, skipSpecialTokens);
    }

    /**
     * A fresh incremental detokenizer for one generated sequence (streaming, stop strings).
     *
     * @param skipSpecialTokens whether its text leaves special tokens out
     */
    public IncrementalDetokenizer detokenizer(boolean skipSpecialTokens) {
        return new IncrementalDetokenizer(this, skipSpecialTokens);
    }

    /**
     * The id of a vocabulary entry or added token written as it is stored in {@code tokenizer.json}
     * (e.g. {@code <|eot_id|>}, or {@code Ġname} for byte-level BPE), or null if there is none.
     */
    public Integer tokenId(String token) {
        return tokenToId.get(token);
    }

    /** Whether {@code id} is an added token marked special (BOS, EOS, headers, reserved tokens). */
    public boolean isSpecial(int id) {
        return id >= 0 && special.get(id);
    }

    /** Highest id of the vocabulary and the added tokens plus one (128,256 for Llama 3). */
    public int vocabSize() {
        return vocabSize;
    }

    /** The BOS id: {@code bos_token} of {@code tokenizer_config.json}, else {@code <|begin_of_text|>} or {@code <s>}. */
    public OptionalInt bosId() {
        return bosId == null ? OptionalInt.empty() : OptionalInt.of(bosId);
    }

    /**
     * Ids that end a generation, in this order and without repeats: {@code eos_token} of
     * {@code tokenizer_config.json}; {@code eos_token_id} of {@code generation_config.json}; and whichever of
     * {@code <|eot_id|>}, {@code <|eom_id|>}, {@code <|end_of_text|>} the vocabulary has as special tokens (the
     * first Llama-3-Instruct release named only {@code <|end_of_text|>} as EOS although turns end with
     * {@code <|eot_id|>}; a base model never produces {@code <|eot_id|>}, so listing it costs nothing).
     * Falls back to {@code </s>}. May be empty.
     */
    public List<Integer> eosIds() {
        return eosIds;
    }

    /** The {@code tokenizer.json} this was loaded from. */
    public Path path() {
        return path;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("tokenizer " + path + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            hf.close();
        }
    }

    @Override
    public String toString() {
        return "Tokenizer[" + path + ", vocab " + vocabSize + ", bos " + bosId + ", eos " + eosIds + "]";
    }

    static int[] grow(int[] array, int minCapacity) {
        return minCapacity <= array.length ? array : Arrays.copyOf(array, Math.max(minCapacity, array.length * 2));
    }
}
