package dev.ladder.sql.read;

import dev.ladder.sql.SqlToken;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The schema tables and columns a query's names refer to, read from its tokens (the query need not parse): schema
 * linking from SQL, as the candidate score's relevance part and a draft-SQL schema linker need it.
 *
 * <p>A table is any name (not called as a function) that is a schema table. A column is any other such name that is
 * a column of a used table (of any schema table when no table is used); the first table in schema order that has it
 * gives its spelling. Names are matched case-insensitively; maps are in order of first use.
 *
 * @param tables  lower-case table name -> schema table
 * @param columns lower-case name as written -> the schema column's name
 */
public record SchemaReferences(Map<String, Table> tables, Map<String, String> columns) {

    public SchemaReferences {
        tables = Collections.unmodifiableMap(new LinkedHashMap<>(tables));
        columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }

    static SchemaReferences of(List<SqlToken> t, Schema schema) {
        Map<String, Table> tables = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = Identifiers.name(t, i);
            if (name != null) schema.table(name).ifPresent(tab -> tables.putIfAbsent(tab.name().toLowerCase(Locale.ROOT), tab));
        }
        Collection<Table> scope = tables.isEmpty() ? schema.tables() : tables.values();
        Map<String, String> columns = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            String name = Identifiers.name(t, i);
            if (name == null || tables.containsKey(name.toLowerCase(Locale.ROOT))) continue;
            for (Table tab : scope) {
                var col = tab.column(name);
                if (col.isPresent()) {
                    columns.putIfAbsent(name.toLowerCase(Locale.ROOT), col.get().name());
                    break;
                }
            }
        }
        return new SchemaReferences(tables, columns);
    }
}
