package dev.ladder.eval.view;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.common.StableJson;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.report.Report;
import dev.ladder.eval.report.ReportTable;
import dev.ladder.eval.report.RunLoader;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import dev.ladder.scorer.score.ItemOutcome;
import dev.ladder.scorer.score.Metrics;
import dev.ladder.pipeline.oracle.OracleModel;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.ExecutionLimits;
import dev.ladder.sql.db.LadderPaths;
import dev.ladder.sql.db.QueryResult;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The pages of {@code ladder view}, rendered once from one or more run directories: {@code index.html} (the ladder
 * table, the declared comparisons, the charts, settings and environment, and a run-against-run table), {@code
 * items.html} (every question × rung outcome, filtered in the page) and {@code item/<n>.html} (one question across
 * rungs and runs: SQL, results, scores, the trace as a timeline, a diff of two rungs' SQL). The same pages are served
 * on loopback and written by {@code --export}; nothing is fetched from anywhere else.
 */
public final class RunViewer {

    private static final ObjectMapper JSON = StableJson.mapper();
    private static final ExecutionLimits SHOWN = new ExecutionLimits(Duration.ofSeconds(10), 10);

    /** One run as the pages read it. */
    private record RunView(int index, Path dir, Report.Run run, Map<String, List<ItemResult>> rows,
                           Map<String, List<String>> traces, String config, String environment, List<Path> charts) {}

    private final List<RunView> runs = new ArrayList<>();
    private final Map<String, byte[]> pages = new LinkedHashMap<>();
    /** Each run's benchmark's databases by id (Spider's and BIRD's db_id to its file), read once. */
    private final Map<String, Map<String, String>> databasesOf = new HashMap<>();

    /** Reads the runs (the report's own reading of a run directory) and renders every page. */
    public static RunViewer of(List<Path> runDirs) {
        RunViewer v = new RunViewer();
        for (Path dir : runDirs) v.runs.add(v.read(v.runs.size(), dir));
        v.render();
        return v;
    }

    /** Path inside the site (e.g. {@code index.html}, {@code item/3.html}, {@code runs/0/ex-by-rung.svg}) to bytes. */
    public Map<String, byte[]> pages() {
        return pages;
    }

    private RunView read(int index, Path dir) {
        Report.Run run = RunLoader.load(dir);
        Map<String, List<ItemResult>> rows = new LinkedHashMap<>();
        Map<String, List<String>> traces = new LinkedHashMap<>();
        try (ResultsStore store = ResultsStore.openReadOnly(dir.resolve(RunDirectory.RESULTS))) {
            for (Cell c : store.cells()) {
                rows.put(c.name(), store.results(c.name()));
                traces.put(c.name(), store.traces(c.name()));
            }
        }
        List<Path> charts = new ArrayList<>();
        Path report = dir.resolve("report");
        if (Files.isDirectory(report)) {
            try (Stream<Path> s = Files.list(report)) {
                s.filter(p -> p.getFileName().toString().endsWith(".svg")).sorted().forEach(charts::add);
            } catch (IOException e) {
                // no charts: the tables still say everything
            }
        }
        return new RunView(index, dir, run, rows, traces, readText(dir.resolve(RunDirectory.CONFIG)),
                readText(dir.resolve("environment.json")), charts);
    }

    private static String readText(Path p) {
        try {
            return Files.isRegularFile(p) ? Files.readString(p) : "(none)";
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    // ------------------------------------------------------------------------------------------------ rendering

    /**
     * On every page of a run the oracle engine answered: what its rows are (an instrument's, never a model's), with the
     * runs it concerns.
     */
    private String oracleBanner() {
        List<String> which = new ArrayList<>();
        for (RunView r : runs) {
            if (r.config() != null && r.config().lines().anyMatch(l -> l.strip().equals("engine: \"oracle\"")
                    || l.strip().equals("engine: oracle"))) {
                which.add("run " + (r.index() + 1));
            }
        }
        if (which.isEmpty()) return "";
        return "<p class=\"oracle\" id=\"oracle-banner\"><b>" + Html.text(String.join(", ", which)) + ": "
                + Html.text(OracleModel.DISCLAIMER) + ".</b></p>";
    }

    /** On every page of a run whose model had random weights (ladder model make-tiny): its numbers are no findings. */
    private String randomWeightsBanner() {
        List<String> which = new ArrayList<>();
        for (RunView r : runs) {
            if (r.run().info() != null && r.run().info().anyRandomWeights()) which.add("run " + (r.index() + 1));
        }
        if (which.isEmpty()) return "";
        return "<p class=\"oracle\" id=\"random-weights-banner\"><b>" + Html.text(String.join(", ", which))
                + ": RANDOM WEIGHTS (a model made by 'ladder model make-tiny'): these numbers test the path, they are "
                + "not results.</b></p>";
    }

    private void render() {
        List<Report.Run> all = runs.stream().map(RunView::run).toList();
        RunLoader.checkSameSuite(all);
        Report report = Report.merge(all, Report.Options.DEFAULT);
        // items by id across runs, in the first run's order
        Map<String, Integer> itemNumber = new LinkedHashMap<>();
        for (RunView r : runs) for (List<ItemResult> rs : r.rows().values()) for (ItemResult x : rs) itemNumber.putIfAbsent(x.itemId(), itemNumber.size());
        String banner = oracleBanner() + randomWeightsBanner();
        pages.put("index.html", bytes(Html.page("Overview", "", banner + overview(report))));
        pages.put("items.html", bytes(Html.page("Items", "", banner + items(itemNumber))));
        Map<String, Database> dbs = new HashMap<>();
        try {
            for (Map.Entry<String, Integer> e : itemNumber.entrySet()) {
                pages.put("item/" + e.getValue() + ".html", bytes(Html.page("Item " + e.getKey(), "../",
                        banner + item(e.getKey(), e.getValue(), itemNumber.size(), dbs))));
            }
        } finally {
            dbs.values().forEach(d -> {
                if (d != null) d.close();
            });
        }
        for (RunView r : runs) {
            for (Path chart : r.charts()) {
                try {
                    pages.put("runs/" + r.index() + "/" + chart.getFileName(), Files.readAllBytes(chart));
                } catch (IOException e) {
                    // a chart that cannot be read is left out
                }
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private String overview(Report report) {
        StringBuilder b = new StringBuilder("<h1>Overview</h1>");
        b.append("<p>").append(runs.size()).append(runs.size() == 1 ? " run: " : " runs: ");
        b.append(String.join(", ", runs.stream().map(r -> Html.text(r.dir().toString())).toList())).append("</p>");
        b.append("<h2>Accuracy by rung</h2>").append(table(report.summary()));
        b.append("<h2>Declared comparisons</h2>").append(table(report.comparisons()));
        report.attribution().ifPresent(t -> b.append("<h2>").append(Html.text(t.title())).append("</h2>").append(table(t)));
        report.judgeAgreement().ifPresent(t -> b.append("<h2>").append(Html.text(t.title())).append("</h2>").append(table(t)));
        b.append("<h2>Costs</h2>").append(table(report.costs()));
        if (runs.size() > 1) b.append("<h2>Run against run</h2>").append(runAgainstRun());
        for (RunView r : runs) {
            b.append("<h2>Run ").append(r.index() + 1).append(": charts</h2>");
            for (Path c : r.charts()) {
                b.append("<img alt=\"").append(Html.text(c.getFileName())).append("\" src=\"runs/").append(r.index()).append('/')
                        .append(Html.text(c.getFileName())).append("\">");
            }
            b.append("<h2>Run ").append(r.index() + 1).append(": settings (config.yaml)</h2><pre>").append(Html.text(r.config())).append("</pre>");
            b.append("<h2>Run ").append(r.index() + 1).append(": environment</h2><pre>").append(Html.text(r.environment())).append("</pre>");
        }
        return b.toString();
    }

    private static String table(ReportTable t) {
        StringBuilder b = new StringBuilder("<p class=\"muted\">").append(Html.text(t.description())).append("</p><table><tr>");
        for (String h : t.displayHeader()) b.append("<th>").append(Html.text(h)).append("</th>");
        b.append("</tr>");
        List<Boolean> numeric = t.displayNumeric();
        for (List<String> row : t.displayRows()) {
            b.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                b.append(numeric.get(i) ? "<td class=\"num\">" : "<td>").append(Html.text(row.get(i))).append("</td>");
            }
            b.append("</tr>");
        }
        return b.append("</table>").toString();
    }

    /** Rungs the runs share by name: EX of each run, and how many items only one of two runs gets right. */
    private String runAgainstRun() {
        StringBuilder b = new StringBuilder("<table><tr><th>rung</th><th>run A</th><th>run B</th><th>EX A</th><th>EX B</th>"
                + "<th>both right</th><th>only A</th><th>only B</th></tr>");
        for (int i = 0; i < runs.size(); i++) {
            for (int j = i + 1; j < runs.size(); j++) {
                for (String rung : runs.get(i).rows().keySet()) {
                    List<ItemResult> a = runs.get(i).rows().get(rung);
                    List<ItemResult> c = runs.get(j).rows().get(rung);
                    if (c == null) continue;
                    Map<String, Boolean> exB = new HashMap<>();
                    // an item whose gold could not run in either run is not scored in either
                    c.stream().filter(x -> !x.goldFailed()).forEach(x -> exB.put(x.itemId(), x.ex()));
                    int both = 0, onlyA = 0, onlyB = 0, n = 0, exA = 0, exBn = 0;
                    for (ItemResult x : a) {
                        Boolean y = exB.get(x.itemId());
                        if (y == null || x.goldFailed()) continue;
                        n++;
                        if (x.ex()) exA++;
                        if (y) exBn++;
                        if (x.ex() && y) both++;
                        else if (x.ex()) onlyA++;
                        else if (y) onlyB++;
                    }
                    b.append("<tr><td>").append(Html.text(rung)).append("</td><td>").append(i + 1).append("</td><td>").append(j + 1)
                            .append("</td><td class=\"num\">").append(ratio(exA, n)).append("</td><td class=\"num\">")
                            .append(ratio(exBn, n)).append("</td><td class=\"num\">").append(both).append("</td><td class=\"num\">")
                            .append(onlyA).append("</td><td class=\"num\">").append(onlyB).append("</td></tr>");
                }
            }
        }
        return b.append("</table>").toString();
    }

    private static String ratio(int k, int n) {
        return n == 0 ? "—" : String.format(Locale.ROOT, "%.3f", (double) k / n);
    }

    /** The items page: its rows as data, built into the table by the page's script with text nodes only. */
    private String items(Map<String, Integer> itemNumber) {
        List<Map<String, Object>> data = new ArrayList<>();
        List<String> rungs = new ArrayList<>();
        for (RunView r : runs) {
            for (var e : r.rows().entrySet()) {
                if (!rungs.contains(e.getKey())) rungs.add(e.getKey());
                for (ItemResult x : e.getValue()) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("n", itemNumber.get(x.itemId()));
                    m.put("id", x.itemId());
                    m.put("run", r.index() + 1);
                    m.put("rung", e.getKey());
                    m.put("category", x.category());
                    m.put("difficulty", x.difficulty());
                    m.put("database", x.database());
                    m.put("errorClass", x.errorClass());
                    m.put("outcome", x.outcome());
                    m.put("va", x.va());
                    m.put("ex", x.ex());
                    m.put("em", x.em());
                    m.put("ts", x.ts());
                    m.put("question", x.question());
                    m.put("sql", x.predicted());
                    m.put("gold", x.gold());
                    data.add(m);
                }
            }
        }
        return "<h1>Items</h1><div class=\"filters\">"
                + "<select id=\"f-category\"><option value=\"\">every category</option></select>"
                + "<select id=\"f-difficulty\"><option value=\"\">every difficulty</option></select>"
                + "<select id=\"f-database\"><option value=\"\">every database</option></select>"
                + "<select id=\"f-error\"><option value=\"\">every error class</option></select>"
                + "<select id=\"f-outcome\"><option value=\"\">every outcome</option></select>"
                + "<select id=\"f-rung\"><option value=\"\">every rung</option></select>"
                + "<select id=\"f-change\"><option value=\"\">any outcome</option><option value=\"fixed\">fixed by</option>"
                + "<option value=\"broken\">broken by</option></select>"
                + "<select id=\"f-by\"></select> relative to <select id=\"f-base\"><option value=\"\">the rung below</option></select>"
                + "<input id=\"f-text\" placeholder=\"search questions and SQL\" size=\"30\"></div>"
                + "<p id=\"count\"></p><table id=\"items\"><thead><tr><th>#</th><th>run</th><th>rung</th><th>category</th>"
                + "<th>difficulty</th><th>error class</th><th>outcome</th><th>VA</th><th>EX</th><th>EM</th><th>TS</th><th>question</th>"
                + "<th>SQL</th></tr></thead><tbody></tbody></table>"
                + "<script id=\"data\" type=\"application/json\">" + Html.json(Map.of("rows", data, "rungs", rungs)) + "</script>"
                + "<script>" + ITEMS_SCRIPT + "</script>";
    }

    /** An outcome for an item page; a gold that could not run is said to be the benchmark's, not the model's. */
    static String outcomeText(String outcome) {
        return ItemOutcome.goldFailed(outcome)
                ? "<span class=\"warn\">" + Html.text(outcome) + " (the gold could not run: not scored, not the model's error)</span>"
                : Html.text(outcome);
    }

    static final String ITEMS_SCRIPT = """
            const D = JSON.parse(document.getElementById('data').textContent);
            const rows = D.rows, rungs = D.rungs;
            function fill(id, values) { const s = document.getElementById(id);
              [...new Set(values)].filter(v => v !== null && v !== undefined).sort().forEach(v => {
                const o = document.createElement('option'); o.value = v; o.textContent = v; s.appendChild(o); }); }
            fill('f-category', rows.map(r => r.category)); fill('f-difficulty', rows.map(r => r.difficulty));
            fill('f-error', rows.map(r => r.errorClass)); fill('f-outcome', rows.map(r => r.outcome));
            fill('f-database', rows.map(r => r.database).filter(d => d));
            // a run of one database has nothing to filter by
            if (document.getElementById('f-database').options.length < 3) document.getElementById('f-database').hidden = true;
            for (const id of ['f-rung', 'f-by', 'f-base']) rungs.forEach(g => { const o = document.createElement('option');
              o.value = g; o.textContent = g; document.getElementById(id).appendChild(o); });
            const ex = {}; rows.forEach(r => { ex[r.run + '|' + r.id + '|' + r.rung] = r.ex; });
            function changed(r, kind, by, base) {
              const b = base || rungs[rungs.indexOf(by) - 1]; if (!b || r.rung !== by) return false;
              const before = ex[r.run + '|' + r.id + '|' + b]; if (before === undefined) return false;
              return kind === 'fixed' ? (r.ex && !before) : (!r.ex && before); }
            function cell(tr, text, cls) { const td = document.createElement('td'); td.textContent = text;
              if (cls) td.className = cls; tr.appendChild(td); return td; }
            function yes(v) { return v === null || v === undefined ? '—' : (v ? 'yes' : 'no'); }
            function render() {
              const v = id => document.getElementById(id).value;
              const text = v('f-text').toLowerCase(), kind = v('f-change');
              const shown = rows.filter(r => (!v('f-category') || r.category === v('f-category'))
                && (!v('f-difficulty') || r.difficulty === v('f-difficulty')) && (!v('f-error') || r.errorClass === v('f-error'))
                && (!v('f-database') || r.database === v('f-database'))
                && (!v('f-outcome') || r.outcome === v('f-outcome'))
                && (!v('f-rung') || r.rung === v('f-rung')) && (!kind || changed(r, kind, v('f-by'), v('f-base')))
                && (!text || (r.question || '').toLowerCase().includes(text) || (r.sql || '').toLowerCase().includes(text)
                    || (r.gold || '').toLowerCase().includes(text)));
              const body = document.querySelector('#items tbody'); body.replaceChildren();
              for (const r of shown) { const tr = document.createElement('tr');
                const a = document.createElement('a'); a.href = 'item/' + r.n + '.html'; a.textContent = r.id;
                const first = document.createElement('td'); first.appendChild(a); tr.appendChild(first);
                cell(tr, r.run); cell(tr, r.rung); cell(tr, r.category); cell(tr, r.difficulty); cell(tr, r.errorClass);
                cell(tr, r.outcome, r.outcome.startsWith('gold-') ? 'warn' : null);
                cell(tr, yes(r.va), r.va ? 'ok' : 'bad'); cell(tr, yes(r.ex), r.ex ? 'ok' : 'bad'); cell(tr, yes(r.em)); cell(tr, yes(r.ts));
                cell(tr, r.question); cell(tr, r.sql); body.appendChild(tr); }
              const items = new Set(shown.map(r => r.run + '|' + r.id)).size;
              document.getElementById('count').textContent = shown.length + ' rows shown (' + items + ' items) of ' + rows.length; }
            document.querySelectorAll('.filters select, .filters input').forEach(e => e.addEventListener('input', render));
            render();
            """;

    /** One question across rungs and runs. */
    private String item(String id, int n, int total, Map<String, Database> dbs) {
        StringBuilder b = new StringBuilder();
        ItemResult any = null;
        for (RunView r : runs) for (List<ItemResult> rs : r.rows().values()) for (ItemResult x : rs) if (any == null && x.itemId().equals(id)) any = x;
        b.append("<p>").append(n > 0 ? "<a href=\"" + (n - 1) + ".html\">previous</a> " : "")
                .append(n + 1 < total ? "<a href=\"" + (n + 1) + ".html\">next</a>" : "").append("</p>");
        b.append("<h1>").append(Html.text(id)).append("</h1><p><b>").append(Html.text(any.question())).append("</b></p>");
        b.append("<p class=\"muted\">").append(Html.text(any.category())).append(" · ").append(Html.text(any.difficulty()))
                .append(any.database().isEmpty() ? "" : " · database " + Html.text(any.database())).append("</p>");
        Database db = database(runs.get(0), dbs, any.database());
        b.append("<h2>Gold</h2>").append(sql(any.gold())).append(result(db, any.gold()));
        List<Map<String, String>> sqls = new ArrayList<>();
        for (RunView r : runs) {
            Database rdb = database(r, dbs, any.database());
            for (var e : r.rows().entrySet()) {
                List<ItemResult> rs = e.getValue();
                for (int i = 0; i < rs.size(); i++) {
                    ItemResult x = rs.get(i);
                    if (!x.itemId().equals(id)) continue;
                    String label = (runs.size() > 1 ? "run " + (r.index() + 1) + " · " : "") + e.getKey();
                    sqls.add(Map.of("label", label, "sql", x.predicted()));
                    b.append("<section><h2>").append(Html.text(label)).append("</h2><p>")
                            .append(flag("VA", x.va())).append(flag("EX", x.ex())).append(flag("EM", x.em()))
                            .append(x.ts() == null ? "" : flag("TS", x.ts()))
                            .append(x.judge() == null ? "" : flag("Judge", x.judge()))
                            .append(otherMetrics(x))
                            .append(" · error class ").append(Html.text(x.errorClass()))
                            .append(" · outcome ").append(outcomeText(x.outcome())).append(" · chosen ").append(Html.text(x.chosen()))
                            .append(" · ").append(x.promptTokens()).append(" + ").append(x.generatedTokens()).append(" tokens, ")
                            .append(x.millis()).append(" ms</p>").append(sql(x.predicted()))
                            .append(x.error() != null ? "<p class=\"bad\">" + Html.text(x.error()) + "</p>" : result(rdb, x.predicted()))
                            .append("<details><summary>trace</summary>").append(timeline(r.traces().get(e.getKey()).get(i)))
                            .append("</details></section>");
                }
            }
        }
        b.append("<h2>Diff of two rungs' SQL</h2><select id=\"diff-a\"></select> → <select id=\"diff-b\"></select>"
                + "<pre id=\"diff\"></pre><script id=\"sqls\" type=\"application/json\">" + Html.json(sqls) + "</script>"
                + "<script>" + DIFF_SCRIPT + "</script>");
        return b.toString();
    }

    static final String DIFF_SCRIPT = """
            const S = JSON.parse(document.getElementById('sqls').textContent);
            const a = document.getElementById('diff-a'), b = document.getElementById('diff-b');
            S.forEach((s, i) => { for (const sel of [a, b]) { const o = document.createElement('option'); o.value = i;
              o.textContent = s.label; sel.appendChild(o); } });
            if (S.length > 1) b.value = S.length - 1;
            function diff() { const x = (S[a.value] || {sql: ''}).sql.split(/\\s+/), y = (S[b.value] || {sql: ''}).sql.split(/\\s+/);
              const L = Array.from({length: x.length + 1}, () => new Array(y.length + 1).fill(0));
              for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--)
                L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
              const out = document.getElementById('diff'); out.replaceChildren(); let i = 0, j = 0;
              function span(t, cls) { const s = document.createElement('span'); s.textContent = t + ' '; if (cls) s.className = cls; out.appendChild(s); }
              while (i < x.length && j < y.length) { if (x[i] === y[j]) { span(x[i]); i++; j++; }
                else if (L[i + 1][j] >= L[i][j + 1]) span(x[i++], 'del'); else span(y[j++], 'ins'); }
              while (i < x.length) span(x[i++], 'del'); while (j < y.length) span(y[j++], 'ins'); }
            a.addEventListener('input', diff); b.addEventListener('input', diff); diff();
            """;

    /** The row's metrics beyond the standard ones, each as {@code name value} with its detail on hover. */
    private static String otherMetrics(ItemResult x) {
        StringBuilder b = new StringBuilder();
        x.scores().forEach((name, v) -> {
            if (Metrics.standardNames().contains(name)) return;
            String value = v.value() == null ? "n/a" : BigDecimal.valueOf(v.value()).stripTrailingZeros().toPlainString();
            b.append(" <span class=\"metric\"").append(v.detail() == null ? "" : " title=\"" + Html.text(v.detail()) + "\"")
                    .append('>').append(Html.text(name)).append(' ').append(Html.text(value)).append("</span>");
        });
        return b.toString();
    }

    private static String flag(String name, boolean v) {
        return "<span class=\"" + (v ? "ok" : "bad") + "\">" + name + " " + (v ? "✓" : "✗") + "</span> ";
    }

    /** SQL with its keywords marked (text escaped first; only the markup is ours). */
    private static String sql(String sql) {
        if (sql == null || sql.isBlank()) return "<pre class=\"muted\">(no SQL)</pre>";
        String escaped = Html.text(sql);
        escaped = escaped.replaceAll("(?i)\\b(SELECT|FROM|WHERE|JOIN|ON|GROUP BY|ORDER BY|HAVING|LIMIT|AND|OR|AS|DISTINCT|"
                + "COUNT|SUM|AVG|MIN|MAX|INNER|LEFT|UNION|IN|NOT|DESC|ASC|WITH)\\b", "<span class=\"sql-kw\">$1</span>");
        return "<pre class=\"sql\">" + escaped + "</pre>";
    }

    /**
     * The database a run's item ran on, opened once: its own database id through the run's benchmark (Spider, BIRD),
     * else the experiment's database; null when it cannot be opened (the pages then say so).
     */
    private Database database(RunView r, Map<String, Database> dbs, String dbId) {
        var experiment = r.run().info() == null ? null : r.run().info().experiment();
        if (experiment == null) return null;
        String spec = experiment.database();
        if (!dbId.isEmpty()) {
            // each run's benchmark is read once for all its item pages
            Map<String, String> byId = databasesOf.computeIfAbsent(experiment.benchmark() + "|" + experiment.database(), k -> {
                try {
                    return Benchmarks.load(experiment.benchmark(), experiment.database()).databases();
                } catch (RuntimeException e) {
                    return Map.of(); // a benchmark moved since the run: the experiment's database is the best guess left
                }
            });
            spec = byId.getOrDefault(dbId, spec);
        }
        String key = spec + "|" + experiment.sqlMode();
        if (dbs.containsKey(key)) return dbs.get(key);
        Database db;
        try {
            db = Databases.open(spec, LadderPaths.dataDir(), Optional.empty(), experiment.sqlMode());
        } catch (RuntimeException e) {
            db = null; // the pages say the results could not be shown
        }
        dbs.put(key, db);
        return db;
    }

    /** A query's result as a table: its first {@code SHOWN} rows, and when there are more, how many there are. */
    static String result(Database db, String sql) {
        if (sql == null || sql.isBlank()) return "";
        if (db == null) return "<p class=\"muted\">(result not shown: the run's database could not be opened)</p>";
        Execution e = db.execute(sql, SHOWN);
        if (e instanceof Execution.Failure f) return "<p class=\"bad\">" + Html.text(f.error()) + "</p>";
        QueryResult q = ((Execution.Success) e).result();
        StringBuilder b = new StringBuilder("<table><tr>");
        for (String c : q.columns()) b.append("<th>").append(Html.text(c)).append("</th>");
        b.append("</tr>");
        for (List<Object> row : q.rows()) {
            b.append("<tr>");
            for (Object o : row) b.append("<td>").append(o == null ? "<span class=\"muted\">NULL</span>" : Html.text(o)).append("</td>");
            b.append("</tr>");
        }
        b.append("</table>");
        if (q.truncated()) {
            Long total = count(db, sql);
            b.append("<p class=\"muted\">(the first ").append(q.rowCount()).append(total == null ? " rows; more not counted)"
                    : " of " + total + " rows)").append("</p>");
        }
        return b.toString();
    }

    /** The query's row count, or null when counting it fails (the count runs under the same guard and limits). */
    private static Long count(Database db, String sql) {
        String inner = sql.strip().replaceAll(";+$", "");
        Execution e = db.execute("SELECT COUNT(*) FROM (" + inner + ") AS shown_rows", SHOWN);
        if (!(e instanceof Execution.Success ok) || ok.result().rowCount() != 1) return null;
        Object n = ok.result().rows().get(0).get(0);
        return n instanceof Number x ? x.longValue() : null;
    }

    /** A trace's steps, one block each, every value escaped. */
    static String timeline(String traceJson) {
        JsonNode t;
        try {
            t = JSON.readTree(traceJson);
        } catch (IOException e) {
            return "<pre>" + Html.text(traceJson) + "</pre>";
        }
        StringBuilder b = new StringBuilder("<p>decision: ").append(Html.text(t.path("decision").asText())).append("</p>");
        for (JsonNode s : t.path("steps")) {
            String kind = s.path("kind").asText();
            b.append("<div class=\"step\"><span class=\"kind\">").append(Html.text(kind)).append("</span> ")
                    .append(Html.text(s.path("source").asText(""))).append(s.has("stage") ? " · " + Html.text(s.path("stage").asText()) : "");
            switch (kind) {
                case "generate" -> {
                    b.append(" · ").append(Html.text(s.path("sampling").asText())).append(", prompt ").append(s.path("promptTokens").asInt())
                            .append(" tokens, generated ").append(s.path("generatedTokens").asInt());
                    for (JsonNode o : s.path("outputs")) b.append("<pre>").append(Html.text(o.asText())).append("</pre>");
                }
                case "clean" -> b.append(s.hasNonNull("rejection") ? " <span class=\"bad\">rejected: " + Html.text(s.path("rejection").asText()) + "</span>"
                        : "<pre>" + Html.text(s.path("sql").asText()) + "</pre>");
                case "execute" -> b.append(s.path("ok").asBoolean() ? " <span class=\"ok\">ok, " + s.path("rows").asInt() + " rows</span>"
                        : " <span class=\"bad\">" + Html.text(s.path("errorKind").asText()) + ": " + Html.text(s.path("errorMessage").asText()) + "</span>")
                        .append(" · ").append(s.path("millis").asLong()).append(" ms<pre>").append(Html.text(s.path("sql").asText())).append("</pre>");
                case "stage" -> b.append("<pre>").append(Html.text(s.path("summary").asText())).append("</pre>");
                default -> {
                    StringBuilder rest = new StringBuilder();
                    s.fields().forEachRemaining(f -> {
                        if (!f.getKey().equals("kind") && !f.getKey().equals("source")) rest.append(f.getKey()).append(": ").append(f.getValue()).append('\n');
                    });
                    b.append("<pre>").append(Html.text(rest.toString().strip())).append("</pre>");
                }
            }
            b.append("</div>");
        }
        b.append("<p class=\"muted\">tokens: prompt ").append(t.path("promptTokens").asInt()).append(", generated ")
                .append(t.path("generatedTokens").asInt()).append("; ").append(t.path("millis").asLong()).append(" ms</p>");
        return b.toString();
    }

    /** Writes every page under {@code dir} (a static site: open index.html). */
    public void export(Path dir) {
        for (var e : pages.entrySet()) {
            Path target = dir.resolve(e.getKey());
            try {
                Files.createDirectories(target.getParent());
                Files.write(target, e.getValue());
            } catch (IOException ex) {
                throw new UserError("cannot write " + target + ": " + ex.getMessage(), ex);
            }
        }
    }
}
