package dev.ladder.scorer.score.em;

import dev.ladder.sql.read.Query;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Spider-style exact set match (EM): both queries are parsed with JSqlParser, normalised into Spider's
 * components ({@link SqlUnit}) and compared component by component; the pair matches when every
 * component matches exactly and the FROM table units are the same multiset. See docs/exact-match.md for
 * the rules and every known difference from Spider's evaluation.py.
 *
 * <p>Thread-safe: instances hold only the schema index and the value flag.
 */
public final class ExactMatch {

    private final ComponentExtractor extractor;
    /** For predictions: unknown names and uncompared clauses are errors (they cannot run, or EM cannot see them). */
    private final ComponentExtractor strictExtractor;
    private final boolean compareValues;
    private final EmMode mode;
    private final SpiderParserCheck spiderCheck;

    /**
     * @param schema        resolves unqualified columns and aliases to {@code table.column} and links
     *                      foreign-key columns (Spider's schema and kmap); null for no schema
     * @param compareValues false (the default in Spider's EM) masks every literal value
     */
    public ExactMatch(Schema schema, boolean compareValues) {
        this(schema, compareValues, true);
    }

    /**
     * @param foldForeignKeys true (Spider) treats columns linked by a foreign key between two different
     *                        tables as the same column, e.g. {@code orders.customerNumber} and
     *                        {@code customers.customerNumber}
     */
    public ExactMatch(Schema schema, boolean compareValues, boolean foldForeignKeys) {
        this(schema, compareValues, foldForeignKeys, false);
    }

    /**
     * @param compareDistinct false (Spider's {@code DISABLE_DISTINCT}, the default) ignores
     *                        {@code SELECT DISTINCT} and {@code COUNT(DISTINCT x)}-style aggregate
     *                        DISTINCT; true compares them (what {@code --keep-distinct} asks for)
     */
    public ExactMatch(Schema schema, boolean compareValues, boolean foldForeignKeys, boolean compareDistinct) {
        this(schema, compareValues, foldForeignKeys, compareDistinct, EmMode.SEMANTIC);
    }

    /** @param mode {@link EmMode#SPIDER_STRICT} scores 0 where the official parser cannot read gold or prediction */
    public ExactMatch(Schema schema, boolean compareValues, boolean foldForeignKeys, boolean compareDistinct, EmMode mode) {
        this(schema, compareValues, foldForeignKeys, compareDistinct, mode, ComponentExtractor.Texts.EM);
    }

    private ExactMatch(Schema schema, boolean compareValues, boolean foldForeignKeys, boolean compareDistinct, EmMode mode,
                       ComponentExtractor.Texts texts) {
        this.mode = mode;
        SchemaIndex index = new SchemaIndex(schema, foldForeignKeys);
        this.extractor = new ComponentExtractor(index, compareValues, compareDistinct, false, texts);
        this.strictExtractor = new ComponentExtractor(index, compareValues, compareDistinct, true, texts);
        this.compareValues = compareValues;
        this.spiderCheck = new SpiderParserCheck(index.allColumnNames());
    }

    /**
     * The components as the error taxonomy reads them, for {@link #analyse}: values compared as MySQL compares them,
     * DISTINCT compared, no foreign-key folding (another table's column is another column), and each nested query
     * left to its own unit ({@code (select)} in the clause that holds it). Its scores are not Spider's EM.
     */
    public static ExactMatch forTaxonomy(Schema schema) {
        return new ExactMatch(schema, true, false, true, EmMode.SEMANTIC, ComponentExtractor.Texts.TAXONOMY);
    }

    public EmMode mode() {
        return mode;
    }

    /**
     * Scores {@code predictedSql} against {@code goldSql}.
     *
     * @throws IllegalArgumentException when the gold query cannot be parsed or analysed
     */
    public EmScore score(String goldSql, String predictedSql) {
        SqlUnit gold;
        try {
            gold = analyse(goldSql);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("gold SQL cannot be scored by exact match: " + e.getMessage()
                    + " (gold: " + abbreviate(goldSql) + ")", e);
        }
        if (mode == EmMode.SPIDER_STRICT) {
            Optional<String> g = spiderCheck.unreadable(goldSql);
            if (g.isPresent()) return EmScore.failed(unscored(gold), "spider-strict: the official parser cannot read the gold: " + g.get());
            Optional<String> p = predictedSql == null ? Optional.empty() : spiderCheck.unreadable(predictedSql);
            if (p.isPresent()) return EmScore.failed(unscored(gold), "spider-strict: the official parser cannot read the prediction: " + p.get());
        }
        SqlUnit pred;
        try {
            pred = analyse(predictedSql, strictExtractor);
        } catch (IllegalArgumentException e) {
            return EmScore.failed(unscored(gold), e.getMessage());
        }
        return compare(gold, pred);
    }

    /**
     * The normalised components of one query (what EM compares).
     *
     * @throws IllegalArgumentException naming the problem when the SQL cannot be parsed or analysed
     */
    public SqlUnit analyse(String sql) {
        return analyse(sql, extractor);
    }

    /**
     * The normalised components of a query parsed elsewhere ({@code Query.read(sql).select()}).
     *
     * @throws IllegalArgumentException naming the problem when the query cannot be analysed
     */
    public SqlUnit analyse(Select select) {
        return analyse(select, extractor);
    }

    private static SqlUnit analyse(String sql, ComponentExtractor extractor) {
        return analyse(parse(sql), extractor);
    }

    private static SqlUnit analyse(Select select, ComponentExtractor extractor) {
        try {
            return extractor.extract(select);
        } catch (ComponentExtractor.UnsupportedSqlException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cannot analyse SQL: " + e, e);
        }
    }

    /** Compares two analysed queries. */
    public static EmScore compare(SqlUnit gold, SqlUnit pred) {
        Map<String, ComponentScore> components = components(gold, pred);
        boolean match = components.values().stream().allMatch(ComponentScore::exact)
                && gold.tables().equals(pred.tables());
        return new EmScore(match, components, null);
    }

    private static final SqlUnit EMPTY = new SqlUnit(List.of(), List.of(), List.of(), Set.of(), "", List.of(), "",
            List.of(), null, null, null, Set.of(), SqlUnit.Structure.NONE);

    private static Map<String, ComponentScore> components(SqlUnit gold, SqlUnit pred) {
        Map<String, ComponentScore> m = new LinkedHashMap<>();
        m.put("select", multiset(gold.select(), pred.select()));
        m.put("select(no AGG)", multiset(gold.select().stream().map(SelectUnit::value).toList(),
                pred.select().stream().map(SelectUnit::value).toList()));
        m.put("where", multiset(gold.where(), pred.where()));
        m.put("where(no OP)", multiset(gold.where().stream().map(CondUnit::valUnit).toList(),
                pred.where().stream().map(CondUnit::valUnit).toList()));
        m.put("group(no Having)", multiset(gold.groupBy(), pred.groupBy()));
        m.put("group", whole(gold.hasGroup(), pred.hasGroup(),
                gold.groupBy().equals(pred.groupBy()) && gold.having().equals(pred.having())));
        m.put("order", whole(gold.hasOrder(), pred.hasOrder(),
                gold.orderBy().equals(pred.orderBy()) && same(gold.limit(), pred.limit())));
        m.put("and/or", andOr(gold, pred));
        m.put("IUEN", whole(gold.setOp() != null, pred.setOp() != null, gold.setOp() != null
                && gold.setOp().equals(pred.setOp()) && pred.setRight() != null
                && gold.setRight().canonical().equals(pred.setRight().canonical())));
        m.put("keywords", multiset(new ArrayList<>(gold.keywords()), new ArrayList<>(pred.keywords())));
        return m;
    }

    /** Components of a prediction that could not be analysed: the gold's counts, nothing predicted. */
    private static Map<String, ComponentScore> unscored(SqlUnit gold) {
        Map<String, ComponentScore> m = new LinkedHashMap<>();
        components(gold, EMPTY).forEach((name, c) -> m.put(name,
                new ComponentScore(name.equals("and/or") ? gold.whereConnectors().size() : c.goldCount(), 0, 0)));
        return m;
    }

    private static boolean same(String a, String b) {
        return a == null ? b == null : a.equals(b);
    }

    /**
     * Spider's eval_and_or (the set of WHERE connectors), plus the shape of the condition tree: when both
     * sides have the same connectors and the same leaf conditions but group them differently
     * ({@code (a OR b) AND c} vs {@code a OR (b AND c)}), this component fails.
     */
    private static ComponentScore andOr(SqlUnit gold, SqlUnit pred) {
        int g = gold.whereConnectors().size();
        int p = pred.whereConnectors().size();
        if (!gold.whereConnectors().equals(pred.whereConnectors())) return new ComponentScore(g, p, 0);
        boolean regrouped = g > 0 && gold.where().equals(pred.where()) && !gold.whereShape().equals(pred.whereShape());
        return regrouped ? new ComponentScore(g, g, 0) : new ComponentScore(1, 1, 1);
    }

    private static ComponentScore whole(boolean gold, boolean pred, boolean equal) {
        return new ComponentScore(gold ? 1 : 0, pred ? 1 : 0, gold && pred && equal ? 1 : 0);
    }

    private static <T> ComponentScore multiset(List<T> gold, List<T> pred) {
        List<T> remaining = new ArrayList<>(gold);
        int matched = 0;
        for (T p : pred) {
            if (remaining.remove(p)) matched++;
        }
        return new ComponentScore(gold.size(), pred.size(), matched);
    }

    /** Parses one SELECT statement (a trailing semicolon is allowed). */
    static Select parse(String sql) {
        if (sql == null || sql.isBlank()) throw new IllegalArgumentException("empty SQL");
        Query query = Query.read(sql);
        Statement st = query.statement()
                .orElseThrow(() -> new IllegalArgumentException("cannot parse SQL: " + query.parseFailure()));
        if (!(st instanceof Select select)) {
            throw new IllegalArgumentException("not a SELECT statement: " + st.getClass().getSimpleName());
        }
        return select;
    }

    private static String abbreviate(String sql) {
        if (sql == null) return "null";
        String one = sql.replaceAll("\\s+", " ").strip();
        return one.length() > 160 ? one.substring(0, 160) + "..." : one;
    }
}
