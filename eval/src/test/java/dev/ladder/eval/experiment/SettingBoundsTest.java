package dev.ladder.eval.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.inference.engine.BatchWidth;
import dev.ladder.pipeline.strategy.Bound;
import dev.ladder.pipeline.strategy.Pipelines;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.pipeline.strategy.SettingsBlock;
import dev.ladder.pipeline.strategy.SharedKnobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Every bounded number an experiment file holds, read from a file: the bound itself is accepted, one past it (an
 * integer's next integer, a decimal's next double) is one line naming the key, the value and the bound. The keys come
 * from the bindings themselves (each block's {@code @Bounded} components, the loader's {@link ExperimentLoader#FIELD_BOUNDS}),
 * so a new setting is covered without touching this test.
 */
class SettingBoundsTest {

    private static final String MODEL = "models:\n  base: {path: Qwen/Qwen2.5-0.5B-Instruct}\n";
    private static final String SERVED = "models:\n  base: {engine: openai, base_url: 'http://127.0.0.1:8000/v1', model: m%s}\n";
    private static final String HEAD = "name: t\nbenchmark: classicmodels\nstrategies: [prompt-k0]\n";

    /** Keys a record checks against another (min_rows <= max_rows): that other key gets the same value. */
    private static final Map<String, String> COMPANIONS = Map.of("settings.soft_attention.min_rows", "max_rows");

    /**
     * One bounded key: where it sits in a file, its range, whether it holds integers, and whether Ladder ships it (the
     * test sources' own plugins are not in the docs).
     */
    private record Key(String path, Bound bound, boolean integral, boolean shipped) {}

    @Test
    void everyBoundedKeyAcceptsItsBoundAndRefusesOnePast() {
        List<Key> keys = keys();
        assertThat(keys).extracting(Key::path).contains("settings.candidates", "settings.max_new_tokens",
                "settings.gsr.max_tokens", "settings.progressive.beam_width", "settings.structured_search.sketches",
                "settings.execution_vote.samples", "limit", "scorers.tolerance", "models.ID.max_concurrent");
        for (Key k : keys) {
            if (k.bound().equals(Bound.ANY_LONG)) continue;   // any 64-bit integer: nothing past it to write
            assertThat(load(k, text(k.bound().max(), k.integral()))).as(k.path() + " at its maximum").isNull();
            String above = text(k.integral() ? k.bound().max() + 1 : Math.nextUp(k.bound().max()), k.integral());
            assertThat(load(k, above)).as(k.path() + " = " + above)
                    .isEqualTo("t.yaml: " + k.path().replace("ID", "base") + ": must be <= " + Bound.format(k.bound().max())
                            + ", got " + above + " (the bounds and why: docs/experiments.md#bounds)");
            String below = text(k.integral() ? k.bound().min() - 1 : Math.nextDown(k.bound().min()), k.integral());
            assertThat(load(k, below)).as(k.path() + " = " + below)
                    .isEqualTo("t.yaml: " + k.path().replace("ID", "base") + ": must be >= " + Bound.format(k.bound().min())
                            + ", got " + below);
        }
    }

    @Test
    void docsListEveryBoundedKeyWithItsRange() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "experiments.md"));
        for (Key k : keys()) {
            if (!k.shipped()) continue;
            assertThat(docs).as(k.path()).contains("| `" + k.path() + "` | " + k.bound().describe());
        }
        assertThat(docs).contains("| `seeds` | any integers, at most " + SettingBounds.SEEDS + " of them |");
    }

    @Test
    void everyKeyOfABlockAtItsMaximumAtOnceLoads() {
        // bounds that hold one by one must hold together (e.g. soft_attention's min_rows <= max_rows)
        for (SettingsBlock<?> block : blocks()) {
            StringJoiner values = new StringJoiner(", ", "{", "}");
            block.bounds().forEach((key, b) -> values.add(key + ": " + text(b.max(), integral(block, key))));
            String settings = block == SharedKnobs.BLOCK ? values.toString()
                    : "{" + block.key() + ": " + values + "}";
            Experiment e = ExperimentLoader.parse(HEAD + MODEL + "settings: " + settings + "\n", "t.yaml");
            assertThat(e.settings()).as(block.key()).isNotNull();
        }
    }

    @Test
    void aHugeCandidateCountIsOneLineWhereTheFileIsRead() {
        assertThatThrownBy(() -> ExperimentLoader.parse(HEAD + MODEL + "settings: {candidates: 1000000000}\n", "t.yaml"))
                .isInstanceOf(ExperimentException.class)
                .hasMessage("t.yaml: settings.candidates: must be <= " + SettingBounds.CANDIDATES
                        + ", got 1000000000 (the bounds and why: docs/experiments.md#bounds)");
        // past an int, past a long: still the bound, not the Java type
        assertThatThrownBy(() -> ExperimentLoader.parse(HEAD + MODEL + "settings: {candidates: 99999999999999999999999}\n", "t.yaml"))
                .hasMessageContaining("settings.candidates: must be <= " + SettingBounds.CANDIDATES + ", got 99999999999999999999999");
        // a rung's own settings are bounded alike
        assertThatThrownBy(() -> ExperimentLoader.parse(HEAD.replace("[prompt-k0]", "[{name: a, strategy: agent-2, settings: "
                + "{gate_budget: 65}}]") + MODEL, "t.yaml"))
                .hasMessageStartingWith("t.yaml: strategies[0].settings.gate_budget: must be <= 64, got 65");
    }

    @Test
    void seedsAreAnyIntegersButAtMostAThousandOfThem() {
        String many = LongStream.range(0, SettingBounds.SEEDS).mapToObj(Long::toString).collect(Collectors.joining(", "));
        assertThat(ExperimentLoader.parse(HEAD + MODEL + "seeds: [" + many + "]\n", "t.yaml").seeds())
                .hasSize(SettingBounds.SEEDS);
        assertThatThrownBy(() -> ExperimentLoader.parse(HEAD + MODEL + "seeds: [" + many + ", -1]\n", "t.yaml"))
                .hasMessage("t.yaml: seeds: lists 1001 values; at most 1000 are allowed (the bounds and why: "
                        + "docs/experiments.md#bounds)");
        assertThat(ExperimentLoader.parse(HEAD + MODEL + "seeds: [" + Long.MIN_VALUE + ", " + Long.MAX_VALUE + "]\n",
                "t.yaml").seeds()).containsExactly(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Test
    void aLimitOverrideHasTheFilesBound() {
        Experiment e = ExperimentLoader.parse(HEAD + MODEL, "t.yaml");
        assertThat(e.withLimit(SettingBounds.ITEMS).limit()).isEqualTo(SettingBounds.ITEMS);
        assertThatThrownBy(() -> e.withLimit(SettingBounds.ITEMS + 1))
                .hasMessageContaining("limit: must be <= " + SettingBounds.ITEMS + ", got " + (SettingBounds.ITEMS + 1));
    }

    /** The file's error message with {@code value} at the key, or null when it loads. */
    private static String load(Key k, String value) {
        try {
            ExperimentLoader.parse(yaml(k.path(), value), "t.yaml");
            return null;
        } catch (ExperimentException e) {
            return e.getMessage();
        }
    }

    private static String yaml(String path, String value) {
        String[] p = path.split("\\.");
        // a served model's fields on a served model; batch_width, which a served model has not, on one in a folder
        if (p[0].equals("models")) return HEAD + (p[2].equals(BatchWidth.FIELD)
                ? "models:\n  base: {path: Qwen/Qwen2.5-0.5B-Instruct, " + p[2] + ": " + value + "}\n"
                : String.format(SERVED, ", " + p[2] + ": " + value));
        if (p.length == 1) return HEAD + MODEL + p[0] + ": " + value + "\n";
        if (p.length == 2) return HEAD + MODEL + p[0] + ": {" + p[1] + ": " + value + "}\n";
        String companion = COMPANIONS.containsKey(path) ? ", " + COMPANIONS.get(path) + ": " + value : "";
        return HEAD + MODEL + p[0] + ": {" + p[1] + ": {" + p[2] + ": " + value + companion + "}}\n";
    }

    private static List<Key> keys() {
        List<Key> keys = new ArrayList<>();
        for (SettingsBlock<?> block : blocks()) {
            String prefix = block == SharedKnobs.BLOCK ? "settings." : "settings." + block.key() + ".";
            boolean shipped = !block.type().getPackageName().startsWith("dev.ladder.example");
            block.bounds().forEach((key, b) -> keys.add(new Key(prefix + key, b, integral(block, key), shipped)));
        }
        for (Map.Entry<String, Bound> f : ExperimentLoader.FIELD_BOUNDS.entrySet()) {
            keys.add(new Key(f.getKey(), f.getValue(), !f.getKey().equals("scorers.tolerance"), true));
        }
        return keys;
    }

    private static List<SettingsBlock<?>> blocks() {
        List<SettingsBlock<?>> blocks = new ArrayList<>(List.of(SharedKnobs.BLOCK));
        blocks.addAll(Pipelines.registry().settingsBlocks());
        return blocks;
    }

    /** Whether a block's key holds integers: its record component (keys are in component order) is no double. */
    private static boolean integral(SettingsBlock<?> block, String key) {
        Class<?> t = block.type().getRecordComponents()[block.keys().indexOf(key)].getType();
        return t != double.class && t != Double.class;
    }

    /** A number as YAML reads it back exactly: integers without a decimal point, decimals in full. */
    private static String text(double d, boolean integral) {
        return integral ? Long.toString((long) d) : Double.toString(d);
    }
}
