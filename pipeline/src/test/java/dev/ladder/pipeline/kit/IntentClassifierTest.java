package dev.ladder.pipeline.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

public class IntentClassifierTest {

    /** A ClassicModels-like schema, built by hand (no database needed). */
    public static final Schema SHOP = new Schema("classicmodels", List.of(
            table("customers", "customerNumber", "customerNumber customerName contactLastName contactFirstName phone "
                    + "addressLine1 addressLine2 city state postalCode country salesRepEmployeeNumber creditLimit"),
            table("employees", "employeeNumber", "employeeNumber lastName firstName extension email officeCode reportsTo jobTitle"),
            table("offices", "officeCode", "officeCode city phone addressLine1 addressLine2 state country postalCode territory"),
            table("orderdetails", "orderNumber productCode", "orderNumber productCode quantityOrdered priceEach orderLineNumber"),
            table("orders", "orderNumber", "orderNumber orderDate requiredDate shippedDate status comments customerNumber"),
            table("payments", "customerNumber checkNumber", "customerNumber checkNumber paymentDate amount"),
            table("productlines", "productLine", "productLine textDescription htmlDescription image"),
            table("products", "productCode", "productCode productName productLine productScale productVendor "
                    + "productDescription quantityInStock buyPrice MSRP")),
            List.of(new ForeignKey("orders", List.of("customerNumber"), "customers", List.of("customerNumber"))));

    /** A second, snake_case schema from another domain. */
    public static final Schema SCHOOL = new Schema("school", List.of(
            table("students", "student_id", "student_id first_name last_name major gpa enrollment_year"),
            table("courses", "course_id", "course_id title department credits"),
            table("enrollments", "student_id course_id", "student_id course_id grade semester"),
            table("instructors", "instructor_id", "instructor_id name department salary hire_date")),
            List.of());

    static Table table(String name, String primaryKey, String columns) {
        List<Column> cols = new ArrayList<>();
        for (String c : columns.split(" ")) cols.add(new Column(c, "varchar(50)", true));
        return new Table(name, cols, Arrays.asList(primaryKey.split(" ")), 0);
    }

    /** Intent, then O (order), L<n> / L? (limit), D (distinct), G (grouping), or "-" for each flag not set. */
    static String shape(IntentProfile p) {
        return p.intent() + " " + (p.wantsOrder() ? "O" : "-")
                + (p.wantsLimit() ? "L" + (p.limitN() == null ? "?" : p.limitN()) : "-")
                + (p.wantsDistinct() ? "D" : "-") + (p.wantsGrouping() ? "G" : "-");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            What is the phone number of the Boston office?                                  | LOOKUP ----
            List all students majoring in Physics.                                         | LOOKUP ----
            Which customers have placed five or more orders?                               | LOOKUP ----
            Which sales reps have at least one customer in Spain?                          | LOOKUP ----
            For each employee, give the extension and the email.                           | LOOKUP ----
            For the products made by Min Lin Diecast, show each product's name.            | LOOKUP ----
            How many days passed between ordering and shipping order 10100?                | LOOKUP ----
            Which customers made their most recent payment before 2004?                    | LOOKUP ----
            Which vendors supply more products than the average number of products per vendor? | LOOKUP ----
            How many students are enrolled in Biology 101?                                 | AGGREGATE ----
            What is the average salary of instructors in the Mathematics department?       | AGGREGATE ----
            What is the total number of credits offered by the History department?         | AGGREGATE ----
            How many customers have a credit limit above the average credit limit?         | AGGREGATE ----
            On orders in process, what is the average number of units per order line?      | AGGREGATE ----
            How many products cost more than the highest price in the Trains line?         | AGGREGATE ----
            How many orders were placed by customers in France?                            | AGGREGATE ----
            How many different customers made a payment in 2005?                           | AGGREGATE --D-
            What is the maximum value of the GPA among seniors?                            | AGGREGATE OL1--
            What is the highest unit price ever charged on an order line?                  | AGGREGATE OL1--
            What were the earliest and the latest shipping dates in 2004?                  | AGGREGATE OL1--
            What are the average and the maximum credit limits of customers in Germany?   | AGGREGATE OL1--
            How many students are there per major?                                         | GROUPED_AGGREGATE ---G
            What is the average credit limit per country?                                  | GROUPED_AGGREGATE ---G
            Show the mean MSRP by product vendor.                                          | GROUPED_AGGREGATE ---G
            Show the number of flights for each airline.                                   | GROUPED_AGGREGATE ---G
            How many products does each vendor supply?                                     | GROUPED_AGGREGATE ---G
            What is the total amount of payments received from customers in each country? | GROUPED_AGGREGATE ---G
            List each status with its number of orders, from most to fewest.               | GROUPED_AGGREGATE O--G
            For each office, what is the date of the most recent order?                    | GROUPED_AGGREGATE ---G
            What was each customer's most recent order?                                    | GROUPED_AGGREGATE ---G
            Which 5 products are the most expensive?                                       | TOP_K OL5--
            Show the top 10 students by GPA.                                               | TOP_K OL10--
            Show the order number and date of the three largest orders.                    | TOP_K OL3--
            List the first three customer names in alphabetical order.                     | TOP_K OL3--
            Who is the oldest employee?                                                    | TOP_K OL1--
            Which customer made the single largest payment?                                | TOP_K OL1--
            Among customers with a credit limit above zero, which one has the lowest limit? | TOP_K OL1--
            Which department has the highest total salary?                                 | TOP_K OL1--
            In which year did the company receive the most money in payments?              | TOP_K OL1--
            What is the most expensive product?                                            | TOP_K OL1--
            Which products have the highest buy prices?                                    | TOP_K OL?--
            List the top customers.                                                        | TOP_K OL?--
            Which employees earn the maximum salary?                                       | TOP_K OL?--
            Which sales rep has the most customers?                                        | TOP_K OL1--
            Show the latest 5 orders.                                                      | TOP_K OL5--
            List customer names and their total payments.                                  | GROUPED_AGGREGATE ---G
            List the payments above 100,000, largest first.                                | LOOKUP O---
            List the customers sorted by name.                                             | LOOKUP O---
            List the cities where we have offices, in alphabetical order.                  | LOOKUP O---
            Show the students ordered by GPA in descending order.                          | LOOKUP O---
            List 5 customers from France.                                                  | LOOKUP -L5--
            List the distinct countries of our customers.                                  | LOOKUP --D-
            In which countries are our offices located? List each country once.            | LOOKUP --D-
            Which products were ordered only once?                                         | LOOKUP ----
            Which customers share a contact last name with a different customer?           | LOOKUP ----
            """)
    void intentAndFlags(String question, String expected) {
        assertThat(shape(IntentClassifier.classify(question, SHOP))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Give the contact first name, contact last name and phone number of customer 112. | contactFirstName contactLastName phone
            Show the first and last names of all employees.                                | firstName lastName
            Show the name, vendor and scale of every product in the Planes line.          | productName productVendor productScale
            List the name and credit limit of US customers whose credit limit is above 100,000. | customerName creditLimit
            Which orders shipped late? Give the order number and the customer's name.      | orderNumber customerName
            Which product lines were sold in each country? List every country and product line pair once. | country productLine
            Show the postal code and city of every office and of every customer.          | postalCode city
            What is the highest credit limit?                                              | creditLimit
            List every employee's number together with the last name of their manager.    | employeeNumber lastName
            Which employee uses the email address lbott@classicmodelcars.com? Give the last name. | lastName
            Which three products have the most units in stock? Give the name and scale of each. | productName productScale
            Which customers are located in the state of California?                        | -
            Which customer has the highest credit limit?                                   | -
            List the customers sorted by credit limit.                                     | -
            Which offices belong to the EMEA territory?                                    | -
            Which orders were shipped later than their required date?                      | -
            What were the earliest shipping dates of orders in 2004?                       | -
            Which employees have the same job title as the person they report to?          | -
            """)
    void namedFieldsInShop(String question, String expected) {
        List<String> want = expected.equals("-") ? List.of() : List.of(expected.split(" "));
        assertThat(IntentClassifier.classify(question, SHOP).namedFields()).isEqualTo(want);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Show the first name, last name and GPA of students majoring in Physics.       | first_name last_name gpa
            What is the title of the course with the most credits?                         | title
            List each instructor's name and salary.                                        | name salary
            Show the grade and semester of student 42.                                     | grade semester
            Which students have a GPA above 3.5?                                           | -
            List the instructors hired in 2010, sorted by salary.                          | -
            """)
    void namedFieldsInAnotherSchema(String question, String expected) {
        List<String> want = expected.equals("-") ? List.of() : List.of(expected.split(" "));
        assertThat(IntentClassifier.classify(question, SCHOOL).namedFields()).isEqualTo(want);
    }

    @Test
    void byAColumnOfTheSchemaGroups() {
        assertThat(shape(IntentClassifier.classify("What is the average GPA by major?", SCHOOL)))
                .isEqualTo("GROUPED_AGGREGATE ---G");
        // without the schema "major" is not known to be a column, so "by major" reads as nothing
        assertThat(shape(IntentClassifier.classify("What is the average GPA by major?"))).isEqualTo("AGGREGATE ----");
    }

    @Test
    void withoutSchemaNoFieldsAreNamedButTheIntentIsTheSame() {
        String q = "Show the order number and date of the three largest orders.";
        IntentProfile without = IntentClassifier.classify(q);
        assertThat(without.namedFields()).isEmpty();
        assertThat(shape(without)).isEqualTo(shape(IntentClassifier.classify(q, SHOP)));
    }

    @Test
    void deterministicAndTolerantOfOddText() {
        String q = "Which  3 customers' names — sorted ‘A–Z’ — have the 'largest' credit-limits??";
        assertThat(IntentClassifier.classify(q, SHOP)).isEqualTo(IntentClassifier.classify(q, SHOP));
        assertThat(IntentClassifier.classify("", SHOP).intent()).isEqualTo(Intent.LOOKUP);
        assertThat(IntentClassifier.classify("?!, 42", null).wantsLimit()).isFalse();
        assertThatThrownBy(() -> IntentClassifier.classify(null)).isInstanceOf(NullPointerException.class);
    }
}
