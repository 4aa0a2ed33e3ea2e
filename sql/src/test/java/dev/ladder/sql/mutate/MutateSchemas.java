package dev.ladder.sql.mutate;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.List;

/** Schemas the mutator tests use: a made-up library, and the part of ClassicModels some train golds read. */
final class MutateSchemas {

    private MutateSchemas() {}

    /** authors, books, loans, tags, book_tags. */
    static final Schema LIBRARY = new Schema("library", List.of(
            new Table("authors", List.of(col("id", "int", false), col("name", "varchar(40)", false),
                    col("country", "varchar(20)", true), col("born", "date", true)), List.of("id"), 10),
            new Table("books", List.of(col("id", "int", false), col("author_id", "int", false),
                    col("title", "varchar(80)", false), col("genre", "varchar(20)", true),
                    col("price", "decimal(8,2)", false), col("published", "date", false)), List.of("id"), 30),
            new Table("loans", List.of(col("id", "int", false), col("book_id", "int", false),
                    col("member", "varchar(40)", false), col("loaned", "date", false), col("returned", "date", true)),
                    List.of("id"), 50),
            new Table("tags", List.of(col("tag", "varchar(20)", false)), List.of("tag"), 5),
            new Table("book_tags", List.of(col("book_id", "int", false), col("tag", "varchar(20)", false)),
                    List.of("book_id", "tag"), 40)),
            List.of(new ForeignKey("books", List.of("author_id"), "authors", List.of("id")),
                    new ForeignKey("loans", List.of("book_id"), "books", List.of("id")),
                    new ForeignKey("book_tags", List.of("book_id"), "books", List.of("id")),
                    new ForeignKey("book_tags", List.of("tag"), "tags", List.of("tag"))));

    /** ClassicModels' customers, orders, employees, offices and payments, as introspection describes them. */
    static final Schema CLASSIC_MODELS = new Schema("classicmodels", List.of(
            new Table("customers", List.of(col("customerNumber", "int", false), col("customerName", "varchar(50)", false),
                    col("contactLastName", "varchar(50)", false), col("contactFirstName", "varchar(50)", false),
                    col("phone", "varchar(50)", false), col("addressLine1", "varchar(50)", false),
                    col("addressLine2", "varchar(50)", true), col("city", "varchar(50)", false),
                    col("state", "varchar(50)", true), col("postalCode", "varchar(15)", true),
                    col("country", "varchar(50)", false), col("salesRepEmployeeNumber", "int", true),
                    col("creditLimit", "decimal(10,2)", true)), List.of("customerNumber"), 122),
            new Table("orders", List.of(col("orderNumber", "int", false), col("orderDate", "date", false),
                    col("requiredDate", "date", false), col("shippedDate", "date", true),
                    col("status", "varchar(15)", false), col("comments", "text", true),
                    col("customerNumber", "int", false)), List.of("orderNumber"), 326),
            new Table("employees", List.of(col("employeeNumber", "int", false), col("lastName", "varchar(50)", false),
                    col("firstName", "varchar(50)", false), col("extension", "varchar(10)", false),
                    col("email", "varchar(100)", false), col("officeCode", "varchar(10)", false),
                    col("reportsTo", "int", true), col("jobTitle", "varchar(50)", false)), List.of("employeeNumber"), 23),
            new Table("offices", List.of(col("officeCode", "varchar(10)", false), col("city", "varchar(50)", false),
                    col("phone", "varchar(50)", false), col("addressLine1", "varchar(50)", false),
                    col("addressLine2", "varchar(50)", true), col("state", "varchar(50)", true),
                    col("country", "varchar(50)", false), col("postalCode", "varchar(15)", false),
                    col("territory", "varchar(10)", false)), List.of("officeCode"), 7),
            new Table("payments", List.of(col("customerNumber", "int", false), col("checkNumber", "varchar(50)", false),
                    col("paymentDate", "date", false), col("amount", "decimal(10,2)", false)),
                    List.of("customerNumber", "checkNumber"), 273)),
            List.of(new ForeignKey("customers", List.of("salesRepEmployeeNumber"), "employees", List.of("employeeNumber")),
                    new ForeignKey("employees", List.of("officeCode"), "offices", List.of("officeCode")),
                    new ForeignKey("employees", List.of("reportsTo"), "employees", List.of("employeeNumber")),
                    new ForeignKey("orders", List.of("customerNumber"), "customers", List.of("customerNumber")),
                    new ForeignKey("payments", List.of("customerNumber"), "customers", List.of("customerNumber"))));

    private static Column col(String name, String type, boolean nullable) {
        return new Column(name, type, nullable);
    }
}
