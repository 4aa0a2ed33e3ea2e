package dev.ladder.eval.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.scorer.bench.Benchmark;
import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.scorer.bench.Benchmarks;
import dev.ladder.eval.check.LeakCheck.Entry;
import dev.ladder.eval.check.LeakCheck.Provenance;
import dev.ladder.eval.check.LeakCheck.Report;
import dev.ladder.pipeline.kit.QuestionWords;
import dev.ladder.pipeline.kit.QuestionWords.Word;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The leak check on the real word lists, code and docs, and on planted leaks it must find. */
public class LeakCheckTest {

    private static final Benchmark CM = Benchmarks.load("classicmodels");

    static List<Entry> realEntries() {
        List<Entry> entries = new ArrayList<>(LeakCheck.lexiconEntries());
        entries.addAll(LeakCheck.sourcePhrases(LeakCheck.findCheckout(Path.of(""))));
        return entries;
    }

    private static Report check(List<Entry> entries) {
        return LeakCheck.check(entries, CM.split("test"), CM.split("train"), LeakCheck.provenance());
    }

    /** Words of the test split that no train question has, picked now so that no test question is written here. */
    public static List<String> testOnlyWords() {
        Set<String> train = new HashSet<>();
        for (BenchmarkItem i : CM.split("train")) {
            for (Word w : QuestionWords.words(i.question())) {
                train.add(w.lower());
                train.add(w.norm());
            }
        }
        Set<String> listed = new HashSet<>();
        LeakCheck.provenance().forEach(p -> listed.add(p.entry()));
        List<String> out = new ArrayList<>();
        for (BenchmarkItem i : CM.split("test")) {
            for (Word w : QuestionWords.words(i.question())) {
                if (w.lower().matches("[a-z]{4,}") && !train.contains(w.lower()) && !train.contains(w.norm())
                        && !listed.contains(w.lower()) && !out.contains(w.lower())) {
                    out.add(w.lower());
                }
            }
        }
        return out;
    }

    @Test
    void theAgentsWordListsCodeAndDocsLeakNothing() {
        List<Entry> entries = realEntries();
        // the scan really reads them: the lexicon, string literals and comments of the code, quotes of the docs
        assertThat(entries).anyMatch(e -> e.word() && e.where().startsWith("intent-lexicon.txt"))
                .anyMatch(e -> e.where().startsWith("pipeline/src/main/java/dev/ladder/pipeline/kit/IntentClassifier"))
                .anyMatch(e -> e.where().startsWith("pipeline/src/test/java/dev/ladder/pipeline/agent/"))
                .anyMatch(e -> e.where().startsWith("docs/agent.md"));
        Report r = check(entries);
        assertThat(r.leaks()).isEmpty();
        assertThat(r.problems()).isEmpty();
        assertThat(r.clean()).isTrue();
    }

    @Test
    void aPlantedTestOnlyWordInAnExtraLexiconFails() {
        String planted = testOnlyWords().get(0);
        List<Entry> entries = realEntries();
        entries.add(new Entry(planted, "planted.txt extra", true));
        Report r = check(entries);
        assertThat(r.clean()).isFalse();
        assertThat(r.leaks()).singleElement().satisfies(row -> {
            assertThat(row.entry().text()).isEqualTo(planted);
            assertThat(row.test()).isPositive();
            assertThat(row.dev()).isZero();
        });
    }

    @Test
    void aQuoteInACommentOrTheDocsIsFoundAndSoIsARunOfItsWords() {
        // a test question whose words 2 to 6 occur in no train question
        BenchmarkItem item = CM.split("test").stream()
                .filter(i -> QuestionWords.words(i.question()).size() >= 8 && !check(List.of(new Entry(
                        String.join(" ", QuestionWords.words(i.question()).subList(1, 6).stream()
                                .map(Word::lower).toList()),
                        "x", false))).leaks().isEmpty())
                .findFirst().orElseThrow();
        String question = item.question();
        List<Word> words = QuestionWords.words(question);
        // a comment quotes the question; the docs change its first word but keep a run of five
        String java = "class X {\n    // as in \"" + question + "\"\n    int x;\n}\n";
        String changed = "Kindly " + String.join(" ", words.subList(1, words.size()).stream().map(Word::lower).toList());
        String md = "# X\n\nFor example\n\"" + changed + "\".\n";
        assertThat(check(LeakCheck.javaPhrases(java, "X.java")).leaks()).extracting(row -> row.entry().where())
                .isNotEmpty().containsOnly("X.java:2");
        assertThat(check(LeakCheck.markdownPhrases(md, "x.md")).leaks()).extracting(row -> row.entry().where())
                .isNotEmpty().containsOnly("x.md:4");
        // code outside comments and string literals, and quotes of invented text, are not entries
        assertThat(LeakCheck.javaPhrases("int a = b; // no quote here\nString s = \"kept\";\nchar c = '\"';\n", "Y.java"))
                .extracting(Entry::text).containsExactly("kept");
    }

    @Test
    void provenanceIsCheckedWhenItsItemsAreLoadedAndTrustedOtherwise() {
        BenchmarkItem test = item("t-1", "Which zebras graze at dawn?");
        BenchmarkItem dev = item("zoo_train-1", "How many zebras are there?");
        List<Entry> zebra = List.of(new Entry("zebras", "lexicon", true), new Entry("dawn", "lexicon", true));
        List<BenchmarkItem> none = List.of(item("other-1", "Anything else?"));

        Report trusted = LeakCheck.check(zebra, List.of(test), none,
                List.of(new Provenance("zebras", "zoo_train-1"), new Provenance("dawn", "english: a time of day")));
        assertThat(trusted.clean()).isTrue();
        assertThat(trusted.rows()).extracting(LeakCheck.Row::justification)
                .containsExactly("zoo_train-1 (trusted: no zoo_train loaded)", "general English (a time of day)");

        Report checked = LeakCheck.check(zebra.subList(0, 1), List.of(test), List.of(dev), List.of(new Provenance("zebras", "zoo_train-1")));
        assertThat(checked.rows()).singleElement().satisfies(row -> assertThat(row.dev()).isOne());
        assertThat(checked.clean()).isTrue();

        Report wrong = LeakCheck.check(List.of(zebra.get(1)), List.of(test), List.of(dev),
                List.of(new Provenance("dawn", "zoo_train-1"), new Provenance("dawn", "zoo_train-9")));
        assertThat(wrong.problems()).containsExactly("provenance of 'dawn': item zoo_train-1 does not contain it",
                "provenance of 'dawn': no item zoo_train-9 among the zoo_train items");
        assertThat(wrong.leaks()).hasSize(1);
        assertThat(wrong.clean()).isFalse();
    }

    private static BenchmarkItem item(String id, String question) {
        return new BenchmarkItem(id, question, "SELECT 1", "lookup", "easy", false, List.of(), "", "");
    }
}
