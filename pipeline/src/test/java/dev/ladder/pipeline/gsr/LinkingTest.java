package dev.ladder.pipeline.gsr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.read.Query;
import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Schema;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The masked schema and the errors found by SQL, on ClassicModels. */
class LinkingTest {

    static Database db;
    static Schema schema;

    @BeforeAll
    static void open() {
        db = TestData.classicModels();
        schema = db.schema();
    }

    static SchemaBinding bind(String sql) {
        return Query.read(sql).binding(schema);
    }

    static List<String> errors(String sql) {
        Query q = Query.read(sql);
        return LinkingErrors.find(db, schema, q, q.binding(schema));
    }

    @Test
    void theMaskedSchemaHidesWhatTheDraftUses() {
        String masked = MaskedSchema.render(schema, bind("SELECT productLine, textDescription, htmlDescription, image FROM productlines"));
        assertThat(masked).doesNotContain("productlines");
        String partly = MaskedSchema.render(schema, bind("SELECT customerName FROM customers WHERE country = 'Norway'"));
        assertThat(partly).contains("customers [in the draft](customerNumber ").contains(", [in the draft], ")
                .doesNotContain("customerName ").contains("postalCode varchar(15), [in the draft], salesRepEmployeeNumber")
                .contains("orders(orderNumber ");
    }

    @Test
    void theModelsExplorationIsReadAgainstTheSchema() {
        SchemaBinding b = bind("SELECT customerName FROM customers");
        String reply = "- customers.city\n2. orders\n* customers.customerName\n- nowhere.x\n- payments.amount (the amount)\nnone";
        assertThat(MaskedSchema.parse(reply, schema, b, 8)).containsExactly("customers.city", "orders", "payments.amount");
        assertThat(MaskedSchema.parse(reply, schema, b, 1)).containsExactly("customers.city");
        assertThat(MaskedSchema.parse("none", schema, b, 8)).isEmpty();
    }

    @Test
    void eachKindOfErrorIsFoundBySql() {
        assertThat(errors("SELECT customerName FROM customers WHERE country = 'Norway'")).isEmpty();
        assertThat(errors("SELECT name FROM clients")).containsExactly("table clients does not exist");
        assertThat(errors("SELECT customer_name FROM customers")).singleElement().asString()
                .startsWith("column customer_name: ");
        assertThat(errors("SELECT c.customerName, o.orderDate FROM customers c, orders o")).singleElement().asString()
                .isEqualTo("table orders is not joined to customers; the foreign keys join them by "
                        + "customers.customerNumber = orders.customerNumber");
        assertThat(errors("SELECT customerName FROM customers WHERE country = 'Norwegia'"))
                .containsExactly("no row of customers.country equals 'Norwegia'");
        assertThat(errors("SELECT customerName FROM customers WHERE country IN ('Norway', 'Atlantis')"))
                .containsExactly("no row of customers.country equals 'Atlantis'");
        assertThat(errors("SELECT customerName FROM customers WHERE country LIKE 'Zz%'"))
                .containsExactly("no row of customers.country is LIKE 'Zz%'");
        // a number compared with a number column is no value condition to check; a subquery needs no join
        assertThat(errors("SELECT customerName FROM customers WHERE creditLimit > 1000000")).isEmpty();
        assertThat(errors("SELECT customerName FROM customers WHERE customerNumber IN (SELECT customerNumber FROM orders)")).isEmpty();
        assertThat(errors("SELEC 1")).singleElement().asString().startsWith("the SQL does not parse");
    }

    @Test
    void valueConditionsAreReadByTheSharedReader() {
        SchemaBinding b = bind("SELECT c.customerName FROM customers c WHERE c.country = 'Norway' AND 5000 < c.creditLimit "
                + "AND c.city LIKE 'B%' AND c.state IN ('CA', 'NY')");
        assertThat(b.conditions()).extracting(c -> c.column().column() + " " + c.operator() + " " + c.value())
                .containsExactly("country = Norway", "creditLimit > 5000", "city LIKE B%", "state IN CA", "state IN NY");
    }
}
