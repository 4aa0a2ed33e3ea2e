package dev.ladder.pipeline.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.pipeline.gsr.GsrSettings;
import dev.ladder.pipeline.progressive.ProgressiveSettings;
import dev.ladder.pipeline.search.SearchSettings;
import dev.ladder.pipeline.soft.SoftSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A settings record bound to its YAML block: keys, reading over a base, refusals at the key, writing, equality. */
class SettingsBlockTest {

    /** Reads values from a map, each number checked against its bound; a problem's message is "key: problem". */
    private record MapSource(Map<String, Object> values) implements KnobSource {
        @Override
        public Integer integer(String key, Integer dflt, Bound bound) {
            return values.containsKey(key) ? (Integer) within(key, bound) : dflt;
        }

        @Override
        public long longValue(String key, long dflt, Bound bound) {
            return values.containsKey(key) ? (Long) within(key, bound) : dflt;
        }

        @Override
        public double number(String key, double dflt, Bound bound) {
            return values.containsKey(key) ? ((Number) within(key, bound)).doubleValue() : dflt;
        }

        private Object within(String key, Bound bound) {
            Number n = (Number) values.get(key);
            String problem = bound.problem(n.doubleValue(), String.valueOf(n));
            if (problem != null) throw problem(key, problem);
            return n;
        }

        @Override
        public boolean bool(String key, boolean dflt) {
            return values.containsKey(key) ? (Boolean) values.get(key) : dflt;
        }

        @Override
        public String string(String key, String dflt) {
            return values.containsKey(key) ? (String) values.get(key) : dflt;
        }

        @SuppressWarnings("unchecked")
        @Override
        public List<String> stringList(String key, List<String> dflt) {
            return values.containsKey(key) ? (List<String>) values.get(key) : dflt;
        }

        @Override
        public boolean has(String key) {
            return values.containsKey(key);
        }

        @Override
        public String text(String key) {
            return values.get(key) instanceof String s ? s : null;
        }

        @Override
        public RuntimeException problem(String key, String problem) {
            return new IllegalStateException(key + ": " + problem);
        }
    }

    /** A record with every supported kind of value. */
    public record Kinds(@Bounded(min = 0, max = 10) int count, @Bounded(min = 0, max = 1e12) long big,
                        @Bounded(min = 0, max = 1) double weight, boolean on, String label, List<String> words) {
        public Kinds {
            if (label.isEmpty()) throw new IllegalArgumentException("a label is needed");
            words = List.copyOf(words);
        }
    }

    private static final SettingsBlock<Kinds> KINDS = SettingsBlock.of("kinds", Kinds.class,
            new Kinds(1, 2L, 0.5, true, "x", List.of("a")));

    @Test
    void keysAreTheComponentsInSnakeCaseUnlessAKnobNamesThem() {
        assertThat(GsrSettings.BLOCK.keys()).containsExactly("decomposition", "schema_linking", "execution_refinement",
                "linking_rounds", "value_examples", "max_indexed_values", "result_rows", "explore_limit", "temperature",
                "max_tokens");
        assertThat(ProgressiveSettings.BLOCK.keys()).startsWith("high_confidence_threshold", "max_iterations", "retries",
                "acceptance_threshold");
        assertThat(SearchSettings.BLOCK.keys()).contains("tokens_per_sketch", "table_k", "violation_penalty");
        assertThat(SoftSettings.BLOCK.factorName()).isEqualTo("soft attention");
        assertThat(KINDS.factorName()).isEqualTo("kinds");
    }

    @Test
    void aKeyLeftOutKeepsTheBaseValue() {
        Kinds base = new Kinds(3, 4L, 0.25, false, "base", List.of("b", "c"));
        assertThat(KINDS.read(new MapSource(Map.of()), base)).isEqualTo(base);
        assertThat(KINDS.read(new MapSource(Map.of("count", 7, "on", true, "words", List.of("z"))), base))
                .isEqualTo(new Kinds(7, 4L, 0.25, true, "base", List.of("z")));
        assertThat(ProgressiveSettings.BLOCK.read(new MapSource(Map.of("acceptance_threshold", 0.5)), ProgressiveSettings.DEFAULT)
                .acceptance()).isEqualTo(0.5);
    }

    @Test
    void aRefusalIsReportedAtTheKeyItNames() {
        assertThatThrownBy(() -> KINDS.read(new MapSource(Map.of("count", -2)), KINDS.defaults()))
                .hasMessage("count: must be >= 0, got -2");
        assertThatThrownBy(() -> KINDS.read(new MapSource(Map.of("count", 11)), KINDS.defaults()))
                .hasMessage("count: must be <= 10, got 11 (the bounds and why: docs/experiments.md#bounds)");
        assertThat(KINDS.read(new MapSource(Map.of("count", 10)), KINDS.defaults()).count()).isEqualTo(10);
        // a refusal that names no key is the block's
        assertThatThrownBy(() -> KINDS.read(new MapSource(Map.of("label", "")), KINDS.defaults()))
                .hasMessage("null: a label is needed");
        assertThatThrownBy(() -> SoftSettings.BLOCK.read(new MapSource(Map.of("min_rows", 5, "max_rows", 2)), SoftSettings.DEFAULT))
                .hasMessage("max_rows: must be >= min_rows (5), got 2");
        assertThatThrownBy(() -> SearchSettings.BLOCK.read(new MapSource(Map.of("join_weight", -1.0)), SearchSettings.DEFAULT))
                .hasMessage("join_weight: must be >= 0, got -1.0");
    }

    @Test
    void writesEveryKeyInOrderWithPlainNumbersAndReadsBackTheSame() {
        Kinds k = new Kinds(2, 5_000_000_000L, 0.000001, false, "y", List.of("p", "q"));
        assertThat(KINDS.write(k).toString())
                .isEqualTo("{\"count\":2,\"big\":5000000000,\"weight\":0.000001,\"on\":false,\"label\":\"y\",\"words\":[\"p\",\"q\"]}");
        assertThat(KINDS.factorLine(k)).isEqualTo("count=2 big=5000000000 weight=0.000001 on=off label=y words=p|q");
        assertThat(GsrSettings.BLOCK.factorLine(GsrSettings.DEFAULT)).startsWith("decomposition=on schema_linking=on");
    }

    @Test
    void settingsHoldOnlyWhatDiffersFromABlocksDefaults() {
        Settings changed = Settings.DEFAULT.with(GsrSettings.BLOCK, GsrSettings.DEFAULT.withTemperature(0.4));
        assertThat(changed.of(GsrSettings.BLOCK).temperature()).isEqualTo(0.4);
        assertThat(changed.declared(SoftSettings.BLOCK)).isEqualTo(SoftSettings.DEFAULT);
        assertThat(changed.with(GsrSettings.BLOCK, GsrSettings.DEFAULT)).isEqualTo(Settings.DEFAULT);
        assertThat(changed.withSeed(5).of(GsrSettings.BLOCK)).isEqualTo(changed.of(GsrSettings.BLOCK));
    }

    /** A block with a budget and a temperature that are the rung's unless set. */
    public record Budgeted(@Bounded(min = 1, max = 8) int rounds,
                           @Follows("max_new_tokens") @Bounded(min = 1, max = SettingBounds.TOKENS) Integer maxTokens,
                           @Follows("sample_temperature") @Bounded(min = 0, max = 2) Double temperature) {}

    private static final SettingsBlock<Budgeted> BUDGETED = SettingsBlock.of("budgeted", Budgeted.class,
            new Budgeted(1, null, 0.0));

    @Test
    void aFollowerIsTheRungsKnobUntilTheBlockSetsANumber() {
        Budgeted declared = BUDGETED.defaults();
        assertThat(BUDGETED.write(declared).toString())
                .isEqualTo("{\"rounds\":1,\"max_tokens\":\"max_new_tokens\",\"temperature\":0}");
        assertThat(BUDGETED.factorLine(declared)).isEqualTo("rounds=1 max_tokens=max_new_tokens temperature=0");
        Settings rung = Settings.DEFAULT.withMaxNewTokens(99).withSampling(0.6, 0).with(BUDGETED, declared);
        assertThat(rung.of(BUDGETED)).isEqualTo(new Budgeted(1, 99, 0.0));
        assertThat(rung.declared(BUDGETED)).isEqualTo(declared);

        Budgeted set = BUDGETED.read(new MapSource(Map.of("max_tokens", 300, "temperature", "sample_temperature")),
                declared);
        assertThat(set).isEqualTo(new Budgeted(1, 300, null));
        assertThat(Settings.DEFAULT.withSampling(0.6, 0).with(BUDGETED, set).of(BUDGETED))
                .isEqualTo(new Budgeted(1, 300, 0.6));
        assertThat(BUDGETED.read(new MapSource(Map.of("max_tokens", "max_new_tokens")), set).maxTokens()).isNull();
        assertThat(BUDGETED.read(new MapSource(Map.of()), set)).isEqualTo(set);
        assertThat(BUDGETED.read(new MapSource(Map.of("temperature", 0.2)), set).temperature()).isEqualTo(0.2);

        assertThatThrownBy(() -> BUDGETED.read(new MapSource(Map.of("max_tokens", "lots")), declared))
                .hasMessage("max_tokens: expected a number, or max_new_tokens for the rung's, got 'lots'");
        assertThatThrownBy(() -> BUDGETED.read(new MapSource(Map.of("max_tokens", 0)), declared))
                .hasMessage("max_tokens: must be >= 1, got 0");
    }

    @Test
    void aFollowerMustMatchASharedKnob() {
        record WrongKnob(@Follows("max_tokens_per_call") @Bounded(min = 1, max = 9) Integer budget) {}
        record WrongType(@Follows("max_new_tokens") @Bounded(min = 1, max = 9) Double budget) {}
        record NotMarked(@Bounded(min = 1, max = 9) Integer budget) {}
        assertThatThrownBy(() -> SettingsBlock.of("w", WrongKnob.class, new WrongKnob(null)))
                .hasMessageContaining("@Follows(\"max_tokens_per_call\") needs an int or double shared knob");
        assertThatThrownBy(() -> SettingsBlock.of("w", WrongType.class, new WrongType(null)))
                .hasMessageContaining("an Integer or Double component to match");
        assertThatThrownBy(() -> SettingsBlock.of("w", NotMarked.class, new NotMarked(null)))
                .hasMessageContaining("(Integer, Double with @Follows)");
    }

    @Test
    void theSharedKnobsAreBoundLikeABlock() {
        assertThat(SharedKnobs.BLOCK.keys()).containsExactly("max_new_tokens", "candidates", "sample_temperature",
                "tabular_prompt", "gate_budget", "schema_subset", "projection", "rerank", "agent_k", "stop_strings",
                "stop_at_semicolon", "timeout_seconds", "row_cap");
        SharedKnobs read = SharedKnobs.BLOCK.read(new MapSource(Map.of("max_new_tokens", 64, "timeout_seconds", 2.5,
                "agent_k", 1)), Settings.DEFAULT.knobs());
        Settings s = Settings.DEFAULT.withSeed(7).with(read);
        assertThat(s.maxNewTokens()).isEqualTo(64);
        assertThat(s.k()).isEqualTo(1);
        assertThat(s.limits().timeout().toMillis()).isEqualTo(2500);
        assertThat(s.seed()).isEqualTo(7);
        assertThat(s.knobs()).isEqualTo(read);
        assertThatThrownBy(() -> SharedKnobs.BLOCK.read(new MapSource(Map.of("sample_temperature", 0.0)),
                Settings.DEFAULT.knobs()))
                .hasMessage("sample_temperature: must be > 0, got 0.0 (set candidates: 0 to turn sampling off)");
    }

    @Test
    void everyNumberOfABlockHasItsRangeAndTheDefaultsLieWithin() {
        record Unbounded(int count) {}
        record OutOfRange(@Bounded(min = 1, max = 4) int count) {}
        record NotANumber(@Bounded(min = 1, max = 4) String name) {}
        assertThatThrownBy(() -> SettingsBlock.of("u", Unbounded.class, new Unbounded(1)))
                .hasMessageContaining("count: a numeric setting needs its range, @Bounded");
        assertThatThrownBy(() -> SettingsBlock.of("o", OutOfRange.class, new OutOfRange(5)))
                .hasMessageContaining("the default count 5 is outside its range 1 to 4");
        assertThatThrownBy(() -> SettingsBlock.of("n", NotANumber.class, new NotANumber("x")))
                .hasMessageContaining("@Bounded on a value that is no number");
        assertThat(KINDS.bounds()).containsExactly(Map.entry("count", new Bound(0, 10)), Map.entry("big", new Bound(0, 1e12)),
                Map.entry("weight", new Bound(0, 1)));
        assertThat(SharedKnobs.BLOCK.bounds().get("candidates")).isEqualTo(new Bound(0, SettingBounds.CANDIDATES));
    }

    @Test
    void aRecordWithAnUnsupportedComponentIsRefusedWhenTheBlockIsMade() {
        record Bad(Map<String, String> m) {}
        assertThatThrownBy(() -> SettingsBlock.of("bad", Bad.class, new Bad(Map.of())))
                .hasMessageContaining("a settings block holds int, long, double, boolean, String and List<String>");
        assertThatThrownBy(() -> SettingsBlock.of("Bad-Key", Kinds.class, KINDS.defaults()))
                .hasMessageContaining("snake case");
    }
}
