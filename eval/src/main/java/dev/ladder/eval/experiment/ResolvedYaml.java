package dev.ladder.eval.experiment;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes an {@link Experiment} in the file format with every field present, keys in the order the reference lists
 * them (a rung's own {@code settings} hold only the keys that differ from the experiment's block they apply on top of). Written by hand rather than through a YAML generator so the output is stable and readable: plain scalars where
 * they cannot be misread, JSON-style double quotes otherwise.
 */
final class ResolvedYaml {

    /** Strings safe to write unquoted: no YAML indicator characters, no leading/trailing space. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_/.][A-Za-z0-9_./@-]*( +[A-Za-z0-9_./@-]+)*");
    /** Plain scalars YAML would read as something other than a string (booleans, null, numbers). */
    private static final Set<String> RESERVED = Set.of("true", "false", "yes", "no", "on", "off", "y", "n", "null", "~");
    private static final Pattern NUMBER_LIKE = Pattern.compile("[-+]?(\\.?[0-9].*|\\.(inf|nan))", Pattern.CASE_INSENSITIVE);

    private ResolvedYaml() {}

    static String write(Experiment e) {
        StringBuilder b = new StringBuilder("# resolved experiment: every default filled in (ladder run writes this)\n");
        line(b, 0, "name", str(e.name()));
        line(b, 0, "benchmark", str(e.benchmark()));
        line(b, 0, "split", str(e.split()));
        line(b, 0, "database", str(e.database()));
        line(b, 0, "sql_mode", str(e.sqlMode().label()));
        line(b, 0, "limit", e.limit() == null ? "null" : e.limit().toString());
        line(b, 0, "subset", e.subset().method().label());
        line(b, 0, "subset_seed", Long.toString(e.subset().seed()));
        line(b, 0, "seeds", flowList(e.seeds().stream().map(String::valueOf).toList()));
        line(b, 0, "output", str(e.output().toString()));
        b.append("models:\n");
        e.models().forEach((id, m) -> {
            b.append("  ").append(str(id)).append(":\n");
            line(b, 4, "path", str(m.path()));
            line(b, 4, "adapter", m.adapter() == null ? "null" : str(m.adapter()));
            line(b, 4, "engine", str(m.engine()));
            line(b, 4, "dtype", str(m.dtype()));
            line(b, 4, "device", str(m.device()));
            line(b, 4, "merge_base", str(m.mergeBase()));
        });
        b.append("strategies:\n");
        for (RungSpec r : e.rungs()) {
            b.append("  - {name: ").append(str(r.name())).append(", strategy: ").append(str(r.strategy()))
                    .append(", model: ").append(str(r.model()));
            if (r.settings() != null) {
                // only what differs from the experiment's block, which the rung's settings apply on top of
                List<String> own = new ArrayList<>();
                Map<String, String> base = settings(e.settings());
                settings(r.settings()).forEach((k, v) -> {
                    if (!v.equals(base.get(k))) own.add(k + ": " + v);
                });
                b.append(", settings: {").append(String.join(", ", own)).append('}');
            }
            b.append("}\n");
        }
        b.append("settings:\n");
        settings(e.settings()).forEach((k, v) -> line(b, 2, k, v));
        ScorerSpec sc = e.scorers();
        b.append("scorers:\n");
        line(b, 2, "ex_mode", sc.alsoExMode() == null ? sc.exMode().name().toLowerCase(Locale.ROOT)
                : flowList(List.of(sc.exModesLabel().split(","))));
        line(b, 2, "keep_distinct", Boolean.toString(sc.keepDistinct()));
        line(b, 2, "tolerance", num(sc.tolerance()));
        line(b, 2, "ts", sc.ts().name().toLowerCase(Locale.ROOT));
        line(b, 2, "suite", sc.suite() == null ? "null" : str(sc.suite().toString()));
        line(b, 2, "em_mode", sc.emMode().label());
        // the resolved family, the default one spelled out, so a report reads the same pairs the run declared
        b.append("comparisons:\n");
        for (Comparisons.Pair p : e.comparisons()) {
            b.append("  - [").append(str(p.from())).append(", ").append(str(p.to())).append("]\n");
        }
        return b.toString();
    }

    /** A settings block's keys and values as written, keys in the reference's order. */
    private static Map<String, String> settings(SettingsSpec s) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("max_new_tokens", Integer.toString(s.maxNewTokens()));
        m.put("candidates", Integer.toString(s.candidates()));
        m.put("sample_temperature", num(s.sampleTemperature()));
        m.put("tabular_prompt", Boolean.toString(s.tabularPrompt()));
        m.put("gate_budget", Integer.toString(s.gateBudget()));
        m.put("schema_subset", Boolean.toString(s.schemaSubset()));
        m.put("projection", Boolean.toString(s.projection()));
        m.put("rerank", Boolean.toString(s.rerank()));
        m.put("agent_k", Integer.toString(s.agentK()));
        m.put("stop_strings", flowList(s.stopStrings().stream().map(ResolvedYaml::quoted).toList()));
        m.put("stop_at_semicolon", Boolean.toString(s.stopAtSemicolon()));
        m.put("timeout_seconds", num(s.timeout().toMillis() / 1000.0));
        m.put("row_cap", Integer.toString(s.rowCap()));
        return m;
    }

    private static void line(StringBuilder b, int indent, String key, String value) {
        b.append(" ".repeat(indent)).append(key).append(": ").append(value).append('\n');
    }

    private static String flowList(List<String> items) {
        return "[" + String.join(", ", items) + "]";
    }

    /** Plain when that reads back as the same string, else double-quoted. */
    static String str(String s) {
        boolean plain = PLAIN.matcher(s).matches() && !RESERVED.contains(s.toLowerCase(Locale.ROOT))
                && !NUMBER_LIKE.matcher(s).matches();
        return plain ? s : quoted(s);
    }

    /** A JSON string literal, which is also a YAML double-quoted scalar. */
    static String quoted(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                case '\r' -> q.append("\\r");
                case '\t' -> q.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) q.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    else q.append(c);
                }
            }
        }
        return q.append('"').toString();
    }

    /** Shortest plain decimal (no exponent): it reads back as the same double. */
    private static String num(double d) {
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }
}
