package dev.ladder.scorer.testsuite;

import dev.ladder.scorer.score.ExOptions;
import dev.ladder.scorer.score.Scoring;
import dev.ladder.scorer.score.em.ExactMatch;
import dev.ladder.sql.db.Database;
import dev.ladder.sql.db.DatabaseKind;
import dev.ladder.sql.db.EmbeddedMariaDb;
import dev.ladder.sql.db.SqlMode;
import dev.ladder.sql.db.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Builds the {@link Scoring} of one database the way {@code ladder eval} and {@code ladder run} both do: EM with the
 * database's schema, and TS with a test suite when one applies.
 */
public final class ScoringSetup {

    /** Where TS comes from. */
    public enum Suite {
        /** The stored suite of the database when there is one (embedded databases only), else TS is missing. */
        STORED,
        /** No TS. */
        NONE
    }

    private ScoringSetup() {}

    /**
     * @param explicitSuite a suite directory the user named (must exist and fit), or null for the stored one
     * @param opened        receives every suite database opened, for the caller to close
     */
    public static Scoring create(Database original, ExOptions options, Suite suite, Path explicitSuite,
                                 List<Database> opened) {
        return create(original, options, suite, explicitSuite, opened, SqlMode.SERVER);
    }

    /** As {@link #create(Database, ExOptions, Suite, Path, List)}; the suite's sessions in {@code mode}, as the original's. */
    public static Scoring create(Database original, ExOptions options, Suite suite, Path explicitSuite,
                                 List<Database> opened, SqlMode mode) {
        // keeping DISTINCT makes EM compare it too, as it makes EX keep it
        ExactMatch em = new ExactMatch(original.schema(), false, true, options.keepDistinct(), options.emMode());
        if (suite == Suite.NONE) {
            if (explicitSuite != null) throw new UserError("--suite and --no-suite cannot be used together");
            return new Scoring(original, Optional.empty(), options, em);
        }
        Path dir = explicitSuite != null ? explicitSuite : TestSuite.defaultDir(original.name());
        boolean explicit = explicitSuite != null;
        // a SQLite database's suite is the published kind: a folder of SQLite files per database id
        if (explicit && original.kind() == DatabaseKind.SQLITE_FILE && SqliteSuite.isLayout(dir)) {
            SqliteSuite sqlite = SqliteSuite.find(dir, original.name())
                    .orElseThrow(() -> new UserError(SqliteSuite.absent(dir, original.name())));
            Optional<String> unusable = sqlite.unusable(dir);
            if (unusable.isPresent()) return new Scoring(original, Optional.empty(), options, em, unusable.get());
            List<Database> all = sqlite.open();
            opened.addAll(all);
            return new Scoring(original, Optional.of(all), options, em);
        }
        // suites are databases on the embedded MariaDB, made for one database there: a SQLite file or an external
        // server of the same name is another database, so its stored suite does not apply
        boolean embedded = original.kind() == DatabaseKind.EMBEDDED_MARIADB;
        if (explicit && !embedded) {
            throw new UserError("--suite needs the embedded database or a folder of SQLite suites (DIR/<db_id>/*.sqlite): "
                    + original.name() + " is a " + original.kind() + " database, and " + dir + " holds a suite built on"
                    + " the embedded MariaDB");
        }
        if (!(explicit || embedded && Files.isRegularFile(dir.resolve(TestSuite.MANIFEST)))) {
            return new Scoring(original, Optional.empty(), options, em);
        }
        TestSuite ts = TestSuite.load(dir).orElseThrow(() -> new UserError("no test suite in " + dir + " (missing manifest.json)"));
        if (!ts.database().equals(original.name())) {
            throw new UserError("the test suite in " + dir + " was built for " + ts.database() + ", not " + original.name());
        }
        // an empty suite (stored before they were refused, or written by hand) is no suite: TS is missing, never EX
        Optional<String> unusable = ts.unusable(dir);
        if (unusable.isPresent()) return new Scoring(original, Optional.empty(), options, em, unusable.get());
        List<Database> all = ts.open(EmbeddedMariaDb.shared(), mode);
        opened.addAll(all);
        // open() lists the original first; Scoring always checks the original itself
        return new Scoring(original, Optional.of(all.subList(1, all.size())), options, em);
    }
}
