package dev.ladder.pipeline.search;

import dev.ladder.pipeline.kit.JoinGraph;
import dev.ladder.pipeline.kit.SentenceEmbedder;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Stages 3 and 4: two-phase retrieval over the schema index for one question, and each candidate's evidence
 * package. Phase 1 recalls, for each candidate, the schema tables nearest to those its sketch predicts, then the tables
 * most similar to the question, {@link SearchSettings#tableK} in all; phase 2 aligns the
 * {@link SearchSettings#columnK} most similar columns within those and the candidate's own tables, and computes the
 * legal joins among them in the foreign-key graph; the foreign-key edges most similar to the question are recalled
 * beside the tables. Similarities are cosine similarities of sentence embeddings,
 * divided by the best of their kind for the question, so the evidence of the most relevant table (or column) is 1.
 */
final class Retrieval {

    private final Schema schema;
    private final SchemaIndex index;
    private final JoinGraph graph;
    private final SentenceEmbedder embedder;
    private final SearchSettings settings;
    private final float[] question;
    private final Map<String, Double> tableEvidence = new HashMap<>();   // lower table -> relative similarity
    private final Map<String, Double> columnEvidence = new HashMap<>();  // lower table.column -> relative similarity
    private final List<Evidence.Aligned> recalled = new ArrayList<>();
    private final List<Evidence.AlignedJoin> joinsForQuestion = new ArrayList<>();

    Retrieval(Schema schema, SchemaIndex index, JoinGraph graph, SentenceEmbedder embedder, SearchSettings settings,
              String questionText) {
        this.schema = schema;
        this.index = index;
        this.graph = graph;
        this.embedder = embedder;
        this.settings = settings;
        this.question = embedder.embed(questionText);
        List<SchemaIndex.Hit> tables = index.tables(question, Integer.MAX_VALUE);
        double best = tables.isEmpty() ? 1 : Math.max(1e-6, tables.get(0).score());
        for (SchemaIndex.Hit h : tables) {
            double rel = clamp(h.score() / best);
            tableEvidence.put(key(h.table()), rel);
            if (recalled.size() < settings.tableK()) recalled.add(new Evidence.Aligned(h.table(), null, round(rel)));
        }
        List<SchemaIndex.Hit> columns = index.columns(question, schema.tables().stream().map(t -> t.name()).toList(),
                Integer.MAX_VALUE);
        double bestColumn = columns.isEmpty() ? 1 : Math.max(1e-6, columns.get(0).score());
        List<SchemaIndex.Hit> edges = index.edges(question, settings.tableK());
        double bestEdge = edges.isEmpty() ? 1 : Math.max(1e-6, edges.get(0).score());
        for (SchemaIndex.Hit h : edges) joinsForQuestion.add(new Evidence.AlignedJoin(h.edge(), round(clamp(h.score() / bestEdge))));
        for (SchemaIndex.Hit h : columns) columnEvidence.put(key(h.table()) + "." + key(h.column()), clamp(h.score() / bestColumn));
    }

    /** Phase 1's tables, best first. */
    List<String> recalledTables() {
        return recalled.stream().map(Evidence.Aligned::table).toList();
    }

    /**
     * The evidence package of a candidate whose SQL binds as {@code b} and whose sketch predicts the tables
     * {@code predicted} (names as the model wrote them, in the schema or not).
     */
    Evidence evidence(String source, SchemaBinding b, List<String> predicted) {
        List<String> used = b.tables();
        List<Evidence.Aligned> recalledHere = recalledFor(predicted);
        Set<String> inPlay = new LinkedHashSet<>(used);
        recalledHere.forEach(a -> inPlay.add(a.table()));
        JoinGraph.Connection connection = graph.connect(inPlay);
        List<String> allowed = graph.edgesAmong(connection.tables()).stream().map(JoinGraph.Edge::condition).toList();

        List<Evidence.Aligned> aligned = index.columns(question, inPlay, settings.columnK()).stream()
                .map(h -> new Evidence.Aligned(h.table(), h.column(), round(columnEvidence.getOrDefault(
                        key(h.table()) + "." + key(h.column()), 0.0))))
                .toList();

        List<Evidence.TableHit> tables = new ArrayList<>();
        for (String t : used) tables.add(new Evidence.TableHit(t, true, round(tableEvidence.getOrDefault(key(t), 0.0))));
        for (String t : b.unknownTables()) tables.add(new Evidence.TableHit(t, false, 0));

        Set<String> joinKeys = new LinkedHashSet<>();
        List<Evidence.JoinHit> joins = new ArrayList<>();
        for (SchemaBinding.ColumnPair p : b.equalities()) {
            joinKeys.add(key(p.left().table()) + "." + key(p.left().column()));
            joinKeys.add(key(p.right().table()) + "." + key(p.right().column()));
            boolean legal = graph.followsKey(p.left().table(), p.left().column(), p.right().table(), p.right().column());
            joins.add(new Evidence.JoinHit(p.left().table() + "." + p.left().column() + " = " + p.right().table() + "."
                    + p.right().column(), legal, legal ? 1 : 0));
        }
        List<Evidence.ColumnHit> columns = new ArrayList<>();
        for (SchemaBinding.BoundColumn c : b.columns()) {
            String k = key(c.table()) + "." + key(c.column());
            if (joinKeys.contains(k)) continue;
            columns.add(new Evidence.ColumnHit(c.table(), c.column(), true, round(columnEvidence.getOrDefault(k, 0.0))));
        }
        if (columns.isEmpty()) {
            for (SchemaBinding.BoundColumn c : b.columns()) {
                String k = key(c.table()) + "." + key(c.column());
                columns.add(new Evidence.ColumnHit(c.table(), c.column(), true, round(columnEvidence.getOrDefault(k, 0.0))));
            }
        }
        List<Evidence.Replacement> replacements = new ArrayList<>();
        for (SchemaBinding.UnknownColumn u : b.unknownColumns()) {
            String written = u.qualifier() == null ? u.column() : u.qualifier() + "." + u.column();
            columns.add(new Evidence.ColumnHit(u.qualifier(), u.column(), false, 0));
            nearestColumn(written, inPlay).ifPresent(replacements::add);
        }
        for (String t : b.unknownTables()) nearestTable(t).ifPresent(replacements::add);

        return new Evidence(source, recalledHere, aligned, List.copyOf(joinsForQuestion), tables, columns, joins, replacements,
                joinSuggestions(used, b.equalities()), allowed,
                round(average(tables.stream().map(Evidence.TableHit::score).toList(), 0)),
                round(average(columns.stream().map(Evidence.ColumnHit::score).toList(), 0)),
                round(average(joins.stream().map(Evidence.JoinHit::score).toList(), 1)));
    }

    /**
     * Phase 1 for one candidate: the schema table nearest to each table its sketch predicts, in the order predicted,
     * then the question's best tables up to {@link SearchSettings#tableK} (the question's alone when
     * {@link SearchSettings#sketchRecall} is off). A predicted name the schema has is its own nearest table.
     */
    private List<Evidence.Aligned> recalledFor(List<String> predicted) {
        if (!settings.sketchRecall()) return List.copyOf(recalled);
        Map<String, Evidence.Aligned> out = new LinkedHashMap<>();
        for (String name : predicted) {
            if (out.size() >= settings.tableK()) break;
            String table = schema.table(name).map(t -> t.name()).orElseGet(() -> {
                List<SchemaIndex.Hit> hits = index.tables(embedder.embed(SchemaIndex.words(name)), 1);
                return hits.isEmpty() ? null : hits.get(0).table();
            });
            if (table != null) {
                out.putIfAbsent(key(table), new Evidence.Aligned(table, null, round(tableEvidence.getOrDefault(key(table), 0.0))));
            }
        }
        for (Evidence.Aligned a : recalled) {
            if (out.size() >= settings.tableK()) break;
            out.putIfAbsent(key(a.table()), a);
        }
        return List.copyOf(out.values());
    }

    /**
     * Tables the candidate reads that its equalities leave apart from the first table's group: for each, the shortest
     * foreign-key path to that group (a table read only inside a subquery may need none; this is advice).
     */
    private List<Evidence.JoinSuggestion> joinSuggestions(List<String> used, List<SchemaBinding.ColumnPair> equalities) {
        List<String> apart = JoinGraph.apart(used, equalities);
        List<String> group = used.stream().filter(t -> !apart.contains(t)).toList();
        List<Evidence.JoinSuggestion> out = new ArrayList<>();
        for (String t : apart) {
            List<JoinGraph.Edge> best = null;
            String to = null;
            for (String g : group) {
                var p = graph.shortestPath(g, t);
                if (p.isPresent() && (best == null || p.get().size() < best.size())) {
                    best = p.get();
                    to = g;
                }
            }
            out.add(new Evidence.JoinSuggestion(t, to == null ? group.get(0) : to,
                    best == null ? List.of() : best.stream().map(JoinGraph.Edge::condition).toList()));
        }
        return out;
    }

    private Optional<Evidence.Replacement> nearestColumn(String written, Collection<String> tables) {
        List<SchemaIndex.Hit> hits = index.columns(embedder.embed(SchemaIndex.words(written.replace('.', ' '))), tables, 1);
        if (hits.isEmpty()) return Optional.empty();
        SchemaIndex.Hit h = hits.get(0);
        return Optional.of(new Evidence.Replacement(written, h.table() + "." + h.column(), round(h.score())));
    }

    private Optional<Evidence.Replacement> nearestTable(String written) {
        List<SchemaIndex.Hit> hits = index.tables(embedder.embed(SchemaIndex.words(written)), 1);
        if (hits.isEmpty()) return Optional.empty();
        return Optional.of(new Evidence.Replacement(written, hits.get(0).table(), round(hits.get(0).score())));
    }

    static double average(List<Double> xs, double empty) {
        return xs.isEmpty() ? empty : xs.stream().mapToDouble(Double::doubleValue).average().orElse(empty);
    }

    private static double clamp(double x) {
        return Math.max(0, Math.min(1, x));
    }

    static double round(double x) {
        return Math.round(x * 1000) / 1000.0;
    }

    private static String key(String name) {
        return name == null ? "" : name.toLowerCase(Locale.ROOT);
    }
}
