package dev.ladder.pipeline.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.pipeline.agent.SchemaSubset.Lexicon;
import dev.ladder.pipeline.agent.SchemaSubset.Subset;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaSubsetTest {

    /** A table from "name col col ..." with the first column as primary key; types do not matter here. */
    static Table table(String name, String... columns) {
        List<Column> cols = new ArrayList<>();
        for (String c : columns) cols.add(new Column(c, "varchar", false));
        return new Table(name, cols, List.of(columns[0]), 10);
    }

    static ForeignKey fk(String table, String column, String referenced, String referencedColumn) {
        return new ForeignKey(table, List.of(column), referenced, List.of(referencedColumn));
    }

    /** The ClassicModels schema, by hand (same names, columns and foreign keys as the sample database). */
    static Schema classicModels() {
        return new Schema("classicmodels", List.of(
                table("customers", "customerNumber", "customerName", "contactLastName", "contactFirstName", "phone",
                        "addressLine1", "addressLine2", "city", "state", "postalCode", "country",
                        "salesRepEmployeeNumber", "creditLimit"),
                table("employees", "employeeNumber", "lastName", "firstName", "extension", "email", "officeCode",
                        "reportsTo", "jobTitle"),
                table("offices", "officeCode", "city", "phone", "addressLine1", "addressLine2", "state", "country",
                        "postalCode", "territory"),
                table("orderdetails", "orderNumber", "productCode", "quantityOrdered", "priceEach", "orderLineNumber"),
                table("orders", "orderNumber", "orderDate", "requiredDate", "shippedDate", "status", "comments",
                        "customerNumber"),
                table("payments", "customerNumber", "checkNumber", "paymentDate", "amount"),
                table("productlines", "productLine", "textDescription", "htmlDescription", "image"),
                table("products", "productCode", "productName", "productLine", "productScale", "productVendor",
                        "productDescription", "quantityInStock", "buyPrice", "MSRP")),
                List.of(
                        fk("customers", "salesRepEmployeeNumber", "employees", "employeeNumber"),
                        fk("employees", "reportsTo", "employees", "employeeNumber"),
                        fk("employees", "officeCode", "offices", "officeCode"),
                        fk("orderdetails", "orderNumber", "orders", "orderNumber"),
                        fk("orderdetails", "productCode", "products", "productCode"),
                        fk("orders", "customerNumber", "customers", "customerNumber"),
                        fk("payments", "customerNumber", "customers", "customerNumber"),
                        fk("products", "productLine", "productlines", "productLine")));
    }

    /** A university schema: snake_case names, a composite foreign key (takes -> section), no ClassicModels words. */
    static Schema university() {
        return new Schema("university", List.of(
                table("department", "dept_name", "building", "budget"),
                table("course", "course_id", "title", "dept_name", "credits"),
                table("section", "course_id", "sec_id", "semester", "year", "room_number"),
                table("student", "student_id", "name", "dept_name", "tot_cred"),
                table("takes", "student_id", "course_id", "sec_id", "semester", "year", "grade")),
                List.of(
                        fk("course", "dept_name", "department", "dept_name"),
                        fk("section", "course_id", "course", "course_id"),
                        fk("student", "dept_name", "department", "dept_name"),
                        new ForeignKey("takes", List.of("course_id", "sec_id", "semester", "year"),
                                "section", List.of("course_id", "sec_id", "semester", "year")),
                        fk("takes", "student_id", "student", "student_id")));
    }

    @Test
    void aTableNamedInTheQuestionIsChosenAlone() {
        Subset s = SchemaSubset.select("How many customers are in France?", classicModels());
        assertThat(s.tables()).containsExactly("customers");
        assertThat(s.joinHints()).isEmpty();
    }

    @Test
    void twoNamedTablesComeWithTheirJoin() {
        Subset s = SchemaSubset.select("Which customer placed order 10165? Give the customer's name.", classicModels());
        assertThat(s.tables()).containsExactly("customers", "orders");
        assertThat(s.joinHints()).containsExactly("orders.customerNumber = customers.customerNumber");
    }

    @Test
    void tablesBetweenChosenOnesAreAddedAlongShortestForeignKeyPaths() {
        Subset s = SchemaSubset.select("Which customers have bought a product? Give the customer names.", classicModels());
        // customers -> orders -> orderdetails -> products
        assertThat(s.tables()).containsExactly("customers", "orderdetails", "orders", "products");
        assertThat(s.joinHints()).containsExactly(
                "orderdetails.orderNumber = orders.orderNumber",
                "orderdetails.productCode = products.productCode",
                "orders.customerNumber = customers.customerNumber");

        Subset far = SchemaSubset.select("Which offices sell products of the Motorcycles product line?", classicModels());
        assertThat(far.tables()).containsExactly("customers", "employees", "offices", "orderdetails", "orders",
                "productlines", "products");
    }

    @Test
    void aColumnPicksItsTableWhenNoNamedTableHasIt() {
        // "scale" is the head of productScale, whose other part is the table's own name
        assertThat(SchemaSubset.select("At what scale is The Titanic model made?", classicModels()).tables())
                .containsExactly("products");
        // both customers and offices have postalCode: the office named in the question explains it
        assertThat(SchemaSubset.select("What is the postal code of our office in the UK?", classicModels()).tables())
                .containsExactly("offices");
        assertThat(SchemaSubset.select("Which check numbers were paid with an amount above 1000?", classicModels()).tables())
                .containsExactly("payments");
    }

    @Test
    void aColumnNameSpreadOverManyTablesPicksNone() {
        // "number" alone matches customerNumber, employeeNumber, orderNumber, ...: too generic, so nothing is chosen
        Subset s = SchemaSubset.select("Give me the number 7.", classicModels());
        assertThat(s.tables()).hasSize(8);
    }

    @Test
    void aSelfReferencingForeignKeyIsAJoinHint() {
        Subset s = SchemaSubset.select("Which employees report to the VP Sales?", classicModels());
        assertThat(s.tables()).containsExactly("employees");
        assertThat(s.joinHints()).containsExactly("employees.reportsTo = employees.employeeNumber");
    }

    @Test
    void noMatchMeansEveryTableAndEveryJoin() {
        Subset s = SchemaSubset.select("How many people does the company employ?", classicModels());
        assertThat(s.tables()).containsExactly("customers", "employees", "offices", "orderdetails", "orders",
                "payments", "productlines", "products");
        assertThat(s.joinHints()).hasSize(8).contains("products.productLine = productlines.productLine");
    }

    @Test
    void compositeForeignKeysGiveOneHintLine() {
        Subset s = SchemaSubset.select("What grade did each student get in each section?", university());
        assertThat(s.tables()).containsExactly("section", "student", "takes");
        assertThat(s.joinHints()).containsExactly(
                "takes.course_id = section.course_id AND takes.sec_id = section.sec_id"
                        + " AND takes.semester = section.semester AND takes.year = section.year",
                "takes.student_id = student.student_id");
    }

    @Test
    void pathCompletionWorksOnAnySchemaAndBreaksTiesBySchemaOrder() {
        // department -> student -> takes and department -> course -> section -> takes: the shorter one wins
        Subset s = SchemaSubset.select("What is the average grade per department?", university());
        assertThat(s.tables()).containsExactly("department", "student", "takes");
        assertThat(s.joinHints()).containsExactly("student.dept_name = department.dept_name",
                "takes.student_id = student.student_id");
    }

    @Test
    void unconnectedTablesStayWithoutHints() {
        Schema schema = new Schema("x", List.of(table("cities", "city_id", "city_name"),
                table("planets", "planet_id", "planet_name")), List.of());
        Subset s = SchemaSubset.select("List every city and planet name.", schema);
        assertThat(s.tables()).containsExactly("cities", "planets");
        assertThat(s.joinHints()).isEmpty();
        assertThat(s.rendered()).isEqualTo("cities(city_id, city_name)\nplanets(planet_id, planet_name)\n");
    }

    @Test
    void renderedListsTablesWithColumnsThenJoins() {
        Subset s = SchemaSubset.select("Which payments did each customer make?", classicModels());
        assertThat(s.rendered()).isEqualTo("""
                customers(customerNumber, customerName, contactLastName, contactFirstName, phone, addressLine1, \
                addressLine2, city, state, postalCode, country, salesRepEmployeeNumber, creditLimit)
                payments(customerNumber, checkNumber, paymentDate, amount)
                Joins:
                payments.customerNumber = customers.customerNumber
                """);
    }

    @Test
    void identifiersSplitIntoStemmedContentParts() {
        Lexicon lex = Lexicon.of(classicModels());
        assertThat(lex.parts("salesRepEmployeeNumber")).containsExactly("sale", "rep", "employee", "number");
        assertThat(lex.parts("orderdetails")).containsExactly("order", "detail");
        assertThat(lex.parts("productlines")).containsExactly("product", "line");
        assertThat(lex.parts("customers")).containsExactly("customer");
        assertThat(lex.parts("reportsTo")).containsExactly("report");
        assertThat(lex.parts("addressLine1")).containsExactly("address", "line");
        assertThat(lex.parts("MSRP")).containsExactly("msrp");
        assertThat(Lexicon.stem("categories")).isEqualTo(Lexicon.stem("category"));
        assertThat(Lexicon.stem("movies")).isEqualTo(Lexicon.stem("movie"));
        assertThat(Lexicon.stem("addresses")).isEqualTo("address");
        assertThat(Lexicon.stem("status")).isEqualTo("status");
        assertThat(Lexicon.stem("people")).isEqualTo("person");
        assertThat(Lexicon.questionWords("What is the customer's credit limit?")).containsExactly("customer", "credit", "limit");
    }

    @Test
    void foreignKeysToUnknownTablesAreIgnored() {
        Schema schema = new Schema("x", List.of(table("books", "book_id", "title", "author_id")),
                List.of(fk("books", "author_id", "authors", "author_id")));
        Subset s = SchemaSubset.select("List the book titles.", schema);
        assertThat(s.tables()).containsExactly("books");
        assertThat(s.joinHints()).isEmpty();
    }
}
