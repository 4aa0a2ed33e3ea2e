package dev.ladder.sql.db;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Date;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalAccessor;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Canonical forms of result values, so that scorers compare values, not driver quirks.
 * <ul>
 *   <li>SQL NULL: {@code null}</li>
 *   <li>integer types, BIT and BOOLEAN: {@link Long} ({@link BigInteger} only beyond the long range)</li>
 *   <li>DECIMAL/NUMERIC: {@link BigDecimal} without trailing zeros and never in exponent form
 *       ({@code 12.50} becomes {@code 12.5}, {@code 100.00} becomes {@code 100}), scale at least 0</li>
 *   <li>FLOAT/DOUBLE/REAL: {@link Double}</li>
 *   <li>DATE: {@link LocalDate}; DATETIME/TIMESTAMP: {@link LocalDateTime}; TIME: {@link LocalTime}, each
 *       only where {@link #iso(TemporalAccessor)} prints it as the engine does, so that a value and its text
 *       compare the same: a MySQL column with a fraction of a second ({@code DATETIME(3)}, which the server
 *       prints {@code 2020-01-02 03:04:05.000}) is its text, with that many digits. SQLite stores dates as
 *       text: a text value in a column declared DATE/DATETIME/TIMESTAMP becomes a date only when it is
 *       written exactly as {@link #iso(TemporalAccessor)} prints it; other spellings
 *       ({@code 2020-01-02T03:04:05}, {@code 2020-01-02 03:04:05.000}) stay the text they are</li>
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
        return canonical(raw, sqlType, typeName, 0);
    }

    /**
     * As {@link #canonical(Object, int, String)}, for a column whose values the engine prints with
     * {@code fractionDigits} digits of a second ({@link #fractionDigits}).
     */
    public static Object canonical(Object raw, int sqlType, String typeName, int fractionDigits) {
        if (raw == null) return null;
        if (fractionDigits > 0 && (raw instanceof LocalDateTime || raw instanceof LocalTime)) {
            return iso((TemporalAccessor) raw, fractionDigits);
        }
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
        if (raw instanceof Date d) return d.toLocalDate();
        if (raw instanceof Timestamp ts) return ts.toLocalDateTime();
        if (raw instanceof Time t) return t.toLocalTime();
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
        String t = typeName == null ? "" : typeName.toUpperCase(Locale.ROOT);
        return t.startsWith("DECIMAL") || t.startsWith("NUMERIC");
    }

    public static BigDecimal canonicalDecimal(BigDecimal bd) {
        BigDecimal stripped = bd.stripTrailingZeros();
        return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
    }

    private static Object textValue(String s, String typeName) {
        String t = typeName == null ? "" : typeName.toUpperCase(Locale.ROOT);
        try {
            TemporalAccessor date = null;
            if (t.equals("DATE") && s.length() == 10) date = LocalDate.parse(s);
            if ((t.equals("DATETIME") || t.equals("TIMESTAMP")) && s.length() >= 19 && s.charAt(10) == ' ') {
                date = LocalDateTime.parse(s.replace(' ', 'T'));
            }
            // another spelling of the same instant stays text: it prints (and compares) as written
            if (date != null && iso(date).equals(s)) return date;
        } catch (DateTimeParseException e) {
            // not ISO text: keep the string as it is
        }
        return s;
    }

    /**
     * Digits of a second MySQL prints for a column of {@code sqlType} whose display width is {@code precision}
     * ({@code ResultSetMetaData.getPrecision}): DATETIME(3) is 19 characters, a point and 3 digits; TIME(3) is
     * 10 (room for {@code -838:59:59}), a point and 3 digits. 0 for other types.
     */
    public static int fractionDigits(int sqlType, int precision) {
        int whole = sqlType == Types.TIMESTAMP ? 19 : sqlType == Types.TIME ? 10 : -1;
        return whole < 0 || precision <= whole + 1 ? 0 : Math.min(9, precision - whole - 1);
    }

    /**
     * How a date, date-time or time prints: {@code 2004-01-01}, {@code 2004-01-01 09:30:05}, {@code 09:30:05},
     * a fraction of a second only when it is not zero, without trailing zeros ({@code 09:30:05.5}).
     */
    public static String iso(TemporalAccessor t) {
        return iso(t, -1);
    }

    /** As {@link #iso(TemporalAccessor)}, with exactly {@code fractionDigits} digits of a second when it is not -1. */
    public static String iso(TemporalAccessor t, int fractionDigits) {
        if (t instanceof LocalDate d) return d.toString();
        if (t instanceof LocalDateTime dt) return dt.toLocalDate() + " " + time(dt.toLocalTime(), fractionDigits);
        if (t instanceof LocalTime lt) return time(lt, fractionDigits);
        return t.toString();
    }

    private static String time(LocalTime t, int fractionDigits) {
        String hms = String.format(Locale.ROOT, "%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
        String nanos = String.format(Locale.ROOT, "%09d", t.getNano());
        String fraction = fractionDigits < 0 ? nanos.replaceFirst("0+$", "") : nanos.substring(0, Math.min(9, fractionDigits));
        return fraction.isEmpty() ? hms : hms + "." + fraction;
    }

    /** Text form used for display and checksums: NULL, plain decimals, ISO dates ({@link #iso(TemporalAccessor)}). */
    public static String render(Object value) {
        if (value == null) return "NULL";
        if (value instanceof BigDecimal bd) return bd.toPlainString();
        if (value instanceof TemporalAccessor t) return iso(t);
        return value.toString();
    }
}
