package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.scorer.score.MetricValue;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** The judge's column and agreement table, Cohen's kappa, and the pipeline error analysis table. */
class JudgeReportTest {

    static ItemResult row(String cell, int i, boolean ex, Boolean judge, String diagnosis) {
        return new ItemResult(cell, "i" + i, "lookup", "easy", "q" + i, "SELECT 1", "SELECT 1", true, ex, ex, null, null,
                ex ? "correct" : "wrong-table", "standard", 10, 5, 3, 1, 0, 0, 0, 1, 0, null, judge,
                judge == null ? null : "because", diagnosis);
    }

    @Test
    void kappaIsAgreementBeyondChance() {
        assertThat(Statistics.cohenKappa(5, 0, 0, 5)).isEqualTo(1.0);
        assertThat(Statistics.cohenKappa(0, 5, 5, 0)).isEqualTo(-1.0);
        // 20 items: po = 0.7, pe = (10*12 + 10*8) / 400 = 0.5
        assertThat(Statistics.cohenKappa(8, 2, 4, 6)).isCloseTo(0.4, Offset.offset(1e-12));
        assertThat(Statistics.cohenKappa(10, 0, 0, 0)).isNaN();
        assertThat(Statistics.cohenKappa(0, 0, 0, 0)).isNaN();
    }

    @Test
    void judgedRunsGetAJudgeColumnAndAnAgreementTable() {
        Cell a = new Cell(0, "progressive", "m", "", "progressive", 0);
        List<ItemResult> rows = new ArrayList<>();
        // judge & EX: 8 both, 2 judge only, 4 EX only, 6 neither
        int i = 0;
        for (int k = 0; k < 8; k++) rows.add(row("progressive", i++, true, true, null));
        for (int k = 0; k < 2; k++) rows.add(row("progressive", i++, false, true, "wrong-filter"));
        for (int k = 0; k < 4; k++) rows.add(row("progressive", i++, true, false, "wrong-join"));
        for (int k = 0; k < 6; k++) rows.add(row("progressive", i++, false, false, "wrong-join"));
        Report r = Report.of(List.of(a), rows);
        assertThat(r.summary().data().columnNames()).contains("Judge");
        var agreement = r.judgeAgreement().orElseThrow().data();
        assertThat(agreement.intColumn("both correct").get(0)).isEqualTo(8);
        assertThat(agreement.intColumn("judge only").get(0)).isEqualTo(2);
        assertThat(agreement.intColumn("EX only").get(0)).isEqualTo(4);
        assertThat(agreement.intColumn("neither").get(0)).isEqualTo(6);
        assertThat(agreement.doubleColumn("agreement").get(0)).isCloseTo(0.7, Offset.offset(1e-12));
        assertThat(agreement.doubleColumn("kappa").get(0)).isCloseTo(0.4, Offset.offset(1e-12));
        // rows without their run's config cannot say whether the judge is the rung's own model
        assertThat(agreement.stringColumn("self-judged").get(0)).isEqualTo("?");
        var diagnoses = r.diagnoses().orElseThrow().data();
        int joinRow = diagnoses.stringColumn("category").indexOf("wrong-join");
        assertThat(diagnoses.intColumn("progressive").get(joinRow)).isEqualTo(10);
        assertThat(r.tables()).extracting(ReportTable::id).contains("judge-agreement", "diagnoses");
    }

    @Test
    void aReplyWithoutAVerdictIsCountedApartNotAsNo() {
        Cell a = new Cell(0, "agent-3", "m", "", "agent-3", 0);
        List<ItemResult> rows = new ArrayList<>();
        int i = 0;
        for (int k = 0; k < 3; k++) rows.add(row("agent-3", i++, true, true, null));
        rows.add(row("agent-3", i++, false, false, null));
        // two replies the judge pass could not read: judged, with no verdict
        for (int k = 0; k < 2; k++) {
            rows.add(row("agent-3", i++, true, null, null)
                    .withScore(ItemResult.JUDGE, new MetricValue(null, ItemResult.JUDGE_UNKNOWN + "no YES or NO")));
        }
        assertThat(rows.get(4).judged()).isTrue();
        assertThat(rows.get(4).judgeUnknown()).isTrue();
        assertThat(rows.get(4).judge()).isNull();
        Report r = Report.of(List.of(a), rows);
        var agreement = r.judgeAgreement().orElseThrow().data();
        assertThat(agreement.intColumn("judged").get(0)).isEqualTo(4);
        assertThat(agreement.intColumn("unknown").get(0)).isEqualTo(2);
        assertThat(agreement.intColumn("both correct").get(0)).isEqualTo(3);
        assertThat(agreement.intColumn("neither").get(0)).isEqualTo(1);
        // the summary's Judge is the share of YES among the verdicts: 3 of 4, not 3 of 6
        assertThat(r.summary().data().doubleColumn("Judge").get(0)).isEqualTo(0.75);
        // a run whose every reply was unreadable still shows the table, with its unknown count
        Report none = Report.of(List.of(a), rows.subList(4, 6));
        assertThat(none.judgeAgreement().orElseThrow().data().intColumn("unknown").get(0)).isEqualTo(2);
    }

    @Test
    void runsWithoutAJudgeOrDiagnosesKeepTheirTables() {
        Cell a = new Cell(0, "prompt-k0", "m", "", "prompt-k0", 0);
        Report r = Report.of(List.of(a), List.of(row("prompt-k0", 0, true, null, null)));
        assertThat(r.summary().data().columnNames()).doesNotContain("Judge");
        assertThat(r.judgeAgreement()).isEmpty();
        assertThat(r.diagnoses()).isEmpty();
    }
}
