package dev.ladder.eval.run;

import dev.ladder.pipeline.strategy.Bound;
import dev.ladder.pipeline.strategy.SettingBounds;
import dev.ladder.sql.db.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shard {@code index} of {@code count} of an experiment's items ({@code ladder run --shard i/N}), numbered from 1.
 * After the experiment's item selection, the item at position p (0-based) belongs to shard (p mod N) + 1: the same
 * item lands in the same shard for every cell, so a shard reuses generations across cells per item as a whole run does,
 * and round robin keeps each shard's mix of categories and difficulties close to the whole's (the selection is in file
 * order, which groups them).
 *
 * @param index this shard, 1..count
 * @param count how many shards the items are split into, at least 1
 */
public record Shard(int index, int count) {

    /** The results store's meta key (and environment.json's {@code run.shard}) holding {@link #label()}. */
    public static final String META_KEY = "shard";

    private static final Pattern FORM = Pattern.compile("([0-9]{1,9})/([0-9]{1,9})");

    public Shard {
        if (count < 1 || index < 1 || index > count) {
            throw new IllegalArgumentException("shard " + index + "/" + count + ": need 1 <= i <= N");
        }
    }

    /**
     * Reads {@code i/N}.
     *
     * @param what the flag or field it came from, for the message
     * @throws UserError when the text is not {@code i/N} with {@code 1 <= i <= N <= }{@link SettingBounds#RUN_SHARDS}
     */
    public static Shard parse(String text, String what) {
        Matcher m = FORM.matcher(text == null ? "" : text.strip());
        if (m.matches()) {
            int i = Integer.parseInt(m.group(1));
            int n = Integer.parseInt(m.group(2));
            if (n > SettingBounds.RUN_SHARDS) {
                throw new UserError(what + " " + text + ": N must be <= " + SettingBounds.RUN_SHARDS + ", got " + n
                        + " (the bounds and why: " + Bound.WHY + ")");
            }
            if (n >= 1 && i >= 1 && i <= n) return new Shard(i, n);
        }
        throw new UserError(what + " " + text + ": expected i/N with 1 <= i <= N (shards count from 1), e.g. "
                + what + " 1/4 ... " + what + " 4/4");
    }

    /** {@code i/N}. */
    public String label() {
        return index + "/" + count;
    }

    /** Whether the item at {@code position} of the selection is this shard's. */
    public boolean owns(int position) {
        return position % count == index - 1;
    }

    /** This shard's positions among {@code size} selected items, ascending. */
    public List<Integer> positions(int size) {
        List<Integer> out = new ArrayList<>();
        for (int p = index - 1; p < size; p += count) out.add(p);
        return out;
    }

    /** Where a shard runs when no {@code --out} is given: the experiment's output with {@code -shard-i-of-N}. */
    public Path directoryBeside(Path output) {
        Path name = output.getFileName();
        String suffixed = (name == null ? "run" : name.toString()) + "-shard-" + index + "-of-" + count;
        return output.resolveSibling(suffixed);
    }
}
