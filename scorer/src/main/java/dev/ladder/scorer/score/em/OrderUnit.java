package dev.ladder.scorer.score.em;

/**
 * One ORDER BY item.
 *
 * @param direction {@code asc} (also when not written) or {@code desc}
 * @param value     canonical text of the sort expression
 */
public record OrderUnit(String direction, String value) {

    @Override
    public String toString() {
        return value + " " + direction;
    }
}
