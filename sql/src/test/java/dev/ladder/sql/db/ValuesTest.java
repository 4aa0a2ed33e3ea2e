package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

/** Dates and times print one way everywhere (display, SQLite export, EX keys), and keep how the engine printed them. */
class ValuesTest {

    @Test
    void datesPrintWithTheirSecondsAndNoTrailingZeros() {
        assertThat(Values.render(LocalDateTime.of(2004, 1, 1, 0, 0))).isEqualTo("2004-01-01 00:00:00");
        assertThat(Values.render(LocalTime.of(9, 30))).isEqualTo("09:30:00");
        assertThat(Values.render(LocalDateTime.of(2004, 1, 1, 9, 30, 5, 500_000_000))).isEqualTo("2004-01-01 09:30:05.5");
        assertThat(Values.render(LocalDate.of(2004, 1, 1))).isEqualTo("2004-01-01");
        assertThat(Values.iso(LocalDateTime.of(2004, 1, 1, 9, 30, 5), 3)).isEqualTo("2004-01-01 09:30:05.000");
    }

    @Test
    void sqliteDateTextIsADateOnlyWhenWrittenAsOnePrints() {
        assertThat(Values.canonical("2020-01-02 03:04:05", Types.VARCHAR, "DATETIME")).isEqualTo(LocalDateTime.of(2020, 1, 2, 3, 4, 5));
        assertThat(Values.canonical("2020-01-02", Types.VARCHAR, "DATE")).isEqualTo(LocalDate.of(2020, 1, 2));
        for (String other : new String[] {"2020-01-02T03:04:05", "2020-01-02 03:04:05.000", "2020-01-02 03:04:05.50"}) {
            assertThat(Values.canonical(other, Types.VARCHAR, "DATETIME")).isEqualTo(other);
        }
    }

    @Test
    void mysqlFractionsOfASecondComeFromTheDisplayWidth() {
        assertThat(Values.fractionDigits(Types.TIMESTAMP, 19)).isZero();
        assertThat(Values.fractionDigits(Types.TIMESTAMP, 23)).isEqualTo(3);
        assertThat(Values.fractionDigits(Types.TIME, 10)).isZero();
        assertThat(Values.fractionDigits(Types.TIME, 14)).isEqualTo(3);
        assertThat(Values.fractionDigits(Types.DATE, 10)).isZero();
        assertThat(Values.canonical(LocalDateTime.of(2020, 1, 2, 3, 4, 5), Types.TIMESTAMP, "DATETIME", 3))
                .isEqualTo("2020-01-02 03:04:05.000");
        assertThat(Values.canonical(LocalDateTime.of(2020, 1, 2, 3, 4, 5), Types.TIMESTAMP, "DATETIME", 0))
                .isEqualTo(LocalDateTime.of(2020, 1, 2, 3, 4, 5));
    }
}
