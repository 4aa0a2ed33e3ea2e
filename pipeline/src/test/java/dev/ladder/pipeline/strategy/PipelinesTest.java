package dev.ladder.pipeline.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.pipeline.agent.PromptStrategy;
import dev.ladder.pipeline.gsr.GsrSettings;
import dev.ladder.pipeline.oracle.OracleTeacher;
import dev.ladder.pipeline.progressive.ErrorAnalysis;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry of pipelines found on the class path, and its refusals of two pipelines that claim one name. */
class PipelinesTest {

    @Test
    void theLadderComesFirstThenEachPublishedPipeline() {
        assertThat(Pipelines.registry().all()).extracting(Pipeline::name)
                .startsWith("ladder", "structured-search", "gsr", "soft-attention", "progressive");
        assertThat(Strategies.names()).startsWith("prompt-k0", "prompt-k3", "agent-0", "agent-1", "agent-2", "agent-3",
                "prompt-k1", "structured-search", "gsr", "soft-attention", "progressive");
        assertThat(Strategies.byName(" GSR ").name()).isEqualTo("gsr");
        assertThatThrownBy(() -> Strategies.byName("agent-9")).hasMessageStartingWith("unknown strategy 'agent-9' (known: prompt-k0");
        assertThat(Pipelines.registry().pipelineOf("gsr").settings()).isSameAs(GsrSettings.BLOCK);
        assertThat(Pipelines.registry().pipelineOf("agent-2").settings()).isNull();
        assertThat(Pipelines.registry().settingsBlocks()).extracting(SettingsBlock::key)
                .startsWith("structured_search", "gsr", "soft_attention", "progressive");
        assertThat(Pipelines.registry().diagnosisCategories()).startsWith(ErrorAnalysis.CATEGORIES.toArray(String[]::new));
    }

    @Test
    void everyCallKindHasOneTeacher() {
        Set<String> kinds = new HashSet<>();
        for (OracleTeacher t : Pipelines.registry().oracleTeachers()) {
            for (String k : t.kinds()) assertThat(kinds.add(k)).as("kind " + k + " taught twice").isTrue();
        }
        assertThat(kinds).contains("sql");
    }

    private record Named(String name, List<Strategy> strategies, SettingsBlock<?> settings) implements Pipeline {}

    @Test
    void twoPipelinesClaimingOneStrategyOrOneBlockAreRefused() {
        Pipeline a = new Named("a", List.of(new PromptStrategy("same", 0)), null);
        Pipeline b = new Named("b", List.of(new PromptStrategy("same", 1)), null);
        assertThatThrownBy(() -> new Pipelines(List.of(a, b)))
                .hasMessage("strategy 'same' is registered by two pipelines: a and b");
        Pipeline c = new Named("c", List.of(new PromptStrategy("c1", 0)), GsrSettings.BLOCK);
        Pipeline d = new Named("d", List.of(new PromptStrategy("d1", 0)), GsrSettings.BLOCK);
        assertThatThrownBy(() -> new Pipelines(List.of(c, d)))
                .hasMessage("settings block 'gsr' is claimed by two pipelines: c and d");
    }
}
