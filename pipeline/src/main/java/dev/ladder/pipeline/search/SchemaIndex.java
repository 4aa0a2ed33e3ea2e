package dev.ladder.pipeline.search;

import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.kit.Names;
import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A database's tables, columns and foreign-key edges as sentence embeddings, for retrieval by meaning: each table is
 * embedded as its name's words followed by its columns' words, each column as its table's words, its own words and its
 * type, each edge as {@code orders customer number refers to customers customer number}. Names
 * are split into words by {@link Names#parts} (the agent's one splitter), so {@code salesRepEmployeeNumber} reads as
 * "sales rep employee number".
 *
 * <p>Built once per database: {@link #cached} keeps the vectors in a file named by the schema's fingerprint (tables,
 * columns, types, keys) and the text version, and reads it back instead of embedding again.
 */
public final class SchemaIndex {

    /** Part of the cache file's name: a change to how texts are written never reuses old vectors. */
    static final int TEXT_VERSION = 2;
    private static final int MAGIC = 0x4C445349; // "LDSI"

    /**
     * One embedded piece of the schema: a table, a column, or a foreign-key edge.
     *
     * @param column null for a table or an edge
     * @param edge   a foreign-key edge's join condition ({@code table} is its referencing table); null otherwise
     */
    public record Entry(String table, String column, String edge, String text, float[] vector) {}

    /** A retrieved table, column or edge and its cosine similarity to the query. */
    public record Hit(String table, String column, String edge, double score) {}

    private final String fingerprint;
    private final List<Entry> entries;

    private SchemaIndex(String fingerprint, List<Entry> entries) {
        this.fingerprint = fingerprint;
        this.entries = List.copyOf(entries);
    }

    /** Embeds every table and column now. */
    public static SchemaIndex build(Schema schema, SentenceEmbedder embedder) {
        return build(schema, embedder, null);
    }

    /**
     * @param values sample values by lower-case {@code table.column}; null: texts without row counts and values
     */
    public static SchemaIndex build(Schema schema, SentenceEmbedder embedder, Map<String, List<String>> values) {
        List<Entry> out = new ArrayList<>();
        for (Table t : schema.tables()) {
            String tt = tableText(t) + (values == null ? "" : " (" + t.rowCount() + " rows)");
            out.add(new Entry(t.name(), null, null, tt, embedder.embed(tt)));
            for (Column c : t.columns()) {
                String ct = columnText(t, c);
                List<String> samples = values == null ? null
                        : values.get((t.name() + "." + c.name()).toLowerCase(Locale.ROOT));
                if (samples != null && !samples.isEmpty()) ct += ", e.g. " + String.join(", ", samples);
                out.add(new Entry(t.name(), c.name(), null, ct, embedder.embed(ct)));
            }
        }
        for (JoinGraph.Edge e : new JoinGraph(schema).edgesAmong(schema.tables().stream().map(Table::name).toList())) {
            String et = edgeText(e);
            out.add(new Entry(e.from(), null, e.condition(), et, embedder.embed(et)));
        }
        return new SchemaIndex(fingerprint(schema, values), out);
    }

    /**
     * The index of {@code schema}, read from {@code dir} when an earlier build stored it there, else built and stored
     * (written to a temporary file and moved into place, so a concurrent reader never sees half a file).
     */
    public static SchemaIndex cached(Schema schema, SentenceEmbedder embedder, Path dir) {
        return cached(schema, embedder, dir, null);
    }

    /** {@link #cached(Schema, SentenceEmbedder, Path)} with sample values (see {@link #build(Schema, SentenceEmbedder, Map)}). */
    public static SchemaIndex cached(Schema schema, SentenceEmbedder embedder, Path dir, Map<String, List<String>> values) {
        String print = fingerprint(schema, values);
        Path file = dir.resolve("schema-index-" + schema.database().replaceAll("[^A-Za-z0-9_.-]", "_") + "-"
                + print.substring(0, 16) + ".bin");
        if (Files.isRegularFile(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                SchemaIndex read = read(in);
                if (read.fingerprint.equals(print)) return read;
            } catch (IOException | RuntimeException unreadable) {
                // rebuilt below
            }
        }
        SchemaIndex built = build(schema, embedder, values);
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "schema-index", ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                built.write(out);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // a cache that cannot be written costs time, not correctness
        }
        return built;
    }

    static String words(String identifier) {
        return String.join(" ", Names.parts(identifier));
    }

    static String tableText(Table t) {
        return words(t.name()) + ": " + t.columns().stream().map(c -> words(c.name())).collect(Collectors.joining(", "));
    }

    /** {@code orders customer number refers to customers customer number}. */
    static String edgeText(JoinGraph.Edge e) {
        List<String> from = new ArrayList<>();
        List<String> to = new ArrayList<>();
        e.fromColumns().forEach(c -> from.add(words(c)));
        e.toColumns().forEach(c -> to.add(words(c)));
        return words(e.from()) + " " + String.join(" and ", from) + " refers to " + words(e.to()) + " "
                + String.join(" and ", to);
    }

    static String columnText(Table t, Column c) {
        return words(t.name()) + " " + words(c.name()) + " (" + c.type().toLowerCase(Locale.ROOT) + ")";
    }

    /** What the vectors depend on: every table, column, type and key, and how texts are written. */
    static String fingerprint(Schema schema) {
        return fingerprint(schema, null);
    }

    static String fingerprint(Schema schema, Map<String, List<String>> values) {
        StringBuilder sb = new StringBuilder("v" + TEXT_VERSION + "\n");
        if (values != null) {
            sb.append("values\n");
            schema.tables().forEach(t -> sb.append(t.name()).append(' ').append(t.rowCount()).append('\n'));
            new TreeMap<>(values).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        }
        for (Table t : schema.tables()) {
            sb.append(t.name()).append('\n');
            for (Column c : t.columns()) sb.append(' ').append(c.name()).append(' ').append(c.type()).append('\n');
        }
        schema.foreignKeys().forEach(fk -> sb.append(fk.describe()).append('\n'));
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public List<Entry> entries() {
        return entries;
    }

    /** Phase 1: the {@code k} tables most similar to the query, best first (ties by name). */
    public List<Hit> tables(float[] query, int k) {
        return rank(entries.stream().filter(e -> e.column() == null && e.edge() == null).toList(), query, k);
    }

    /** Phase 2: the {@code k} columns of {@code tables} most similar to the query, best first. */
    public List<Hit> columns(float[] query, Collection<String> tables, int k) {
        Set<String> within = tables.stream().map(t -> t.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        return rank(entries.stream().filter(e -> e.column() != null && within.contains(e.table().toLowerCase(Locale.ROOT)))
                .toList(), query, k);
    }

    /** The {@code k} foreign-key edges most similar to the query, best first. */
    public List<Hit> edges(float[] query, int k) {
        return rank(entries.stream().filter(e -> e.edge() != null).toList(), query, k);
    }

    private static List<Hit> rank(List<Entry> candidates, float[] query, int k) {
        return candidates.stream().map(e -> new Hit(e.table(), e.column(), e.edge(), SentenceEmbedder.cosine(query, e.vector())))
                .sorted(Comparator.comparingDouble(Hit::score).reversed().thenComparing(Hit::table)
                        .thenComparing(h -> h.column() == null ? "" : h.column())
                        .thenComparing(h -> h.edge() == null ? "" : h.edge()))
                .limit(k).toList();
    }

    void write(OutputStream raw) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw));
        out.writeInt(MAGIC);
        out.writeUTF(fingerprint);
        out.writeInt(entries.size());
        for (Entry e : entries) {
            out.writeUTF(e.table());
            out.writeBoolean(e.column() != null);
            if (e.column() != null) out.writeUTF(e.column());
            out.writeBoolean(e.edge() != null);
            if (e.edge() != null) out.writeUTF(e.edge());
            out.writeUTF(e.text());
            out.writeInt(e.vector().length);
            for (float f : e.vector()) out.writeFloat(f);
        }
        out.flush();
    }

    static SchemaIndex read(InputStream raw) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw));
        if (in.readInt() != MAGIC) throw new IOException("not a schema index");
        String print = in.readUTF();
        int n = in.readInt();
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String table = in.readUTF();
            String column = in.readBoolean() ? in.readUTF() : null;
            String edge = in.readBoolean() ? in.readUTF() : null;
            String text = in.readUTF();
            float[] v = new float[in.readInt()];
            for (int j = 0; j < v.length; j++) v[j] = in.readFloat();
            entries.add(new Entry(table, column, edge, text, v));
        }
        return new SchemaIndex(print, entries);
    }
}
