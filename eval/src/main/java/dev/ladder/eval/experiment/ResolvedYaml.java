package dev.ladder.eval.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.Engines;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.Settings;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.SharedKnobs;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * Writes an {@link Experiment} in the file format with every field present, keys in the order the reference lists
 * them (a rung's own {@code settings} hold only the keys that differ from the experiment's block they apply on top of).
 * The text is Jackson's YAML of a tree built here in that order, so the same experiment always gives the same text.
 */
final class ResolvedYaml {

    private static final String HEADER = "# resolved experiment: every default filled in (ladder run writes this)\n";

    /*
     * Plain scalars where YAML reads them back as the same string. MINIMIZE_QUOTES alone leaves '2024' or '1e-6' plain
     * (read back as numbers), so any string that starts like a number is double-quoted too; a string holding a newline
     * is a literal block. Sequences indented under their key, so that every unindented line is a top-level key. No
     * '---' and no line splitting.
     */
    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .stringQuotingChecker(new StringQuotingChecker.Default() {
                        private static final long serialVersionUID = 1L;

                        @Override
                        public boolean needToQuoteValue(String value) {
                            return super.needToQuoteValue(value) || looksLikeYAMLNumber(value);
                        }
                    })
                    .build())
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            // 0.000001 and 100, not 1E-6 and 1E+2: plain decimals, as the reference writes them
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ResolvedYaml() {}

    static String write(Experiment e) {
        ObjectNode root = NODES.objectNode();
        root.put("name", e.name());
        root.put("benchmark", e.benchmark());
        root.put("split", e.split());
        root.put("database", e.database());
        root.put("sql_mode", e.sqlMode().label());
        root.put("limit", e.limit());
        root.put("subset", e.subset().method().label());
        root.put("subset_seed", e.subset().seed());
        ArrayNode seeds = root.putArray("seeds");
        e.seeds().forEach(seeds::add);
        root.put("output", e.output().toString());
        ObjectNode models = root.putObject("models");
        e.models().forEach((id, m) -> {
            ObjectNode o = models.putObject(id);
            if (m.served()) {
                ServerSpec sv = m.server();
                o.put("engine", m.engine());
                o.put("base_url", sv.baseUrl());
                o.put("model", sv.model());
                o.put("api_key_env", sv.apiKeyEnv());
                o.put("endpoint", sv.endpoint());
                o.put("prompt_format", sv.promptFormat());
                o.put("timeout_seconds", sv.timeoutSeconds());
                o.put("max_concurrent", sv.maxConcurrent());
                o.put("retries", sv.retries());
                o.put("extensions", sv.extensions());
                return;
            }
            if (m.oracle()) {
                o.put("engine", m.engine());
                o.put("noise", m.oracleNoise());
                // written where set: an earlier run's file, which has none, stays the same experiment
                if (m.options().containsKey(BatchWidth.FIELD)) o.put(BatchWidth.FIELD, Integer.parseInt(m.options().get(BatchWidth.FIELD)));
                return;
            }
            // the fields the model's engine takes (every one of them for a folder engine), then its own
            List<String> takes = Engines.registry().find(m.engine()).map(Engine::fields).orElse(List.of());
            if (takes.contains("path")) o.put("path", m.path());
            if (takes.contains("adapter")) o.put("adapter", m.adapter());
            o.put("engine", m.engine());
            if (takes.contains("dtype")) o.put("dtype", m.dtype());
            if (takes.contains("device")) o.put("device", m.device());
            if (takes.contains("merge_base")) o.put("merge_base", m.mergeBase());
            m.options().forEach((k, v) -> {
                if (k.equals(BatchWidth.FIELD)) o.put(k, Integer.parseInt(v));
                else o.put(k, v);
            });
        });
        ArrayNode strategies = root.putArray("strategies");
        ObjectNode base = settings(e.settings());
        for (RungSpec r : e.rungs()) {
            ObjectNode o = strategies.addObject();
            o.put("name", r.name());
            o.put("strategy", r.strategy());
            o.put("model", r.model());
            if (r.settings() != null) {
                // only what differs from the experiment's block, which the rung's settings apply on top of
                ObjectNode own = o.putObject("settings");
                settings(r.settings()).properties().forEach(kv -> {
                    if (!kv.getValue().equals(base.get(kv.getKey()))) own.set(kv.getKey(), kv.getValue());
                });
            }
        }
        root.set("settings", base);
        ScorerSpec sc = e.scorers();
        ObjectNode scorers = root.putObject("scorers");
        if (sc.alsoExMode() == null) {
            scorers.put("ex_mode", sc.exMode().name().toLowerCase(Locale.ROOT));
        } else {
            ArrayNode modes = scorers.putArray("ex_mode");
            List.of(sc.exModesLabel().split(",")).forEach(modes::add);
        }
        scorers.put("keep_distinct", sc.keepDistinct());
        scorers.put("tolerance", num(sc.tolerance()));
        scorers.put("ts", sc.ts().name().toLowerCase(Locale.ROOT));
        scorers.put("suite", sc.suite() == null ? null : sc.suite().toString());
        scorers.put("em_mode", sc.emMode().label());
        if (sc.judge() != null) scorers.put("judge", sc.judge());
        // the resolved family, the default one spelled out, so a report reads the same pairs the run declared; an
        // empty family (one rung) is left out, since the file format refuses an empty list and the default is empty
        if (!e.comparisons().isEmpty()) {
            ArrayNode comparisons = root.putArray("comparisons");
            for (Comparisons.Pair p : e.comparisons()) {
                ArrayNode pair = comparisons.addArray().add(p.from()).add(p.to());
                if (p.family() != null) pair.add(p.family());
            }
        }
        return HEADER + yaml(root);
    }

    /** A settings mapping's keys and values as written: the shared knobs, then each registered pipeline's block. */
    private static ObjectNode settings(Settings s) {
        ObjectNode m = SharedKnobs.BLOCK.write(s.knobs());
        for (SettingsBlock<?> block : Pipelines.registry().settingsBlocks()) m.set(block.key(), written(block, s));
        return m;
    }

    private static <T extends Record> ObjectNode written(SettingsBlock<T> block, Settings s) {
        return block.write(s.declared(block));
    }

    private static String yaml(JsonNode tree) {
        try {
            return YAML.writeValueAsString(tree);
        } catch (JsonProcessingException ex) {
            // a tree of strings, numbers and booleans always serialises
            throw new IllegalStateException("cannot write the resolved experiment as YAML", ex);
        }
    }

    /** Shortest plain decimal (no exponent): it reads back as the same double. */
    private static BigDecimal num(double d) {
        return SettingsBlock.plain(d);
    }
}
