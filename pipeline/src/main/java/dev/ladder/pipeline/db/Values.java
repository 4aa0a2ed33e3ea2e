package dev.ladder.pipeline.db;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;

/**
 * Canonical forms of result values, so that scorers compare values, not driver quirks.
 * <ul>
 *   <li>SQL NULL: {@code null}</li>
 *   <li>integer types, BIT and BOOLEAN: {@link Long} ({@link BigInteger} only beyond the long range)</li>
 *   <li>DECIMAL/NUMERIC: {@link BigDecimal} without trailing zeros and never in exponent form
 *       ({@code 12.50} becomes {@code 12.5}, {@code 100.00} becomes {@code 100}), scale at least 0</li>
 *   <li>FLOAT/DOUBLE/REAL: {@link Double}</li>
 *   <li>DATE: {@link LocalDate}; DATETIME/TIMESTAMP: {@link LocalDateTime}; TIME: {@link LocalTime}.
 *       SQLite stores dates as text: a text value in a column declared DATE/DATETIME that parses as
 *       ISO is converted the same way</li>
 *   <li>character types: {@link String}; binary types: lowercase hex string prefixed {@code 0x}</li>
 * </ul>
 */
public final class Values {

    private Values() {}

    /**
     * @param raw      what the driver returned ({@code ResultSet.getObject})
     * @param sqlType  {@link java.sql.Types} code of the column
     * @param typeName the column's declared type name (used for SQLite's text dates)
     */
    public static Object canonical(Object raw, int sqlType, String typeName) {
        if (raw == null) return null;
        if (raw instanceof Boolean b) return b ? 1L : 0L;
        if (raw instanceof Number n && isDecimalColumn(sqlType, typeName) && !(raw instanceof BigDecimal)
                && !(raw instanceof Double d && (d.isNaN() || d.isInfinite()))) {
            // SQLite keeps DECIMAL values as integers or doubles; the column's declared type says what they are
            return canonicalDecimal(new BigDecimal(n.toString()));
        }
        if (raw instanceof Byte || raw instanceof Short || raw instanceof Integer || raw instanceof Long) {
            return ((Number) raw).longValue();
        }
        if (raw instanceof BigInteger bi) return bi.bitLength() < 64 ? (Object) bi.longValueExact() : bi;
        if (raw instanceof BigDecimal bd) return canonicalDecimal(bd);
        if (raw instanceof Float f) return f.doubleValue();
        if (raw instanceof Double d) return d;
        if (raw instanceof java.sql.Date d) return d.toLocalDate();
        if (raw instanceof java.sql.Timestamp ts) return ts.toLocalDateTime();
        if (raw instanceof java.sql.Time t) return t.toLocalTime();
        if (raw instanceof LocalDate || raw instanceof LocalDateTime || raw instanceof LocalTime) return raw;
        if (raw instanceof byte[] bytes) {
            // a one-byte BIT(1) is a flag, not a blob
            if (sqlType == Types.BIT && bytes.length == 1) return (long) bytes[0];
            return "0x" + HexFormat.of().formatHex(bytes);
        }
        if (raw instanceof String s) return textValue(s, typeName);
        return raw.toString();
    }

    private static boolean isDecimalColumn(int sqlType, String typeName) {
        if (sqlType == Types.DECIMAL || sqlType == Types.NUMERIC) return true;
        String t = typeName == null ? "" : typeName.toUpperCase(java.util.Locale.ROOT);
        return t.startsWith("DECIMAL") || t.startsWith("NUMERIC");
    }

    public static BigDecimal canonicalDecimal(BigDecimal bd) {
        BigDecimal stripped = bd.stripTrailingZeros();
        return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
    }

    private static Object textValue(String s, String typeName) {
        String t = typeName == null ? "" : typeName.toUpperCase(java.util.Locale.ROOT);
        try {
            if (t.equals("DATE") && s.length() == 10) return LocalDate.parse(s);
            if ((t.equals("DATETIME") || t.equals("TIMESTAMP")) && s.length() >= 19) {
                return LocalDateTime.parse(s.replace(' ', 'T'));
            }
        } catch (DateTimeParseException e) {
            // not ISO text: keep the string as it is
        }
        return s;
    }

    /** Text form used for display and checksums: NULL, plain decimals, ISO dates. */
    public static String render(Object value) {
        if (value == null) return "NULL";
        if (value instanceof BigDecimal bd) return bd.toPlainString();
        if (value instanceof LocalDateTime dt) return dt.toLocalDate() + " " + dt.toLocalTime();
        return value.toString();
    }
}
