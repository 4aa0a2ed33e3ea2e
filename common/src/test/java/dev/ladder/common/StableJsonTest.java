package dev.ladder.common;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StableJsonTest {

    private final ObjectMapper json = StableJson.mapper();

    enum Phase { SKETCH, VALIDATE, REPAIR }

    record Detail(String name, Map<String, Object> facts, Set<String> tables, Collection<String> columns) {}

    @Test
    void unorderedMapsAndSetsAreWrittenSortedAtAnyDepth() throws Exception {
        Map<String, Object> facts = Map.of("score", 0.95, "valid", true, "penalties", List.of(),
                "steps", Map.of("tables", Set.of("orders", "customers", "payments"), "error", "none"));
        String written = json.writeValueAsString(new Detail("x", facts, Set.of("b", "c", "a"), Set.of("z", "y")));
        assertThat(written).isEqualTo("{\"name\":\"x\",\"facts\":{\"penalties\":[],\"score\":0.95,\"steps\":{\"error\":"
                + "\"none\",\"tables\":[\"customers\",\"orders\",\"payments\"]},\"valid\":true},"
                + "\"tables\":[\"a\",\"b\",\"c\"],\"columns\":[\"y\",\"z\"]}");
        // the tree a trace stage keeps is built by the same serializers
        assertThat(json.valueToTree(facts).toString()).isEqualTo(
                "{\"penalties\":[],\"score\":0.95,\"steps\":{\"error\":\"none\",\"tables\":[\"customers\",\"orders\","
                        + "\"payments\"]},\"valid\":true}");
    }

    @Test
    void mapsWithAnOrderOfTheirOwnKeepIt() throws Exception {
        Map<String, Integer> parts = new LinkedHashMap<>();
        parts.put("table", 1);
        parts.put("column", 2);
        parts.put("join", 3);
        Set<String> insertion = new LinkedHashSet<>(List.of("z", "a"));
        Map<Phase, String> phases = new EnumMap<>(Phase.class);
        phases.put(Phase.REPAIR, "r");
        phases.put(Phase.SKETCH, "s");
        assertThat(json.writeValueAsString(List.of(parts, insertion, phases)))
                .isEqualTo("[{\"table\":1,\"column\":2,\"join\":3},[\"z\",\"a\"],{\"SKETCH\":\"s\",\"REPAIR\":\"r\"}]");
    }

    @Test
    void identityHashedKeysAreSortedByTheirText() throws Exception {
        Map<Phase, Integer> counts = new HashMap<>();
        for (Phase p : Phase.values()) counts.put(p, p.ordinal());
        assertThat(json.writeValueAsString(counts)).isEqualTo("{\"REPAIR\":2,\"SKETCH\":0,\"VALIDATE\":1}");
    }

    /** Map.of's order is salted per JVM: the same content written by several JVMs is one text. */
    @Test
    void severalJvmsWriteTheSameBytes() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        java.util.Set<String> outputs = new java.util.HashSet<>();
        java.util.Set<String> plain = new java.util.HashSet<>();
        for (int i = 0; i < 4; i++) {
            Process p = new ProcessBuilder(java, "-cp", cp, Writer.class.getName()).redirectErrorStream(true).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
            assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
            outputs.add(lines.get(0));
            plain.add(lines.get(1));
        }
        assertThat(outputs).hasSize(1);
        // the instrument works: a plain mapper wrote the same content in more than one order (four JVMs agreeing by chance: about 1 in 10,000)
        assertThat(plain).hasSizeGreaterThan(1);
    }

    /** Writes one content with the stable mapper, then with a plain one, in a fresh JVM. */
    public static final class Writer {
        public static void main(String[] args) throws Exception {
            Map<String, Object> content = new LinkedHashMap<>();
            for (int i = 0; i < 12; i++) content.put("m" + i, Map.of("a", i, "b", i, "c", i, "d", i, "e", i, "f", i));
            System.out.println(StableJson.mapper().writeValueAsString(content));
            System.out.println(new ObjectMapper().writeValueAsString(content));
        }
    }
}
