package dev.ladder.pipeline.oracle;

import dev.ladder.inference.CallTag;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.Completion;
import dev.ladder.inference.FinishReason;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.sql.Dialect;
import dev.ladder.sql.schema.Schema;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The oracle engine: a {@link LanguageModel} that answers every call from the gold SQL of the item being asked, in the
 * form the call asks for, with seeded format and semantic noise ({@link OracleNoise}). It is a measuring instrument,
 * never a model result: it shows what a pipeline does to a perfect answer (noise none) and what it recovers (noise on).
 *
 * <p>A call says what it asks for through its {@link CallTag} (kind, item, facts); the answer for each kind comes from
 * the {@link OracleTeacher} that declares it (a pipeline teaches the oracle its calls in its own package and lists
 * its teachers in its plugin: {@code Pipelines.registry().oracleTeachers()}). The answer is then cut as an engine cuts it: at a stop string, or at the token budget
 * (tokens counted as words and punctuation marks, about what a BPE tokenizer makes of SQL).
 */
public final class OracleModel implements LanguageModel {

    /** The engine's name in experiment files and on the command line. */
    public static final String ENGINE = "oracle";
    /** What every table and page says of rows this engine produced. */
    public static final String DISCLAIMER = "oracle engine: answers written from the gold SQL with seeded noise; a measuring instrument, not a model result";

    private static final Pattern TOKEN = Pattern.compile("\\s*(?:\\w+|[^\\w\\s])|\\s+");

    private final OracleNoise noise;
    private final OracleKey key;
    private final Schema schema;
    private final Dialect dialect;
    private final PromptFormat format;
    private final Map<String, OracleTeacher> teachers;

    /** An oracle answering with these teachers (normally every registered pipeline's), in the Llama-3 chat format. */
    public OracleModel(OracleNoise noise, OracleKey key, Schema schema, Dialect dialect, List<OracleTeacher> teachers) {
        this(noise, key, schema, dialect, PromptFormats.byName("llama3-chat"), teachers);
    }

    /** An oracle with these teachers and prompt format. */
    public OracleModel(OracleNoise noise, OracleKey key, Schema schema, Dialect dialect, PromptFormat format,
                       List<OracleTeacher> teachers) {
        this.noise = noise;
        this.key = key;
        this.schema = schema;
        this.dialect = dialect;
        this.format = format;
        Map<String, OracleTeacher> byKind = new HashMap<>();
        for (OracleTeacher t : teachers) {
            for (String kind : t.kinds()) {
                OracleTeacher before = byKind.put(kind, t);
                if (before != null && before.getClass() != t.getClass()) {
                    throw new IllegalStateException("call kind '" + kind + "' is taught twice: by "
                            + before.getClass().getName() + " and " + t.getClass().getName());
                }
            }
        }
        this.teachers = Collections.unmodifiableMap(byKind);
    }

    /** The call kinds this oracle can answer. */
    public Set<String> kinds() {
        return new TreeSet<>(teachers.keySet());
    }

    public OracleNoise noise() {
        return noise;
    }

    @Override
    public List<Completion> generate(List<GenerationRequest> requests) {
        List<Completion> out = new ArrayList<>(requests.size());
        for (GenerationRequest r : requests) out.add(answer(r));
        return out;
    }

    private Completion answer(GenerationRequest r) {
        CallTag tag = r.tag();
        if (tag == null || tag.item().isEmpty()) {
            throw new IllegalArgumentException("the oracle answers only calls that say their kind and benchmark item"
                    + " (a pipeline's Work.generate does); this request says " + (tag == null ? "nothing" : "no item"));
        }
        OracleTeacher teacher = teachers.get(tag.kind());
        if (teacher == null) {
            throw new IllegalArgumentException("the oracle has no answer for calls of kind '" + tag.kind()
                    + "' (known: " + String.join(", ", kinds()) + "); a pipeline teaches it its calls with an OracleTeacher");
        }
        String gold = key.gold(tag.item()).orElseThrow(() -> new IllegalArgumentException(
                "the oracle has no gold for item '" + tag.item() + "'"));
        String prompt = r.prompt() == null ? "" : r.prompt();
        String promptHash = hash(prompt);
        boolean sampled = r.sampling().temperature() > 0;
        List<Candidate> candidates = new ArrayList<>();
        for (int j = 0; j < r.n(); j++) {
            // the same (item, call, seed, candidate) draws the same noise; greedy candidates are all the same answer
            int candidate = sampled ? j : 0;
            Random semantic = new Random(seedOf("semantic", tag.item(), tag.kind(), promptHash, r.seed(), candidate));
            Random formatDraw = new Random(seedOf("format", tag.item(), tag.kind(), promptHash, r.seed(), candidate));
            OracleCall call = new OracleCall(tag, prompt, gold, schema, dialect, key, noise, semantic);
            OracleTeacher.Reply reply = teacher.answer(call);
            String text = reply.text();
            boolean truncate = false;
            if (noise.format() > 0 && formatDraw.nextDouble() < noise.format()) {
                List<FormatNoise> fitting = new ArrayList<>();
                for (FormatNoise f : FormatNoise.values()) if (noise.formats().contains(f) && f.fits(reply.shape())) fitting.add(f);
                if (!fitting.isEmpty()) {
                    FormatNoise f = fitting.get(formatDraw.nextInt(fitting.size()));
                    call.note(FORMAT + f.label());
                    truncate = f == FormatNoise.TRUNCATED;
                    text = f.apply(text, reply.shape(), prompt, formatDraw);
                }
            }
            candidates.add(cut(text, r, truncate ? 0.4 + 0.5 * formatDraw.nextDouble() : 1.0, call.notes()));
        }
        return new Completion(candidates, tokens(prompt).size(), 0, 0);
    }

    /** How a note names a semantic defect ({@code semantic wrong_column (...)}) and a format one ({@code format fence}). */
    static final String SEMANTIC = "semantic ";
    static final String FORMAT = "format ";

    /**
     * Whether a trace's note on an output ({@code "sample-2: semantic wrong_column (...); format fence"}) says the
     * output carried a corrupted statement ({@code semantic}) or a format defect ({@code format}).
     */
    public static boolean notes(String traceNote, String kind) {
        String prefix = kind.equals("semantic") ? SEMANTIC : kind.equals("format") ? FORMAT : null;
        if (prefix == null) throw new IllegalArgumentException("kind is semantic or format, got " + kind);
        String body = traceNote.substring(traceNote.indexOf(": ") + 2);
        for (String part : body.split("; ")) if (part.startsWith(prefix)) return true;
        return false;
    }

    /** The text cut at the first stop string, at the token budget, or at {@code keep} of its tokens (truncation noise). */
    private static Candidate cut(String text, GenerationRequest r, double keep, List<String> notes) {
        FinishReason finish = FinishReason.STOP_TOKEN;
        int stopAt = -1;
        for (String s : r.stopStrings()) {
            int i = text.indexOf(s);
            if (i >= 0 && (stopAt < 0 || i < stopAt)) stopAt = i;
        }
        if (stopAt >= 0) {
            text = text.substring(0, stopAt);
            finish = FinishReason.STOP_STRING;
        }
        List<String> pieces = tokens(text);
        int budget = r.maxNewTokens();
        if (keep < 1.0) budget = Math.min(budget, Math.max(1, (int) (pieces.size() * keep)));
        if (pieces.size() > budget) {
            pieces = pieces.subList(0, budget);
            text = String.join("", pieces);
            finish = FinishReason.LENGTH;
        }
        List<Integer> ids = new ArrayList<>(pieces.size());
        List<Float> logProbs = new ArrayList<>(pieces.size());
        for (String p : pieces) {
            ids.add(p.strip().hashCode() & 0x7fffffff);
            logProbs.add(0f);
        }
        return new Candidate(text, ids, logProbs, finish, notes.isEmpty() ? null : String.join("; ", notes));
    }

    /** The text as the oracle counts tokens: words and punctuation marks with the spaces before them. */
    static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = TOKEN.matcher(text);
        while (m.find()) out.add(m.group());
        return out;
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 8; i++) b.append(String.format("%02x", d[i]));
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private long seedOf(String stream, String item, String kind, String promptHash, long requestSeed, int candidate) {
        String h = hash(stream + "\u0000" + noise.seed() + "\u0000" + item + "\u0000" + kind + "\u0000" + promptHash
                + "\u0000" + requestSeed + "\u0000" + candidate);
        return Long.parseUnsignedLong(h, 16);
    }

    @Override
    public String name() {
        return "oracle[" + noise.label() + "]";
    }

    @Override
    public PromptFormat promptFormat() {
        return format;
    }

    @Override
    public void close() {
        // nothing held
    }
}
