package dev.ladder.inference.engine;

import java.nio.file.Path;

/**
 * A model resolved before any work: the folder it loads from and its adapter (null where there is none: a served
 * model, the oracle), and their fingerprints. A run holds its rows to these prints: resuming on changed weights would
 * mix two models.
 *
 * @param modelPrint   the model's fingerprint (its files, what a server serves, the oracle's noise)
 * @param adapterPrint the adapter's fingerprint, empty without one
 */
public record ModelIdentity(Path dir, Path adapter, String modelPrint, String adapterPrint) {

    /** A model with no files here: its print says what it is. */
    public static ModelIdentity of(String modelPrint) {
        return new ModelIdentity(null, null, modelPrint, "");
    }
}
