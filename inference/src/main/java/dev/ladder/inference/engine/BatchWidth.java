package dev.ladder.inference.engine;

/**
 * A model's {@code batch_width}: how many items of a cell a run answers together, their model calls merged round by
 * round into one engine call (the run's {@code ItemRounds}). {@code auto} (or absent) leaves it to the engine
 * ({@link Engine#batchWidth}): a folder engine takes {@link #GPU} on a GPU where the memory plan holds the merged batch,
 * {@link #CPU} on a CPU; any other engine 1. Width 1 answers one item at a time, as runs always did. A served model
 * has none: its {@code max_concurrent} requests in flight are the server's to batch.
 */
public final class BatchWidth {

    /** The field's name in an experiment's model ({@code models.ID.batch_width}). */
    public static final String FIELD = "batch_width";
    /** The field's default: the engine decides. */
    public static final String AUTO = "auto";

    /**
     * The default on a GPU where the memory plan fits it: a decode step of 16 rows costs little more than one of a
     * single row there (docs/gpu.md: 16 rows 16x the tokens of one on an H100), and 16 is the engine's batch rows.
     */
    public static final int GPU = 16;

    /**
     * The default on a CPU: {@code ladder bench ladder --batch-width} on the 2-core reference measured the whole job
     * at widths 1, 2, 4 and 8 (docs/inference.md, "Items decoded together"); 4 took most of the gain of 8, whose
     * rounds wait longer for their slowest item.
     */
    public static final int CPU = 4;

    private BatchWidth() {}

    /**
     * The width a model's field asks for, or 0 for {@code auto} (or absent). A file's value is checked when the file
     * is read; here a value that is not a positive integer is refused through {@link ModelFields#refuse}.
     */
    public static int asked(ModelFields model) {
        String v = model.get(FIELD);
        if (v == null || v.strip().equalsIgnoreCase(AUTO)) return 0;
        try {
            int w = Integer.parseInt(v.strip());
            if (w >= 1) return w;
        } catch (NumberFormatException e) {
            // refused below
        }
        throw model.refuse(FIELD, "expected auto or a whole number >= 1, got " + v);
    }
}
