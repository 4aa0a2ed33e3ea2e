package dev.ladder.scorer.score.em;

/**
 * One SELECT item, Spider's {@code (agg_id, val_unit)}.
 *
 * @param agg      outermost aggregate ({@code count, sum, avg, min, max}) or {@code none}
 * @param distinct the aggregate was called with DISTINCT ({@code COUNT(DISTINCT x)})
 * @param value    canonical text of the aggregated expression (of the whole item when {@code agg} is none)
 */
public record SelectUnit(String agg, boolean distinct, String value) implements Comparable<SelectUnit> {

    public String text() {
        return "none".equals(agg) ? value : agg + "(" + (distinct ? "distinct " : "") + value + ")";
    }

    @Override
    public int compareTo(SelectUnit o) {
        return text().compareTo(o.text());
    }

    @Override
    public String toString() {
        return text();
    }
}
