package dev.ladder.scorer.score.em;

/**
 * One leaf condition of WHERE / HAVING / ON, Spider's {@code (not_op, op_id, val_unit, val1, val2)}.
 *
 * @param not     negated ({@code NOT IN}, {@code NOT LIKE}, {@code NOT EXISTS}, {@code IS NOT NULL}, {@code NOT (..)})
 * @param op      {@code = != > < >= <= like regexp in between is exists}, or {@code not} / {@code expr} for a
 *                negated compound condition / a bare boolean expression
 * @param valUnit canonical text of the left operand (empty for EXISTS)
 * @param val1    canonical text of the right operand: a value ({@code ?} when values are masked), a column,
 *                or a nested query in parentheses; null when the operator has none
 * @param val2    upper bound of BETWEEN, else null
 */
public record CondUnit(boolean not, String op, String valUnit, String val1, String val2)
        implements Comparable<CondUnit> {

    public String text() {
        StringBuilder sb = new StringBuilder();
        if (not) sb.append("not ");
        if (!valUnit.isEmpty()) sb.append(valUnit).append(' ');
        sb.append(op);
        if (val1 != null) sb.append(' ').append(val1);
        if (val2 != null) sb.append(" and ").append(val2);
        return sb.toString();
    }

    @Override
    public int compareTo(CondUnit o) {
        return text().compareTo(o.text());
    }

    @Override
    public String toString() {
        return text();
    }
}
