package dev.ladder.pipeline.gsr;

import dev.ladder.sql.read.SchemaBinding;
import dev.ladder.sql.schema.Column;
import dev.ladder.sql.schema.Schema;
import dev.ladder.sql.schema.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The schema with what a draft already uses hidden, so that the model looks for what else the question may need: a
 * used column is shown as {@code [in the draft]} and a table whose every column is used is not listed at all;
 * everything else is shown with its type as in the standard schema summary.
 */
final class MaskedSchema {

    static final String MASK = "[in the draft]";

    private MaskedSchema() {}

    static String render(Schema schema, SchemaBinding binding) {
        Set<String> usedTables = new HashSet<>();
        binding.tables().forEach(t -> usedTables.add(t.toLowerCase(Locale.ROOT)));
        Set<String> usedColumns = new HashSet<>();
        binding.columns().forEach(c -> usedColumns.add((c.table() + "." + c.column()).toLowerCase(Locale.ROOT)));
        StringBuilder sb = new StringBuilder();
        for (Table t : schema.tables()) {
            boolean tableUsed = usedTables.contains(t.name().toLowerCase(Locale.ROOT));
            List<String> parts = new ArrayList<>();
            int hidden = 0;
            for (Column c : t.columns()) {
                if (usedColumns.contains((t.name() + "." + c.name()).toLowerCase(Locale.ROOT))) {
                    hidden++;
                    parts.add(MASK);
                } else {
                    parts.add(c.name() + " " + c.type());
                }
            }
            if (hidden == t.columns().size() && tableUsed) continue;
            sb.append(t.name()).append(tableUsed ? " " + MASK : "").append('(').append(String.join(", ", parts)).append(")\n");
        }
        return sb.length() == 0 ? "(every table and column is in the draft)\n" : sb.toString();
    }

    /**
     * The model's answer to the masked schema: {@code table.column} or {@code table} lines that name something the
     * schema has and the draft does not use, at most {@code limit}, in the model's order.
     */
    static List<String> parse(String reply, Schema schema, SchemaBinding binding, int limit) {
        Set<String> used = new HashSet<>();
        binding.columns().forEach(c -> used.add((c.table() + "." + c.column()).toLowerCase(Locale.ROOT)));
        List<String> out = new ArrayList<>();
        for (String line : reply.split("\\R")) {
            String item = line.strip().replaceFirst("^([-*•]|\\d+[.)])\\s*", "").replaceAll("[`\"]", "").strip();
            if (item.isEmpty() || item.equalsIgnoreCase("none")) continue;
            String name = item.split("[\\s,:;(]", 2)[0];
            int dot = name.indexOf('.');
            String found = null;
            if (dot > 0) {
                var t = schema.table(name.substring(0, dot));
                var c = t.flatMap(tab -> tab.column(name.substring(dot + 1)));
                if (c.isPresent() && !used.contains((t.get().name() + "." + c.get().name()).toLowerCase(Locale.ROOT))) {
                    found = t.get().name() + "." + c.get().name();
                }
            } else {
                var t = schema.table(name);
                if (t.isPresent() && binding.tables().stream().noneMatch(u -> u.equalsIgnoreCase(t.get().name()))) {
                    found = t.get().name();
                }
            }
            if (found != null && !out.contains(found)) out.add(found);
            if (out.size() == limit) break;
        }
        return out;
    }
}
