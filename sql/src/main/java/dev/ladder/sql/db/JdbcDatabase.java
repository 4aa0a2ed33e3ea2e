package dev.ladder.sql.db;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.guard.ExaminedRowsBound;
import dev.ladder.sql.guard.GuardVerdict;
import dev.ladder.sql.guard.SqlGuard;
import dev.ladder.sql.schema.Schema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link Database} over JDBC. Every connection it opens is read-only at the server (a SELECT-only
 * account and a read-only session for MariaDB/MySQL, {@code mode=ro} for SQLite); the
 * {@link SqlGuard} in front of it only makes refusals early and explainable.
 */
public final class JdbcDatabase implements Database {

    /** Client-side backstop after the server-side limit: cancel a statement this long after its timeout. */
    private static final long CANCEL_GRACE_MILLIS = 300;

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ladder-sql-watchdog");
        t.setDaemon(true);
        return t;
    });

    private final String name;
    private final DatabaseKind kind;
    private final ConnectionSource connections;
    private final AutoCloseable owner;
    private final Recovery recovery;
    private final ConnectionTimeouts timeouts;
    private final SqlGuard guard;
    private Connection connection;
    /** Whether {@link #connection} is to MariaDB (which has {@code LIMIT ROWS EXAMINED}). */
    private boolean mariaDb;
    private Duration sessionTimeout;
    private Schema schema;

    /** What to do before the one retry after an infrastructure error (e.g. restart a dead embedded server). */
    @FunctionalInterface
    interface Recovery {
        void recover() throws Exception;
    }

    /**
     * @param owner    closed with this database (e.g. a reference to the embedded server); may be null
     * @param recovery run before the retry after an infrastructure error; reconnecting is done anyway
     */
    JdbcDatabase(String name, DatabaseKind kind, ConnectionSource connections, AutoCloseable owner, Recovery recovery,
                 ConnectionTimeouts timeouts) {
        this.name = name;
        this.kind = kind;
        this.connections = connections;
        this.owner = owner;
        this.recovery = recovery;
        this.timeouts = timeouts;
        this.guard = new SqlGuard(kind.dialect());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DatabaseKind kind() {
        return kind;
    }

    /**
     * Guarded execution. An infrastructure error (see {@link SqlErrors#infrastructure}) is retried once on a
     * new connection, after {@code recovery} (which restarts the embedded server if it died); if it happens
     * again, this throws {@link InfrastructureError}: such a failure is never a result to score.
     */
    @Override
    public synchronized Execution execute(String sql, ExecutionLimits limits) {
        GuardVerdict verdict = guard.check(sql);
        String statement = verdict.sql();
        if (!verdict.accepted()) {
            return Execution.failure(statement, verdict.syntax() ? ExecutionError.Kind.SYNTAX : ExecutionError.Kind.REJECTED,
                    verdict.reason());
        }
        try {
            return attempt(statement, limits);
        } catch (Lost first) {
            dropConnection();
            try {
                recovery.recover();
            } catch (Exception e) {
                throw new InfrastructureError("database " + name + " is unreachable (" + oneLine(first.getCause())
                        + ") and could not be brought back: " + oneLine(e), e);
            }
            try {
                return attempt(statement, limits);
            } catch (Lost second) {
                dropConnection();
                throw new InfrastructureError("database " + name + " failed twice, also after reconnecting: "
                        + oneLine(second.getCause()), second.getCause());
            }
        }
    }

    /**
     * The guard checks the query itself; only then is the plan asked for, so nothing the guard refuses reaches the
     * server in any form. A lost connection reads as a failure here (explaining is an optional early check; the
     * execution that follows it recovers).
     */
    @Override
    public synchronized Optional<Execution> explain(String sql, ExecutionLimits limits) {
        GuardVerdict verdict = guard.check(sql);
        String statement = verdict.sql();
        if (!verdict.accepted()) {
            return Optional.of(Execution.failure(statement,
                    verdict.syntax() ? ExecutionError.Kind.SYNTAX : ExecutionError.Kind.REJECTED, verdict.reason()));
        }
        String prefix = kind.dialect() == Dialect.SQLITE ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
        try {
            return Optional.of(attempt(prefix + statement, limits));
        } catch (Lost lost) {
            dropConnection();
            return Optional.of(Execution.failure(statement, ExecutionError.Kind.OTHER,
                    "the database could not explain it: " + oneLine(lost.getCause())));
        }
    }

    /** One try; {@link Lost} when the infrastructure, not the SQL, failed. */
    private Execution attempt(String statement, ExecutionLimits limits) throws Lost {
        long started = System.nanoTime();
        Connection c;
        try {
            c = connection(limits.timeout());
        } catch (SQLException e) {
            // no connection (or no session settings on it): whatever the reason, the SQL has not run yet
            throw new Lost(e);
        }
        String run = statement;
        boolean bounded = false;
        if (limits.examinedRows() > 0 && mariaDb) {
            Optional<String> withBound = ExaminedRowsBound.apply(statement, limits.examinedRows());
            bounded = withBound.isPresent();
            // a bounded run is a reproducible one: without join buffering every row combination a join forms is a
            // row examined (a join buffer would compare them unseen by the count), so an exploding join meets the
            // bound; and internal temporary tables go to disk, where a row's position (which breaks ties when their
            // rows are sorted) follows the order rows came in, not memory addresses that change from run to run
            if (bounded) run = "SET STATEMENT join_cache_level = 0, tmp_memory_table_size = 0 FOR " + withBound.get();
        }
        try {
            try (Statement st = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
                st.setMaxRows(limits.rowCap() + 1);
                // rows one at a time, not the whole result buffered by the driver: the byte cap can then stop reading
                if (kind.dialect() == Dialect.MYSQL) st.setFetchSize(Integer.MIN_VALUE);
                AtomicBoolean cancelled = new AtomicBoolean();
                ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
                    cancelled.set(true);
                    try {
                        st.cancel();
                    } catch (SQLException | RuntimeException ignored) {
                        // the statement may have finished meanwhile
                    }
                }, limits.timeout().toMillis() + (kind.dialect() == Dialect.MYSQL ? CANCEL_GRACE_MILLIS : 0),
                        TimeUnit.MILLISECONDS);
                try {
                    QueryResult result = read(st, run, limits, started);
                    // a result cut at the byte bound abandoned its connection: it is marked truncated already
                    if (bounded && connection == c && examinedTooMany(c)) {
                        return Execution.failure(statement, ExecutionError.Kind.WORK_LIMIT,
                                "stopped after examining more than " + limits.examinedRows() + " rows (the work bound)");
                    }
                    return new Execution.Success(statement, result);
                } catch (SQLException e) {
                    // checked first: a frozen server ignores the cancel too, then the socket times out
                    if (SqlErrors.infrastructure(kind.dialect(), e)) throw new Lost(e);
                    if (cancelled.get()) {
                        return Execution.failure(statement, ExecutionError.Kind.TIMEOUT,
                                "statement cancelled after " + limits.timeout().toMillis() + " ms");
                    }
                    throw e;
                } finally {
                    watchdog.cancel(false);
                }
            }
        } catch (SQLException e) {
            if (SqlErrors.infrastructure(kind.dialect(), e)) throw new Lost(e);
            ExecutionError error = SqlErrors.classify(kind.dialect(), e, limits.timeout());
            if (SqlErrors.connectionBroken(e)) dropConnection();
            return new Execution.Failure(statement, error);
        } catch (RuntimeException e) {
            dropConnection();
            return Execution.failure(statement, ExecutionError.Kind.OTHER, String.valueOf(e.getMessage()));
        }
    }

    /** An infrastructure failure of one attempt, carrying the driver's exception. */
    private static final class Lost extends Exception {
        private static final long serialVersionUID = 1L;

        Lost(SQLException cause) {
            super(cause);
        }
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.strip().split("\\R", 2)[0];
    }

    private QueryResult read(Statement st, String sql, ExecutionLimits limits, long started) throws SQLException {
        // execute, not executeQuery: the driver would refuse a bounded statement's SET STATEMENT ... FOR prefix
        if (!st.execute(sql)) throw new SQLException("the statement produced no result set");
        ResultSet rs = st.getResultSet();
        boolean cutShort = false;
        try {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            List<String> labels = new ArrayList<>(n);
            int[] types = new int[n];
            String[] typeNames = new String[n];
            int[] fractions = new int[n];
            for (int i = 1; i <= n; i++) {
                labels.add(md.getColumnLabel(i));
                types[i - 1] = md.getColumnType(i);
                typeNames[i - 1] = md.getColumnTypeName(i);
                // MySQL prints DATETIME(3) with three digits of a second: the value must keep them to equal its text
                if (kind.dialect() == Dialect.MYSQL) fractions[i - 1] = Values.fractionDigits(types[i - 1], md.getPrecision(i));
            }
            List<List<Object>> rows = new ArrayList<>();
            boolean truncated = false;
            long bytes = 0;
            long valueCap = Math.min(limits.byteCap(), ExecutionLimits.MAX_VALUE_BYTES);
            reading:
            while (rs.next()) {
                if (rows.size() == limits.rowCap()) {
                    truncated = true;
                    break;
                }
                List<Object> row = new ArrayList<>(n);
                for (int i = 1; i <= n; i++) {
                    Object raw = readValue(rs, i, types[i - 1]);
                    long size = size(raw);
                    bytes += size;
                    // the row that would pass a bound is not kept: no value is ever kept cut
                    if (size > valueCap || bytes > limits.byteCap()) {
                        truncated = true;
                        cutShort = true;
                        break reading;
                    }
                    row.add(Values.canonical(raw, types[i - 1], typeNames[i - 1], fractions[i - 1]));
                }
                rows.add(row);
            }
            return new QueryResult(labels, rows, truncated, (System.nanoTime() - started) / 1_000_000);
        } finally {
            if (cutShort && kind.dialect() == Dialect.MYSQL) {
                // the driver would read the rest of a streamed result on close (gigabytes, maybe): the connection is
                // abandoned instead (its socket closed, so the server stops sending), and the next statement opens a
                // new one
                abandonConnection();
            } else {
                rs.close();
            }
        }
    }

    /** What a value counts against the byte cap: a string its characters, a blob its bytes, anything else 16. */
    static long size(Object value) {
        if (value instanceof String s) return s.length();
        if (value instanceof byte[] b) return b.length;
        return 16;
    }

    /**
     * Whether the statement's {@code LIMIT ROWS EXAMINED} stopped it: MariaDB says so in warning 1931, which the
     * driver does not hand over for a streamed result, so the server is asked.
     */
    private static boolean examinedTooMany(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW WARNINGS")) {
            while (rs.next()) {
                if (rs.getInt(2) == 1931) return true;
            }
        }
        return false;
    }

    private Object readValue(ResultSet rs, int i, int type) throws SQLException {
        // java.time types avoid the JVM time zone shifting DATE values through java.sql.Date
        if (kind.dialect() == Dialect.MYSQL) {
            if (type == Types.DATE) return rs.getObject(i, LocalDate.class);
            if (type == Types.TIMESTAMP) return rs.getObject(i, LocalDateTime.class);
            // java.sql.Time drops the fraction of a second
            if (type == Types.TIME) return rs.getObject(i, LocalTime.class);
        }
        return rs.getObject(i);
    }

    @Override
    public synchronized Schema schema() {
        if (schema == null) {
            try {
                schema = SchemaIntrospector.introspect(connection(ExecutionLimits.DEFAULT.timeout()), kind.dialect(), name);
            } catch (SQLException e) {
                throw new UserError("cannot read the schema of database '" + name + "': " + e.getMessage(), e);
            }
        }
        return schema;
    }

    private Connection connection(Duration timeout) throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = connections.open();
            sessionTimeout = null;
            mariaDb = kind == DatabaseKind.EMBEDDED_MARIADB || (kind.dialect() == Dialect.MYSQL
                    && String.valueOf(connection.getMetaData().getDatabaseProductVersion()).contains("MariaDB"));
        }
        if (kind.dialect() == Dialect.MYSQL && !timeout.equals(sessionTimeout)) {
            // a server that does not answer within the statement's own limit plus a margin is frozen or gone
            connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, timeouts.socket(timeout).toMillis()));
            // server-side limit: MariaDB stops the statement itself (max_statement_time, seconds)
            try (Statement st = connection.createStatement()) {
                st.execute(String.format(Locale.ROOT, "SET SESSION max_statement_time = %.3f", timeout.toMillis() / 1000.0));
            } catch (SQLException e) {
                // MySQL (not MariaDB) names it max_execution_time, in milliseconds, SELECT only
                try (Statement st = connection.createStatement()) {
                    st.execute("SET SESSION max_execution_time = " + timeout.toMillis());
                }
            }
            sessionTimeout = timeout;
        }
        return connection;
    }

    /** Closes the connection's socket at once, without reading what the server still sends. */
    private void abandonConnection() {
        Connection c = connection;
        connection = null;
        if (c == null) return;
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException | RuntimeException ignored) {
                // gone either way
            }
        }
    }

    private void dropConnection() {
        try {
            if (connection != null) connection.close();
        } catch (SQLException ignored) {
            // already broken
        }
        connection = null;
    }

    @Override
    public synchronized void close() {
        dropConnection();
        if (owner != null) {
            try {
                owner.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + name + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public String toString() {
        return kind + ":" + name;
    }
}
