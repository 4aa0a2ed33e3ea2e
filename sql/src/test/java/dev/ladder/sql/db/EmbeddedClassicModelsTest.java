package dev.ladder.sql.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmbeddedClassicModelsTest {

    @Test
    void loadsEightTablesWithTheDocumentedRowCounts() {
        Schema schema = TestData.classicModels().schema();
        Map<String, Long> counts = new LinkedHashMap<>();
        schema.tables().forEach(t -> counts.put(t.name(), t.rowCount()));
        assertThat(counts).containsExactlyEntriesOf(ClassicModels.EXPECTED_ROWS);
    }

    @Test
    void introspectsKeys() {
        Schema schema = TestData.classicModels().schema();
        assertThat(schema.table("orderdetails").orElseThrow().primaryKey()).containsExactly("orderNumber", "productCode");
        assertThat(schema.foreignKeys()).extracting(ForeignKey::describe).contains(
                "employees(reportsTo) -> employees(employeeNumber)",
                "orders(customerNumber) -> customers(customerNumber)");
        assertThat(schema.foreignKeys()).hasSize(8);
        assertThat(schema.table("products").orElseThrow().column("buyPrice").orElseThrow().type()).isEqualTo("decimal(10,2)");
    }

    @Test
    void executesAndCanonicalisesValues() {
        Execution ex = TestData.classicModels().execute(
                "SELECT customerName, creditLimit, NULL AS nothing FROM customers WHERE customerNumber = 103");
        assertThat(ex).isInstanceOf(Execution.Success.class);
        var r = ((Execution.Success) ex).result();
        assertThat(r.columns()).containsExactly("customerName", "creditLimit", "nothing");
        assertThat(r.rows()).hasSize(1);
        assertThat(r.rows().get(0).get(0)).isEqualTo("Atelier graphique");
        assertThat(r.rows().get(0).get(1)).isEqualTo(new java.math.BigDecimal("21000"));
        assertThat(r.rows().get(0).get(2)).isNull();
    }
}
