package dev.ladder.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.jfree.chart.plot.CategoryPlot;
import org.jfree.data.category.CategoryDataset;
import org.junit.jupiter.api.Test;

/** What the report's charts draw, read from the chart model rather than from pixels. */
class ChartsTest {

    @Test
    void everyRungsExHasAMarkAtTheValueBesidesItsBarAndWhiskers() {
        Report report = Report.of(SyntheticRun.cells(), SyntheticRun.results(true));
        CategoryPlot plot = Charts.exByRung(report).chart().getCategoryPlot();
        CategoryDataset marks = plot.getDataset(2);
        assertThat(marks).as("a dataset of value marks").isNotNull();
        assertThat(marks.getColumnCount()).isEqualTo(report.rungs().size());
        for (int i = 0; i < report.rungs().size(); i++) {
            assertThat(marks.getValue(0, i)).isEqualTo(plot.getDataset(0).getValue(0, i));
        }
        assertThat(plot.getRenderer(2).getSeriesShape(0)).isNotNull();
    }
}
