package dev.ladder.adapters;

import java.util.stream.IntStream;

/** The LoRA merge product in plain Java: {@code W += scale · B · A} on row blocks of W, in float32. */
public final class LoraMath {

    /** Rows per parallel task. */
    private static final int ROW_TILE = 16;
    /** Columns per inner tile: {@code rank × COL_TILE} floats of A stay in cache while a row tile is updated. */
    private static final int COL_TILE = 1024;

    private LoraMath() {}

    /**
     * Adds {@code scale · b[firstRow .. firstRow+rows) · a} to {@code w}, a row-major {@code [rows, cols]} block
     * holding rows {@code firstRow ..} of the full matrix.
     *
     * @param b row-major {@code [totalRows, rank]}
     * @param a row-major {@code [rank, cols]}
     */
    public static void addProduct(float[] w, long firstRow, int rows, int cols, float[] b, float[] a, int rank,
                                  float scale) {
        if ((long) rows * cols > w.length) throw new IllegalArgumentException("w holds fewer than rows × cols values");
        if ((long) rank * cols != a.length) throw new IllegalArgumentException("a is not [rank, cols]");
        if ((firstRow + rows) * rank > b.length) throw new IllegalArgumentException("b has fewer rows than asked");
        int tiles = (rows + ROW_TILE - 1) / ROW_TILE;
        IntStream range = IntStream.range(0, tiles);
        if ((long) rows * cols * rank > 1 << 16) range = range.parallel();
        range.forEach(t -> {
            int r0 = t * ROW_TILE;
            int r1 = Math.min(rows, r0 + ROW_TILE);
            float[] coef = new float[rank];
            for (int c0 = 0; c0 < cols; c0 += COL_TILE) {
                int c1 = Math.min(cols, c0 + COL_TILE);
                for (int i = r0; i < r1; i++) {
                    int bRow = (int) ((firstRow + i) * rank);
                    for (int k = 0; k < rank; k++) coef[k] = scale * b[bRow + k];
                    int wRow = i * cols;
                    for (int k = 0; k < rank; k++) {
                        float c = coef[k];
                        if (c == 0) continue;
                        int aRow = k * cols;
                        for (int j = c0; j < c1; j++) w[wRow + j] += c * a[aRow + j];
                    }
                }
            }
        });
    }
}
