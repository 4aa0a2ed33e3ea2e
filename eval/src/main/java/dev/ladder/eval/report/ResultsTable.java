package dev.ladder.eval.report;

import java.util.stream.Stream;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The long table of results: one row per cell and item (results.csv), with each row's outcome; rows whose gold failed
 * come after each cell's scored rows.
 */
final class ResultsTable {

    private ResultsTable() {}

    static Table build(ReportModel model) {
        StringColumn rung = StringColumn.create("rung");
        StringColumn item = StringColumn.create("item");
        StringColumn category = StringColumn.create("category");
        StringColumn difficulty = StringColumn.create("difficulty");
        BooleanColumn va = BooleanColumn.create("VA");
        BooleanColumn ex = BooleanColumn.create("EX");
        BooleanColumn em = BooleanColumn.create("EM");
        BooleanColumn ts = BooleanColumn.create("TS");
        StringColumn errorClass = StringColumn.create("error_class");
        StringColumn outcome = StringColumn.create("outcome");
        IntColumn prompt = IntColumn.create("prompt_tokens");
        IntColumn generated = IntColumn.create("generated_tokens");
        LongColumn ms = LongColumn.create("ms");
        model.byRung.forEach((name, scored) -> Stream.concat(scored.values().stream(),
                model.goldFailed.get(name).values().stream()).forEach(r -> {
            rung.append(name);
            item.append(r.itemId());
            category.append(ReportModel.label(r.category()));
            difficulty.append(ReportModel.label(r.difficulty()));
            va.append(r.va());
            ex.append(r.ex());
            em.append(r.em());
            if (r.ts() == null) ts.appendMissing();
            else ts.append(r.ts());
            errorClass.append(ReportModel.label(r.errorClass()));
            outcome.append(r.outcome());
            prompt.append(r.promptTokens());
            generated.append(r.generatedTokens());
            ms.append(r.millis());
        }));
        return Table.create("results", rung, item, category, difficulty, va, ex, em, ts, errorClass, outcome, prompt,
                generated, ms);
    }
}
