package dev.ladder.sql.guard;

import dev.ladder.sql.Dialect;
import dev.ladder.sql.SqlLexer;
import dev.ladder.sql.SqlToken;
import dev.ladder.sql.read.Query;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Decides whether untrusted SQL is exactly one read-only query (SELECT, WITH ... SELECT, or a set
 * operation of those). Two independent layers:
 * <ol>
 *   <li>lexical checks on tokens, which agree with the server about strings and comments: one
 *       statement, starts like a query, no write/DDL keywords, no {@code INTO}, no locking reads,
 *       no dangerous functions, no user variables, no executable comments;</li>
 *   <li>a JSqlParser parse: the statement must be a {@link Select} without {@code INTO} or
 *       {@code FOR UPDATE/SHARE}.</li>
 * </ol>
 * Statements JSqlParser cannot parse but that pass the lexical layer are accepted with
 * {@code parsed=false}: MySQL accepts syntax JSqlParser does not, the database is the judge of
 * validity, and the read-only connection is the last line of defence either way.
 */
public final class SqlGuard {

    /** Words that never appear in a read-only query (outside strings and quoted identifiers). */
    /**
     * Words that never appear inside a read-only query (outside strings and quoted identifiers).
     * Words that can only start a statement (BEGIN, SET, SHOW, ...) need no entry: the first-token
     * and one-statement checks already stop them.
     */
    private static final Set<String> FORBIDDEN_WORDS = Set.of(
            "DELETE", "UPDATE", "DROP", "ALTER", "CREATE", "TRUNCATE", "RENAME", "GRANT", "REVOKE",
            "CALL", "HANDLER", "LOCK", "UNLOCK", "KILL", "LOAD", "ATTACH", "DETACH", "PRAGMA",
            "OUTFILE", "DUMPFILE", "INTO", "PROCEDURE", "NEXTVAL", "SETVAL", "LASTVAL");

    /** Words that are write statements, except when used as the function of the same name. */
    private static final Set<String> FORBIDDEN_UNLESS_FUNCTION = Set.of("INSERT", "REPLACE");

    /** Functions that sleep, hold locks, touch files or run code. */
    private static final Set<String> FORBIDDEN_FUNCTIONS = Set.of(
            "SLEEP", "BENCHMARK", "LOAD_FILE", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS",
            "IS_FREE_LOCK", "IS_USED_LOCK", "MASTER_POS_WAIT", "MASTER_GTID_WAIT", "SOURCE_POS_WAIT",
            "WAIT_FOR_EXECUTED_GTID_SET", "WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS", "SYS_EXEC", "SYS_EVAL",
            "LOAD_EXTENSION", "READFILE", "WRITEFILE", "EDIT", "FTS3_TOKENIZER", "SQLITE_COMPILEOPTION_GET");

    private static final Set<String> QUERY_STARTS = Set.of("SELECT", "WITH", "VALUES");

    /** Deepest parenthesis nesting the guard lets through: the query reader's limit ({@link Query#MAX_NESTING}). */
    public static final int MAX_NESTING = Query.MAX_NESTING;

    private final Dialect dialect;

    public SqlGuard(Dialect dialect) {
        this.dialect = dialect;
    }

    public GuardVerdict check(String sql) {
        if (sql == null || sql.isBlank()) return GuardVerdict.reject("", "empty statement");
        List<SqlToken> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, dialect);
        } catch (SqlLexer.LexException e) {
            return GuardVerdict.syntaxError(sql.strip(), e.getMessage());
        }

        int statementEnd = -1;
        for (SqlToken t : tokens) {
            if (t.type() == SqlToken.Type.EXECUTABLE_COMMENT) {
                return GuardVerdict.reject(sql.strip(), "executable comment /*! ... */ is not allowed");
            }
            if (statementEnd < 0 && t.isSymbol(";")) {
                statementEnd = t.start();
            } else if (statementEnd >= 0 && !t.isTrivia()) {
                return GuardVerdict.reject(sql.strip(), "several statements: only one query may run");
            }
        }
        int end = statementEnd >= 0 ? statementEnd : sql.length();
        String statement = sql.substring(0, end).strip();
        List<SqlToken> sig = tokens.stream().filter(t -> !t.isTrivia() && t.start() < end).toList();
        if (sig.isEmpty()) return GuardVerdict.reject(statement, "empty statement");

        Query query = Query.read(statement, dialect);
        // deeper parentheses are never parsed (the parser recurses per level): a verdict, not a stack overflow
        if (query.nestingDepth() > MAX_NESTING) return GuardVerdict.reject(statement, query.parseFailure());
        String lexical = lexicalCheck(sig);
        // a first word that begins no statement of either dialect is a typo ("SELEC"), not a write the guard refuses
        if (lexical != null && lexical.startsWith(NOT_A_QUERY) && beginsNoStatement(firstWord(sig))
                && query.statement().isEmpty()) {
            return GuardVerdict.syntaxError(statement, "not SQL: '" + firstWord(sig).text()
                    + "' begins no statement (" + query.parseFailure() + ")");
        }
        if (lexical != null) return GuardVerdict.reject(statement, lexical);
        return structuralCheck(query);
    }

    private static final String NOT_A_QUERY = "not a read-only query";

    /** The words a MySQL or SQLite statement other than a query can begin with (the guard refuses each on purpose). */
    private static final Set<String> STATEMENT_STARTS = Set.of("ALTER", "ANALYZE", "ATTACH", "BEGIN", "BINLOG", "CACHE",
            "CALL", "CHANGE", "CHECK", "CHECKSUM", "COMMIT", "CREATE", "DEALLOCATE", "DELETE", "DESC", "DESCRIBE",
            "DETACH", "DO", "DROP", "END", "EXECUTE", "EXPLAIN", "FLUSH", "GET", "GRANT", "HANDLER", "HELP", "IMPORT",
            "INSERT", "INSTALL", "KILL", "LOAD", "LOCK", "MERGE", "OPTIMIZE", "PRAGMA", "PREPARE", "PURGE", "REINDEX",
            "RELEASE", "RENAME", "REPAIR", "REPLACE", "RESET", "RESIGNAL", "REVOKE", "ROLLBACK", "SAVEPOINT", "SET",
            "SHOW", "SHUTDOWN", "SIGNAL", "START", "STOP", "TABLE", "TRUNCATE", "UNINSTALL", "UNLOCK", "UPDATE",
            "UPSERT", "USE", "VACUUM", "XA");

    /** A word no statement of either dialect begins with: a mistyped keyword, not a statement the guard refuses. */
    private static boolean beginsNoStatement(SqlToken first) {
        return first.type() == SqlToken.Type.WORD && !STATEMENT_STARTS.contains(upper(first))
                && !QUERY_STARTS.contains(upper(first));
    }

    private static SqlToken firstWord(List<SqlToken> sig) {
        return sig.stream().filter(t -> !t.isSymbol("(")).findFirst().orElse(sig.get(0));
    }

    private String lexicalCheck(List<SqlToken> sig) {
        SqlToken first = firstWord(sig);
        if (first.type() != SqlToken.Type.WORD || !QUERY_STARTS.contains(upper(first))) {
            return NOT_A_QUERY + ": it starts with '" + first.text() + "'";
        }
        for (int i = 0; i < sig.size(); i++) {
            SqlToken t = sig.get(i);
            SqlToken next = i + 1 < sig.size() ? sig.get(i + 1) : null;
            boolean calledAsFunction = next != null && next.isSymbol("(");
            if (t.type() == SqlToken.Type.VARIABLE && !t.text().startsWith("@@")) {
                return "user variables are not allowed (" + t.text() + ")";
            }
            if (t.isSymbol(":=")) return "variable assignment (:=) is not allowed";
            if (t.type() == SqlToken.Type.QUOTED_IDENTIFIER && calledAsFunction) {
                // both servers resolve a quoted name before '(' to the built-in: `sleep`(5) sleeps
                String name = unquote(t).toUpperCase(Locale.ROOT);
                if (FORBIDDEN_FUNCTIONS.contains(name)) return "function " + name + "() is not allowed";
            }
            if (t.type() != SqlToken.Type.WORD) continue;
            String w = upper(t);
            if (w.equals("FOR") && next != null && (next.isWord("UPDATE") || next.isWord("SHARE"))) {
                return "locking read (FOR " + upper(next) + ") is not allowed";
            }
            if (w.equals("LOCK") && next != null && next.isWord("IN")) {
                return "locking read (LOCK IN SHARE MODE) is not allowed";
            }
            if (w.equals("INTO")) return "SELECT ... INTO is not allowed (it writes files, variables or tables)";
            if ((w.equals("NEXT") || w.equals("PREVIOUS")) && next != null && next.isWord("VALUE")) {
                return "sequence access (" + w + " VALUE FOR) is not allowed";
            }
            if (FORBIDDEN_WORDS.contains(w)) return "'" + w + "' is not allowed in a read-only query";
            if (FORBIDDEN_UNLESS_FUNCTION.contains(w) && !calledAsFunction) {
                return "'" + w + "' is not allowed in a read-only query";
            }
            if (calledAsFunction && FORBIDDEN_FUNCTIONS.contains(w)) {
                return "function " + w + "() is not allowed";
            }
        }
        return null;
    }

    private GuardVerdict structuralCheck(Query query) {
        String statement = query.text();
        Statements parsed;
        try {
            parsed = query.statements();
        } catch (JSQLParserException | RuntimeException e) {
            // MySQL accepts syntax JSqlParser does not, and a chain of operators too deep to parse safely is still a
            // query; the lexical layer already vouched for it.
            return GuardVerdict.accept(statement, false);
        }
        // JSqlParser returns null instead of throwing when a query nested more than 10 levels fails to parse
        if (parsed == null) return GuardVerdict.accept(statement, false);
        if (parsed.size() != 1) return GuardVerdict.reject(statement, "several statements: only one query may run");
        Statement st = parsed.get(0);
        if (!(st instanceof Select select)) {
            return GuardVerdict.reject(statement, "not a read-only query: parsed as "
                    + st.getClass().getSimpleName().toUpperCase(Locale.ROOT));
        }
        if (select.getForMode() != null || select.getForUpdateTable() != null) {
            return GuardVerdict.reject(statement, "locking read is not allowed");
        }
        if (select instanceof PlainSelect plain && plain.getIntoTables() != null && !plain.getIntoTables().isEmpty()) {
            return GuardVerdict.reject(statement, "SELECT ... INTO is not allowed");
        }
        return GuardVerdict.accept(statement, true);
    }

    /** The name inside a quoted identifier: `a``b`, "a""b" or [ab] without the quotes. */
    private static String unquote(SqlToken t) {
        String text = t.text();
        char open = text.charAt(0);
        String inner = text.substring(1, text.length() - 1);
        return open == '[' ? inner : inner.replace(String.valueOf(open).repeat(2), String.valueOf(open));
    }

    private static String upper(SqlToken t) {
        return t.text().toUpperCase(Locale.ROOT);
    }
}
