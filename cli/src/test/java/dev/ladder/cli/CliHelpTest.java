package dev.ladder.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The front door: help on every group command, however asked, and a suggestion for a mistyped flag. */
class CliHelpTest {

    static final List<String> GROUPS = List.of("db", "model", "bench", "testsuite", "adapters");

    @Test
    void everyGroupListsItsSubcommandsOnHelpDashHHelpAndBare() {
        for (String group : GROUPS) {
            for (List<String> args : List.of(List.of(group, "--help"), List.of(group, "-h"), List.of(group, "help"),
                    List.of(group))) {
                LadderCliTest.Run r = LadderCliTest.run(args.toArray(String[]::new));
                assertThat(r.code()).as(args + ": " + r.err()).isZero();
                assertThat(r.out()).as(String.join(" ", args)).contains("Usage: ladder " + group).contains("Commands:");
                assertThat(r.err()).as(String.join(" ", args)).isEmpty();
            }
        }
        // help on a subcommand of a group, through the group's own help command
        LadderCliTest.Run sub = LadderCliTest.run("db", "help", "info");
        assertThat(sub.code()).isZero();
        assertThat(sub.out()).contains("Usage: ladder db info");
    }

    @Test
    void aMistypedFlagGetsTheClosestFlagSuggested() {
        LadderCliTest.Run r = LadderCliTest.run("run", "--limt", "3", "experiments/tiny.yaml");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.err()).contains("'--limt'").contains("did you mean --limit?");
    }

    @Test
    void aMistypedKeywordIsASyntaxErrorAndAWriteIsRefusedWithItsReason() {
        LadderCliTest.Run typo = LadderCliTest.run("sql", "classicmodels", "SELEC 1");
        assertThat(typo.code()).isEqualTo(1);
        assertThat(typo.err()).contains("SYNTAX").contains("'SELEC'").doesNotContain("REJECTED");
        LadderCliTest.Run write = LadderCliTest.run("sql", "classicmodels", "DELETE FROM orders");
        assertThat(write.err()).contains("REJECTED").contains("not a read-only query");
    }
}
