package dev.ladder.pipeline.kit;

import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The legal joins of a database: its tables as nodes and its foreign keys as edges, walked in either direction. A
 * join between two tables is legal when it follows a foreign key; tables with no key between them are joined through
 * the shortest path of keys (multi-hop), and tables no path connects cannot be joined legally at all.
 *
 * <p>Deterministic: neighbours are visited in table-name order, so among paths of equal length the same one is always
 * chosen. Table names match case-insensitively (MySQL on Linux aside, schema names are case-insensitive in every
 * benchmark Ladder reads).
 */
public final class JoinGraph {

    /**
     * One legal join step, oriented from {@code from} to {@code to}.
     *
     * @param key the foreign key it follows
     */
    public record Edge(String from, List<String> fromColumns, String to, List<String> toColumns, ForeignKey key) {
        /** {@code from.c = to.c [AND ...]}. */
        public String condition() {
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < fromColumns.size(); i++) {
                parts.add(from + "." + fromColumns.get(i) + " = " + to + "." + toColumns.get(i));
            }
            return String.join(" AND ", parts);
        }
    }

    private final Map<String, String> names = new HashMap<>();          // lower-case -> schema spelling
    private final Map<String, List<Edge>> edges = new TreeMap<>();      // lower-case table -> edges out of it

    public JoinGraph(Schema schema) {
        for (Table t : schema.tables()) {
            names.put(key(t.name()), t.name());
            edges.put(key(t.name()), new ArrayList<>());
        }
        for (ForeignKey fk : schema.foreignKeys()) {
            String a = names.get(key(fk.table()));
            String b = names.get(key(fk.referencedTable()));
            if (a == null || b == null) continue; // a key to a table outside the schema is no join here
            edges.get(key(a)).add(new Edge(a, fk.columns(), b, fk.referencedColumns(), fk));
            if (!key(a).equals(key(b))) edges.get(key(b)).add(new Edge(b, fk.referencedColumns(), a, fk.columns(), fk));
        }
        Comparator<Edge> order = Comparator.comparing((Edge e) -> key(e.to())).thenComparing(e -> String.join(",", e.fromColumns()));
        edges.values().forEach(list -> list.sort(order));
    }

    private static String key(String table) {
        return table.toLowerCase(Locale.ROOT);
    }

    /** Whether the schema has this table. */
    public boolean hasTable(String table) {
        return names.containsKey(key(table));
    }

    /** The foreign-key joins directly between two tables, oriented from {@code a}. */
    public List<Edge> direct(String a, String b) {
        return edges.getOrDefault(key(a), List.of()).stream().filter(e -> key(e.to()).equals(key(b))).toList();
    }

    /**
     * Whether {@code a.aColumn = b.bColumn} follows a foreign key (either direction; one column pair of a composite
     * key counts, the key's other pairs being separate conditions).
     */
    public boolean followsKey(String a, String aColumn, String b, String bColumn) {
        for (Edge e : direct(a, b)) {
            for (int i = 0; i < e.fromColumns().size(); i++) {
                if (e.fromColumns().get(i).equalsIgnoreCase(aColumn) && e.toColumns().get(i).equalsIgnoreCase(bColumn)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The tables of a query that its column equalities leave apart from the first table's group (the equalities read
     * as joins, whatever keys they follow), in the order given: what a join suggestion or a "not joined" error is for.
     */
    public static List<String> apart(List<String> tables, List<SchemaBinding.ColumnPair> equalities) {
        if (tables.size() < 2) return List.of();
        Map<String, String> parent = new HashMap<>();
        for (String t : tables) parent.put(key(t), key(t));
        for (var p : equalities) {
            String a = root(parent, key(p.left().table()));
            String b = root(parent, key(p.right().table()));
            if (a != null && b != null) parent.put(a, b);
        }
        String first = root(parent, key(tables.get(0)));
        return tables.stream().filter(t -> !root(parent, key(t)).equals(first)).toList();
    }

    private static String root(Map<String, String> parent, String x) {
        if (!parent.containsKey(x)) return null;
        while (!parent.get(x).equals(x)) x = parent.get(x);
        return x;
    }

    /** Every foreign-key join between two tables of the set (each key once, oriented as declared). */
    public List<Edge> edgesAmong(Collection<String> tables) {
        Set<String> in = new HashSet<>();
        tables.forEach(t -> in.add(key(t)));
        List<Edge> out = new ArrayList<>();
        for (String t : in) {
            for (Edge e : edges.getOrDefault(t, List.of())) {
                if (in.contains(key(e.to())) && key(e.from()).equals(key(e.key().table()))) out.add(e);
            }
        }
        out.sort(Comparator.comparing(Edge::condition));
        return out;
    }

    /**
     * The shortest chain of legal joins from {@code from} to {@code to} (empty for the same table), or nothing when no
     * chain of foreign keys connects them or either table is unknown.
     */
    public Optional<List<Edge>> shortestPath(String from, String to) {
        if (!hasTable(from) || !hasTable(to)) return Optional.empty();
        if (key(from).equals(key(to))) return Optional.of(List.of());
        Map<String, Edge> reachedBy = new HashMap<>();
        ArrayDeque<String> queue = new ArrayDeque<>();
        queue.add(key(from));
        reachedBy.put(key(from), null);
        while (!queue.isEmpty()) {
            String at = queue.poll();
            for (Edge e : edges.get(at)) {
                String next = key(e.to());
                if (reachedBy.containsKey(next)) continue;
                reachedBy.put(next, e);
                if (next.equals(key(to))) return Optional.of(pathTo(next, reachedBy));
                queue.add(next);
            }
        }
        return Optional.empty();
    }

    private static List<Edge> pathTo(String end, Map<String, Edge> reachedBy) {
        List<Edge> path = new ArrayList<>();
        for (Edge e = reachedBy.get(end); e != null; e = reachedBy.get(key(e.from()))) path.add(0, e);
        return path;
    }

    /**
     * The joins that connect a set of tables: grown from the first table, each further table joined to the tables
     * connected so far by the shortest chain (a greedy Steiner tree: short, not always the shortest). Tables that no
     * chain reaches are returned in {@link Connection#unreachable()}.
     */
    public Connection connect(Collection<String> tables) {
        List<String> wanted = new ArrayList<>(new LinkedHashSet<>(tables.stream().filter(this::hasTable)
                .map(t -> names.get(key(t))).toList()));
        List<String> unknown = tables.stream().filter(t -> !hasTable(t)).distinct().toList();
        Set<String> joined = new LinkedHashSet<>();
        List<Edge> joins = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        if (!wanted.isEmpty()) joined.add(key(wanted.get(0)));
        for (String t : wanted.subList(Math.min(1, wanted.size()), wanted.size())) {
            if (joined.contains(key(t))) continue;
            List<Edge> best = null;
            for (String from : joined) {
                Optional<List<Edge>> p = shortestPath(from, t);
                if (p.isPresent() && (best == null || p.get().size() < best.size())) best = p.get();
            }
            if (best == null) {
                unreachable.add(t);
                continue;
            }
            for (Edge e : best) {
                if (joined.add(key(e.to())) || !joined.contains(key(e.from()))) joins.add(e);
                joined.add(key(e.from()));
            }
        }
        List<String> all = joined.stream().map(names::get).toList();
        return new Connection(all, joins, unreachable, unknown);
    }

    /**
     * @param tables      every table the joins touch (the asked ones and those in between)
     * @param joins       the legal joins, in the order they extend the connected set
     * @param unreachable asked tables no chain of foreign keys reaches from the first one
     * @param unknown     asked names that are no table of the schema
     */
    public record Connection(List<String> tables, List<Edge> joins, List<String> unreachable, List<String> unknown) {
        public boolean connected() {
            return unreachable.isEmpty() && unknown.isEmpty();
        }
    }
}
