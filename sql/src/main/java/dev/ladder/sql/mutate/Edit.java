package dev.ladder.sql.mutate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** One edit of a query's text: characters [start, end) replaced by {@code text} (an insertion when start == end). */
record Edit(int start, int end, String text) {

    static Edit insert(int at, String text) {
        return new Edit(at, at, text);
    }

    /**
     * The text with every edit made. Edits must not overlap; insertions at one point land in list order. Offsets are
     * the original text's: edits are made from the end so earlier offsets stay valid.
     */
    static String apply(String sql, List<Edit> edits) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < edits.size(); i++) order.add(i);
        order.sort(Comparator.<Integer>comparingInt(i -> edits.get(i).start()).reversed()
                .thenComparing(Comparator.<Integer>naturalOrder().reversed()));
        StringBuilder out = new StringBuilder(sql);
        for (int i : order) {
            Edit e = edits.get(i);
            out.replace(e.start(), e.end(), e.text());
        }
        return out.toString();
    }
}
