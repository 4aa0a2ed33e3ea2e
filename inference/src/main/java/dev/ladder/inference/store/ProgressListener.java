package dev.ladder.inference.store;

import java.util.List;

/**
 * Hears how a {@link ModelStore#pull pull} goes. Calls come from the pulling thread, in order. All methods do nothing
 * by default.
 */
public interface ProgressListener {

    /** Does nothing. */
    ProgressListener NONE = new ProgressListener() {};

    /** Another pull of the same directory (another process sharing the store) is running: this one waits for it. */
    default void waiting(String repoId, String revision) {}

    /**
     * The file list is known.
     *
     * @param files      the files to fetch or check, in download order
     * @param totalBytes their total size, or -1 when the hub did not say (no {@code ?blobs=true} sizes)
     */
    default void started(String repoId, String revision, List<HubFile> files, long totalBytes) {}

    /**
     * A file starts downloading.
     *
     * @param size       its size, or -1 when not known yet
     * @param resumeFrom bytes already there from an earlier, interrupted pull (0 for a fresh download)
     */
    default void fileStarted(String name, long size, long resumeFrom) {}

    /** {@code bytes} more bytes of the current file arrived. */
    default void transferred(String name, long bytes) {}

    /**
     * A file is in place: downloaded and verified, or already there from an earlier pull ({@code alreadyThere}).
     *
     * @param size its size on disk
     */
    default void fileFinished(String name, long size, boolean alreadyThere) {}
}
