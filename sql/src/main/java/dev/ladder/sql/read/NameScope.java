package dev.ladder.sql.read;

import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The names one SELECT sees: the sources of its FROM clause, inside the scopes of the queries around it (a correlated
 * subquery sees its enclosing queries' sources). The one model of "which source does this qualifier or column name"
 * that the parsed-SQL readers share: EM's component extractor and schema binding build their scopes from it and ask it
 * the same questions (which source answers to a qualifier, which sources have a column, which are opaque).
 *
 * <p>What a reader does when a name is ambiguous or unknown is its own policy, on purpose: EM follows the Spider
 * evaluator (the first source by key wins, so two readings of one query compare equal), binding follows MySQL (an
 * ambiguous or unknown column is an error to report). Statements that may not parse are read lexically by
 * {@link TableReferences}.
 */
public final class NameScope {

    /** What a FROM item is. */
    public enum Kind {
        /** A table name: a table of the schema, or one it does not know ({@link Source#table()} null). */
        TABLE,
        /** A reference to a common table expression of an enclosing WITH. */
        CTE,
        /** A parenthesised query, or a table function. */
        DERIVED
    }

    /**
     * A FROM item as the names of one SELECT see it. Equality is identity: one table read twice is two sources.
     */
    public static final class Source {
        private final Kind kind;
        private final String alias;
        private final String written;
        private final Table table;
        private final List<String> outputs;
        private final String id;

        private Source(Kind kind, String alias, String written, Table table, List<String> outputs, String id) {
            this.kind = kind;
            this.alias = alias;
            this.written = written;
            this.table = table;
            this.outputs = outputs == null ? null : List.copyOf(outputs);
            this.id = id;
        }

        /** A table name, aliased or not; {@code table} is the schema's table, or null when the schema lacks it. */
        public static Source table(String alias, String written, Table table) {
            return new Source(Kind.TABLE, alias, written, table, null, null);
        }

        /** A CTE reference; {@code outputs} are its column names, or null when they are not known. */
        public static Source cte(String alias, String name, List<String> outputs) {
            return new Source(Kind.CTE, alias, name, null, outputs, null);
        }

        /**
         * A derived table (or a table function): {@code outputs} are its column names, or null when not known;
         * {@code id} is what its reader calls it (EM numbers them), or null.
         */
        public static Source derived(String alias, List<String> outputs, String id) {
            return new Source(Kind.DERIVED, alias, null, null, outputs, id);
        }

        public Kind kind() {
            return kind;
        }

        /** The alias, or null. */
        public String alias() {
            return alias;
        }

        /** The table or CTE name as written; null for a derived table. */
        public String written() {
            return written;
        }

        /** The schema's table, or null (not a table, or one the schema does not know). */
        public Table table() {
            return table;
        }

        /** A CTE's or derived table's column names as its reader gave them; null for a table or when not known. */
        public List<String> outputs() {
            return outputs;
        }

        public String id() {
            return id;
        }

        /** What qualifies its columns: the alias, else the name as written (null for an unaliased derived table). */
        public String qualifier() {
            return alias != null ? alias : written;
        }

        /** Whether {@code qualifier} names this source (names compare ignoring case, as MySQL's do on most systems). */
        public boolean answersTo(String qualifier) {
            String q = qualifier();
            return q != null && q.equalsIgnoreCase(qualifier);
        }

        /** Whether its columns are not known: a table the schema lacks, or a derived table of unknown shape. */
        public boolean opaque() {
            return table == null && outputs == null;
        }

        /** Whether it has {@code column} (false when its columns are not known). */
        public boolean has(String column) {
            if (table != null) return table.column(column).isPresent();
            return outputs != null && outputs.stream().anyMatch(column::equalsIgnoreCase);
        }

        /** Its column names, or null when not known. */
        public List<String> columnNames() {
            return table != null ? table.columns().stream().map(Column::name).toList() : outputs;
        }

        /** How messages name it: the schema table's name, else its qualifier, else "derived table". */
        public String label() {
            return table != null ? table.name() : qualifier() != null ? qualifier() : "derived table";
        }

        @Override
        public String toString() {
            return kind + " " + label();
        }
    }

    private final NameScope parent;
    private final List<Source> sources = new ArrayList<>();

    /** A scope inside {@code parent} (null: the outermost). */
    public NameScope(NameScope parent) {
        this.parent = parent;
    }

    public NameScope parent() {
        return parent;
    }

    /** This scope's sources, in FROM order. */
    public List<Source> sources() {
        return Collections.unmodifiableList(sources);
    }

    public void add(Source source) {
        sources.add(source);
    }

    /** The first source of this scope that answers to {@code qualifier}, or null. */
    public Source local(String qualifier) {
        for (Source s : sources) if (s.answersTo(qualifier)) return s;
        return null;
    }

    /** The source {@code qualifier} names: in this scope, else in the nearest enclosing one; null when none. */
    public Source qualified(String qualifier) {
        for (NameScope s = this; s != null; s = s.parent) {
            Source found = s.local(qualifier);
            if (found != null) return found;
        }
        return null;
    }

    /** This scope's sources that have {@code column}, in FROM order. */
    public List<Source> having(String column) {
        return sources.stream().filter(s -> s.has(column)).toList();
    }

    /** Whether some source of this scope has columns that are not known. */
    public boolean anyOpaque() {
        return sources.stream().anyMatch(Source::opaque);
    }
}
