package dev.ladder.scorer.score.em;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.Arrays;
import java.util.List;

/** The ClassicModels schema built by hand, so EM and error taxonomy tests need no database. */
public final class EmTestSchema {

    private EmTestSchema() {}

    public static final Schema CLASSIC_MODELS = new Schema("classicmodels", List.of(
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
            List.of(fk("customers", "salesRepEmployeeNumber", "employees", "employeeNumber"),
                    fk("employees", "reportsTo", "employees", "employeeNumber"),
                    fk("employees", "officeCode", "offices", "officeCode"),
                    fk("orderdetails", "orderNumber", "orders", "orderNumber"),
                    fk("orderdetails", "productCode", "products", "productCode"),
                    fk("orders", "customerNumber", "customers", "customerNumber"),
                    fk("payments", "customerNumber", "customers", "customerNumber"),
                    fk("products", "productLine", "productlines", "productLine")));

    private static Table table(String name, String... columns) {
        return new Table(name, Arrays.stream(columns).map(c -> new Column(c, "VARCHAR", true)).toList(),
                List.of(columns[0]), 0);
    }

    private static ForeignKey fk(String table, String column, String refTable, String refColumn) {
        return new ForeignKey(table, List.of(column), refTable, List.of(refColumn));
    }
}
