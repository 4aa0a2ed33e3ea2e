package dev.ladder.eval.experiment;

import java.util.Objects;

/**
 * One column of the ablation grid: a model (with or without an adapter) answering with one strategy.
 *
 * @param index    position in the experiment (reports list cells in this order, bottom rung first)
 * @param name     the rung's display name, unique in a run (e.g. {@code prompt-k0}, {@code qlora-k3}, {@code agent-2})
 * @param model    the model's name (directory name or hub id)
 * @param adapter  the adapter's name, or {@code ""} for none
 * @param strategy the registered strategy name ({@code prompt-k0} ... {@code agent-3})
 * @param seed     the sampling seed of the cell
 */
public record Cell(int index, String name, String model, String adapter, String strategy, long seed) {
    public Cell {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(model, "model");
        adapter = adapter == null ? "" : adapter;
        Objects.requireNonNull(strategy, "strategy");
    }
}
