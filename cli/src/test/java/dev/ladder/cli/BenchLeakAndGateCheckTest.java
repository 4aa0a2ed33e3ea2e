package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.SqliteFixtures;
import dev.ladder.cli.LadderCliTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 'ladder bench leak-check' and 'ladder bench gate-check': verdicts, exit codes, one-line user errors. */
class BenchLeakAndGateCheckTest {

    @TempDir Path dir;

    @Test
    void leakCheckIsCleanOnTheCheckoutAndFailsOnAPlantedTestOnlyWord() throws IOException {
        Run clean = LadderCliTest.run("bench", "leak-check");
        assertThat(clean.err()).isEmpty();
        assertThat(clean.code()).isZero();
        assertThat(clean.out()).contains("development set: classicmodels train (200)").contains("clean: ");

        String planted = dev.ladder.eval.check.LeakCheckTest.testOnlyWords().get(0);
        Path lexicon = Files.writeString(dir.resolve("extra.txt"), "# planted\nplanted: " + planted + "\n");
        Run leak = LadderCliTest.run("bench", "leak-check", "--lexicon", lexicon.toString());
        assertThat(leak.code()).isEqualTo(1);
        assertThat(leak.out()).containsPattern("(?m)^" + planted + " +\\d+ +0 +LEAK +" + java.util.regex.Pattern.quote(lexicon + " planted"))
                .contains("LEAK: 1 entries or phrases occur in test questions and in no development question");
    }

    @Test
    void leakCheckUserErrorsAreOneLine() {
        for (String[] args : List.of(new String[] {"bench", "leak-check", "--lexicon", dir.resolve("none.txt").toString()},
                new String[] {"bench", "leak-check", "--dev", dir.resolve("none").toString()},
                new String[] {"bench", "leak-check", "--dev", "classicmodels"},
                new String[] {"bench", "leak-check", "--source", dir.toString()})) {
            Run r = LadderCliTest.run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err().strip().lines()).as(String.join(" ", args)).hasSize(1);
        }
    }

    private static String item(String id, String question, String sql) {
        return "{\"id\":\"" + id + "\",\"question\":\"" + question + "\",\"sql\":\"" + sql
                + "\",\"category\":\"lookup\",\"difficulty\":\"easy\"}";
    }

    @Test
    void gateCheckCountsTheGoldsThatPassTheirOwnQuestionsGate() throws IOException {
        Path db = SqliteFixtures.create(dir.resolve("zoo.sqlite"),
                "CREATE TABLE animal (id INTEGER PRIMARY KEY, name TEXT, species TEXT, weight INTEGER)",
                "INSERT INTO animal VALUES (1, 'Ada', 'zebra', 300), (2, 'Bo', 'lion', 190)");
        Path bench = Files.createDirectories(dir.resolve("zoo"));
        Files.writeString(bench.resolve("database.txt"), db.toString());
        Files.write(bench.resolve("train.jsonl"), List.of(
                item("z-1", "How many animals live in the zoo?", "SELECT COUNT(*) FROM animal"),
                item("z-2", "What is the total weight of all zebras?", "SELECT weight FROM animal WHERE species = 'zebra'"),
                item("z-3", "Which animal is the heaviest?", "SELECT name FROM animal ORDER BY weight DESC LIMIT 1"),
                item("z-4", "Which two animals are the lightest?", "SELECT name FROM animal ORDER BY weight LIMIT 3"),
                item("z-5", "List the name of every zebra.", "SELECT name FROM animal WHERE species = 'zebra'")));
        Run r = LadderCliTest.run("bench", "gate-check", bench.toString(), "--split", "train", "--failures");
        assertThat(r.err()).isEmpty();
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("zoo train: 3 of 5 golds pass their own question's intent gate (60.0%)")
                .containsPattern("(?m)^LOOKUP +1 +1 +100.0%$")
                .containsPattern("(?m)^AGGREGATE +2 +1 +50.0%$")
                .containsPattern("(?m)^TOP_K +2 +1 +50.0%$")
                .containsPattern("(?m)^all +5 +3 +60.0%$")
                .contains("! z-2\tAGGREGATE\tAGGREGATE wants an aggregate function")
                .contains("! z-4\tTOP_K\tTOP_K wants LIMIT 2, found LIMIT 3");
        assertThat(LadderCliTest.run("bench", "gate-check", bench.toString(), "--split", "test").code()).isEqualTo(2);
    }

    @Test
    void readersFreezeThenCompareAndNameWhatChanged() throws IOException {
        Path db = SqliteFixtures.create(dir.resolve("shop.sqlite"),
                "CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT, price INTEGER)",
                "INSERT INTO item VALUES (1, 'lamp', 30), (2, 'desk', 120), (3, 'chair', 30)");
        Path bench = Files.createDirectories(dir.resolve("shop"));
        Files.writeString(bench.resolve("database.txt"), db.toString());
        Files.write(bench.resolve("train.jsonl"), List.of(
                item("s-1", "How many items are there?", "SELECT COUNT(*) FROM item"),
                item("s-2", "Which item costs the most?", "SELECT title FROM item ORDER BY price DESC LIMIT 1"),
                item("s-3", "List the titles of items under 50.", "SELECT title FROM item WHERE price < 50")));
        Path frozen = dir.resolve("readers.tsv");
        Run freeze = LadderCliTest.run("bench", "readers", bench.toString(), "--freeze", frozen.toString());
        assertThat(freeze.err()).isEmpty();
        assertThat(freeze.code()).isZero();
        List<String> lines = Files.readAllLines(frozen);
        assertThat(lines).anyMatch(l -> l.startsWith("gold\ttrain/s-2\tgate:top-1\tpasses"))
                .anyMatch(l -> l.startsWith("gold\ttrain/s-1\tguard\t"))
                .anyMatch(l -> l.startsWith("gold\ttrain/s-3\ttaxonomy#n0\t"));

        Run same = LadderCliTest.run("bench", "readers", bench.toString(), "--compare", frozen.toString());
        assertThat(same.code()).as(same.out()).isZero();
        assertThat(same.out()).contains("; 0 differ from");

        // a verdict that changed: exit 1, the reader and the query named, before and after shown
        Files.write(frozen, lines.stream().map(l -> l.startsWith("gold\ttrain/s-2\tgate:top-1\t")
                ? "gold\ttrain/s-2\tgate:top-1\tTOP_K wants a LIMIT" : l).toList());
        Run changed = LadderCliTest.run("bench", "readers", bench.toString(), "--compare", frozen.toString());
        assertThat(changed.code()).isEqualTo(1);
        assertThat(changed.out()).contains("; 1 differ from").contains("gate:top-1: 1").contains("gold train/s-2")
                .contains("before: TOP_K wants a LIMIT").contains("after:  passes");

        assertThat(LadderCliTest.run("bench", "readers", bench.toString()).code()).isEqualTo(2);
        Run missing = LadderCliTest.run("bench", "readers", bench.toString(), "--compare", dir.resolve("none.tsv").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).startsWith("ladder: no such frozen verdicts file: ");
    }
}
