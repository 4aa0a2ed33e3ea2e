package dev.ladder.eval.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.common.StorePaths;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Completions stored by request: a SQLite file ({@code generation-cache.sqlite}) that any number of runs (and
 * processes) may share. Rows are keyed by the SHA-256 of a canonical JSON text of (model fingerprint, adapter
 * fingerprint, request) ({@link #key}); the completion is stored as JSON with every non-ASCII character escaped, so
 * text (even a lone surrogate), token ids, log-probs (bit-exact floats), finish reasons, prompt tokens and timings
 * come back exactly as stored. Writes are durable transactions (rollback journal, {@code synchronous=FULL}). When
 * two processes store the same key, the first row stays.
 */
public final class GenerationCache implements AutoCloseable {

    /** Default file name, under {@link StorePaths#cacheDir()} unless a run overrides it. */
    public static final String FILE_NAME = "generation-cache.sqlite";
    public static final int SCHEMA_VERSION = 1;
    /** {@code PRAGMA application_id} ("LDRC"). */
    static final int APPLICATION_ID = 0x4C445243;
    /** Version of the canonical key text; part of the text, so changing the rule never reuses old rows. */
    static final int KEY_VERSION = 1;

    // ASCII-only JSON: a Java string survives the round trip through SQLite's UTF-8 text byte for byte
    private static final JsonMapper JSON = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
    private static final int CHUNK = 500;

    private static final String SCHEMA = """
            CREATE TABLE completions (
              key          TEXT PRIMARY KEY,
              model        TEXT NOT NULL,
              adapter      TEXT NOT NULL,
              request      TEXT NOT NULL,
              completion   TEXT NOT NULL
            );
            CREATE INDEX completions_model ON completions (model, adapter);
            """;

    private final Path file;
    private final Connection db;

    private GenerationCache(Path file, Connection db) {
        this.file = file;
        this.db = db;
    }

    /** {@code <ladder cache>/generation-cache.sqlite}. */
    public static Path defaultFile() {
        return StorePaths.cacheDir().resolve(FILE_NAME);
    }

    /** Creates or opens a cache file. */
    public static GenerationCache open(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        Connection db = null;
        try {
            if (abs.getParent() != null) Files.createDirectories(abs.getParent());
            db = SqliteFiles.connect(abs, false);
            SqliteFiles.checkOrCreate(db, abs, "generation cache", APPLICATION_ID, SCHEMA_VERSION, SCHEMA);
            return new GenerationCache(abs, db);
        } catch (IOException | SQLException | RuntimeException e) {
            SqliteFiles.closeQuietly(db);
            if (e instanceof UserError u) throw u;
            throw WriteFailures.orElse(abs, e, new UserError("cannot open generation cache " + abs + ": " + e.getMessage(), e));
        }
    }

    public Path file() {
        return file;
    }

    /**
     * The canonical key text: a JSON object with fixed field order. The prompt text is left out when prompt ids are
     * given (the model ignores it then); stop ids are sorted (a set); stop strings keep their order.
     */
    public static String keyText(String modelFingerprint, String adapterFingerprint, GenerationRequest r) {
        ObjectNode k = JSON.createObjectNode();
        k.put("v", KEY_VERSION);
        k.put("model", modelFingerprint);
        k.put("adapter", adapterFingerprint);
        if (r.promptIds() != null) {
            k.putNull("prompt");
            ArrayNode ids = k.putArray("promptIds");
            r.promptIds().forEach(ids::add);
        } else {
            k.put("prompt", r.prompt());
            k.putNull("promptIds");
        }
        k.put("maxNewTokens", r.maxNewTokens());
        // + 0.0 folds -0.0 into 0.0, the same greedy setting
        k.put("temperature", r.sampling().temperature() + 0.0);
        k.put("topK", r.sampling().topK());
        k.put("topP", r.sampling().topP() + 0.0);
        k.put("n", r.n());
        k.put("seed", r.seed());
        ArrayNode stopIds = k.putArray("stopTokenIds");
        new TreeSet<>(r.stopTokenIds()).forEach(stopIds::add);
        ArrayNode stops = k.putArray("stopStrings");
        r.stopStrings().forEach(stops::add);
        try {
            return JSON.writeValueAsString(k);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SHA-256 of {@link #keyText}, as 64 lower-case hex digits. */
    public static String key(String modelFingerprint, String adapterFingerprint, GenerationRequest r) {
        return sha256(keyText(modelFingerprint, adapterFingerprint, r));
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The stored completions among {@code keys} (absent keys are left out). */
    public synchronized Map<String, Completion> getAll(Collection<String> keys) {
        Map<String, Completion> out = new HashMap<>();
        List<String> distinct = new ArrayList<>(new HashSet<>(keys));
        for (int from = 0; from < distinct.size(); from += CHUNK) {
            List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + CHUNK));
            String sql = "SELECT key, completion FROM completions WHERE key IN ("
                    + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")";
            try (PreparedStatement s = db.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) s.setString(i + 1, chunk.get(i));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) out.put(rs.getString(1), fromJson(rs.getString(2)));
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read generation cache " + file + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** One entry to store. */
    public record Entry(String key, String modelFingerprint, String adapterFingerprint, String keyText,
                        Completion completion) {}

    /** Stores entries in one durable transaction; a key already stored keeps its first completion. */
    public synchronized void putAll(List<Entry> entries) {
        if (entries.isEmpty()) return;
        try (Statement tx = db.createStatement()) {
            tx.execute("BEGIN IMMEDIATE");
            try (PreparedStatement s = db.prepareStatement("INSERT INTO completions (key, model, adapter, request, completion) "
                    + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING")) {
                for (Entry e : entries) {
                    s.setString(1, e.key());
                    s.setString(2, e.modelFingerprint());
                    s.setString(3, e.adapterFingerprint());
                    s.setString(4, e.keyText());
                    s.setString(5, toJson(e.completion()));
                    s.executeUpdate();
                }
                tx.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
                SqliteFiles.rollBack(tx, e);
                throw e;
            }
        } catch (SQLException e) {
            throw WriteFailures.orElse(file, e, new IllegalStateException("cannot write generation cache " + file + ": "
                    + e.getMessage(), e));
        }
    }

    /** Number of stored completions. */
    public synchronized long size() {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM completions")) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read generation cache " + file + ": " + e.getMessage(), e);
        }
    }

    static String toJson(Completion c) {
        try {
            return JSON.writeValueAsString(c);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Completion fromJson(String json) {
        try {
            return JSON.readValue(json, Completion.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() {
        SqliteFiles.closeQuietly(db);
    }
}
