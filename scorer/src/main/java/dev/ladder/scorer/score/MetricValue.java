package dev.ladder.scorer.score;

import java.util.List;

/**
 * A metric's value for one prediction, and its detail in words (flags such as {@code alternative} or
 * {@code timeout:db3}, a judge's reasoning), or null.
 *
 * @param value 1 or 0 for a yes/no measure, any finite number otherwise; null where the metric does not apply
 */
public record MetricValue(Double value, String detail) {

    public static final MetricValue ABSENT = new MetricValue(null, null);

    public MetricValue {
        if (value != null && !Double.isFinite(value)) throw new IllegalArgumentException("a metric value is finite, got " + value);
        if (detail != null && detail.isEmpty()) detail = null;
    }

    /** A yes/no value with its flags as the detail (comma-separated, none: null). */
    public static MetricValue of(boolean holds, List<String> flags) {
        return new MetricValue(holds ? 1.0 : 0.0, flags == null || flags.isEmpty() ? null : String.join(",", flags));
    }

    /** A yes/no value, or null when absent. */
    public static MetricValue ofNullable(Boolean holds, String detail) {
        return holds == null ? new MetricValue(null, detail) : new MetricValue(holds ? 1.0 : 0.0, detail);
    }

    /** This value with another detail. */
    public MetricValue withDetail(String d) {
        return new MetricValue(value, d);
    }

    public boolean present() {
        return value != null;
    }

    /** True for a yes/no value of 1. */
    public boolean holds() {
        return value != null && value == 1.0;
    }

    /** The yes/no value, null when absent. */
    public Boolean asBoolean() {
        return value == null ? null : value == 1.0;
    }

    /** The detail's flags (empty when none). */
    public List<String> flags() {
        return detail == null ? List.of() : List.of(detail.split(","));
    }
}
