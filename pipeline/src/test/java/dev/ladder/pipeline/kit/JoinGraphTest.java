package dev.ladder.pipeline.kit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;
import org.junit.jupiter.api.Test;

class JoinGraphTest {

    private static Table table(String name, String... columns) {
        return new Table(name, java.util.Arrays.stream(columns).map(c -> new Column(c, "int", false)).toList(),
                List.of(columns[0]), 0);
    }

    private static ForeignKey fk(String t, String c, String rt, String rc) {
        return new ForeignKey(t, List.of(c), rt, List.of(rc));
    }

    /** ClassicModels' tables and keys, as the dump declares them. */
    static final Schema CLASSIC = new Schema("classicmodels", List.of(
            table("customers", "customerNumber", "salesRepEmployeeNumber"),
            table("employees", "employeeNumber", "officeCode", "reportsTo"),
            table("offices", "officeCode"),
            table("orderdetails", "orderNumber", "productCode"),
            table("orders", "orderNumber", "customerNumber"),
            table("payments", "customerNumber", "checkNumber"),
            table("productlines", "productLine"),
            table("products", "productCode", "productLine")), List.of(
            fk("customers", "salesRepEmployeeNumber", "employees", "employeeNumber"),
            fk("employees", "reportsTo", "employees", "employeeNumber"),
            fk("employees", "officeCode", "offices", "officeCode"),
            fk("orderdetails", "orderNumber", "orders", "orderNumber"),
            fk("orderdetails", "productCode", "products", "productCode"),
            fk("orders", "customerNumber", "customers", "customerNumber"),
            fk("payments", "customerNumber", "customers", "customerNumber"),
            fk("products", "productLine", "productlines", "productLine")));

    /** A small Spider-style database of its own: a school with a club that no key connects to the rest. */
    static final Schema SCHOOL = new Schema("school", List.of(
            table("student", "stu_id", "advisor_id"),
            table("teacher", "teacher_id"),
            table("enrolment", "stu_id", "course_id"),
            table("course", "course_id", "teacher_id"),
            table("club", "club_id")), List.of(
            fk("student", "advisor_id", "teacher", "teacher_id"),
            fk("enrolment", "stu_id", "student", "stu_id"),
            fk("enrolment", "course_id", "course", "course_id"),
            fk("course", "teacher_id", "teacher", "teacher_id")));

    @Test
    void customersReachProductsThroughOrdersAndOrderDetails() {
        JoinGraph g = new JoinGraph(CLASSIC);
        List<JoinGraph.Edge> path = g.shortestPath("Customers", "products").orElseThrow();
        assertThat(path).extracting(JoinGraph.Edge::to).containsExactly("orders", "orderdetails", "products");
        assertThat(path.get(0).condition()).isEqualTo("customers.customerNumber = orders.customerNumber");
        assertThat(path.get(2).condition()).isEqualTo("orderdetails.productCode = products.productCode");
        assertThat(g.shortestPath("offices", "payments").orElseThrow()).extracting(JoinGraph.Edge::to)
                .containsExactly("employees", "customers", "payments");
        assertThat(g.shortestPath("orders", "orders")).contains(List.of());
    }

    @Test
    void connectingSeveralTablesAddsTheTablesBetweenThem() {
        JoinGraph g = new JoinGraph(CLASSIC);
        JoinGraph.Connection c = g.connect(List.of("customers", "productlines", "payments"));
        assertThat(c.connected()).isTrue();
        assertThat(c.tables()).containsExactlyInAnyOrder("customers", "orders", "orderdetails", "products", "productlines",
                "payments");
        assertThat(c.joins()).hasSize(5);
    }

    @Test
    void aDisconnectedPairHasNoLegalJoinAndUnknownNamesAreSaid() {
        JoinGraph g = new JoinGraph(SCHOOL);
        assertThat(g.shortestPath("student", "club")).isEmpty();
        assertThat(g.shortestPath("student", "course").orElseThrow()).hasSize(2);
        JoinGraph.Connection c = g.connect(List.of("student", "club", "grades"));
        assertThat(c.connected()).isFalse();
        assertThat(c.unreachable()).containsExactly("club");
        assertThat(c.unknown()).containsExactly("grades");
        assertThat(g.direct("course", "teacher")).singleElement()
                .extracting(JoinGraph.Edge::condition).isEqualTo("course.teacher_id = teacher.teacher_id");
    }
}
