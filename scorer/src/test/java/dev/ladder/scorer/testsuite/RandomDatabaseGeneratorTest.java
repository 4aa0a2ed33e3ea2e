package dev.ladder.scorer.testsuite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.Databases;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.Execution;
import dev.ladder.sql.db.SchemaRenderer;
import dev.ladder.sql.db.TestData;
import dev.ladder.sql.schema.ForeignKey;
import dev.ladder.sql.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Databases are named tsjunitgen_*: no real suite (ts_*) can clash with them. */
class RandomDatabaseGeneratorTest {

    static final String PREFIX = "tsjunitgen_";
    static EmbeddedMariaDb server;
    static Schema original;
    static RandomDatabaseGenerator generator;

    @BeforeAll
    static void setUp() {
        original = TestData.classicModels().schema();
        server = EmbeddedMariaDb.shared();
        cleanUp();
        generator = RandomDatabaseGenerator.of(server, "classicmodels", List.of(
                "SELECT customerName FROM customers WHERE city = 'Zanzibarville' AND creditLimit > 123456",
                "SELECT checkNumber FROM payments WHERE paymentDate BETWEEN '2004-06-01' AND '2004-06-30'"));
    }

    @AfterAll
    static void cleanUp() {
        if (generator != null) generator.close();
        for (String name : RandomDatabaseGenerator.databasesStartingWith(server, PREFIX)) RandomDatabaseGenerator.drop(server, name);
    }

    static Database open(String name) throws Exception {
        server.grantRead(name);
        return Databases.embedded(server, name);
    }

    static long scalar(Database db, String sql) {
        Execution e = db.execute(sql);
        assertThat(e).as(sql).isInstanceOf(Execution.Success.class);
        return ((Number) ((Execution.Success) e).result().rows().get(0).get(0)).longValue();
    }

    @Test
    void keepsTheSchemaAndEveryForeignKeyHolds() throws Exception {
        generator.createEmpty(PREFIX + "empty");
        try (Database empty = open(PREFIX + "empty")) {
            assertThat(SchemaRenderer.createTables(empty.schema())).isEqualTo(SchemaRenderer.createTables(original));
            assertThat(empty.schema().tables()).allMatch(t -> t.rowCount() == 0);
        }
        int nonEmpty = 0;
        for (long seed = 1; seed <= 6; seed++) {
            String name = PREFIX + "fk" + seed;
            long t0 = System.nanoTime();
            Map<String, Integer> sizes = generator.create(name, seed);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(millis).as("creating a random database").isLessThan(10_000);
            assertThat(sizes.keySet()).containsExactlyInAnyOrderElementsOf(
                    original.tables().stream().map(t -> t.name()).toList());
            assertThat(sizes.values()).allMatch(n -> n >= 0 && n <= 40);
            try (Database db = open(name)) {
                Schema schema = db.schema();
                assertThat(SchemaRenderer.createTables(schema)).isEqualTo(SchemaRenderer.createTables(original));
                for (var t : schema.tables()) assertThat(t.rowCount()).isEqualTo(sizes.get(t.name()).longValue());
                if (sizes.values().stream().anyMatch(n -> n > 0)) nonEmpty++;
                for (ForeignKey fk : schema.foreignKeys()) {
                    StringBuilder on = new StringBuilder();
                    for (int k = 0; k < fk.columns().size(); k++) {
                        if (k > 0) on.append(" AND ");
                        on.append("c.").append(fk.columns().get(k)).append(" = p.").append(fk.referencedColumns().get(k));
                    }
                    String orphans = "SELECT COUNT(*) FROM " + fk.table() + " c LEFT JOIN " + fk.referencedTable() + " p ON "
                            + on + " WHERE c." + fk.columns().get(0) + " IS NOT NULL AND p." + fk.referencedColumns().get(0) + " IS NULL";
                    assertThat(scalar(db, orphans)).as(fk.describe() + " in " + name).isZero();
                }
            }
        }
        assertThat(nonEmpty).isEqualTo(6);
    }

    @Test
    void sameSeedSameDatabaseAndRefillMatchesCreate() throws Exception {
        generator.create(PREFIX + "det_a", 77);
        generator.create(PREFIX + "det_b", 77);
        generator.create(PREFIX + "det_c", 78);
        try (Database a = open(PREFIX + "det_a"); Database b = open(PREFIX + "det_b"); Database c = open(PREFIX + "det_c")) {
            String sumA = TestData.checksum(a);
            assertThat(TestData.checksum(b)).isEqualTo(sumA);
            assertThat(TestData.checksum(c)).isNotEqualTo(sumA);
            generator.refill(PREFIX + "det_c", 77); // emptied and filled in place: same rows as a fresh create
        }
        try (Database c = open(PREFIX + "det_c"); Database a = open(PREFIX + "det_a")) {
            assertThat(TestData.checksum(c)).isEqualTo(TestData.checksum(a));
        }
    }

    @Test
    void valuesComeFromGoldLiteralsBoundariesAndDuplicates() throws Exception {
        boolean literal = false;
        boolean boundaryDate = false;
        boolean duplicates = false;
        boolean nulls = false;
        for (long seed = 100; seed < 112 && !(literal && boundaryDate && duplicates && nulls); seed++) {
            String name = PREFIX + "lit";
            generator.create(name, seed);
            try (Database db = open(name)) {
                literal |= scalar(db, "SELECT COUNT(*) FROM customers WHERE city = 'Zanzibarville' OR creditLimit = 123456") > 0;
                boundaryDate |= scalar(db, "SELECT COUNT(*) FROM payments WHERE paymentDate IN ('2004-05-31', '2004-06-01', '2004-06-30', '2004-07-01')") > 0;
                duplicates |= scalar(db, "SELECT COUNT(*) - COUNT(DISTINCT country) FROM customers") > 0;
                nulls |= scalar(db, "SELECT COUNT(*) FROM customers WHERE state IS NULL OR salesRepEmployeeNumber IS NULL") > 0;
            }
        }
        assertThat(List.of(literal, boundaryDate, duplicates, nulls)).containsOnly(true);
    }

    @Test
    void tablesAreFilledParentsFirst() {
        List<String> order = new ArrayList<>(generator.tableOrder());
        assertThat(order.indexOf("offices")).isLessThan(order.indexOf("employees"));
        assertThat(order.indexOf("employees")).isLessThan(order.indexOf("customers"));
        assertThat(order.indexOf("customers")).isLessThan(order.indexOf("orders"));
        assertThat(order.indexOf("orders")).isLessThan(order.indexOf("orderdetails"));
        assertThat(order.indexOf("productlines")).isLessThan(order.indexOf("products"));
        assertThat(order.indexOf("products")).isLessThan(order.indexOf("orderdetails"));
    }
}
