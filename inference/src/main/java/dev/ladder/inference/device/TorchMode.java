package dev.ladder.inference.device;

import java.util.Locale;

/**
 * Which libtorch the {@code djl} engine loads. Chosen once per process, before the engine starts, by
 * {@code LADDER_TORCH} (or the system property {@code ladder.torch}); see docs/gpu.md.
 */
public enum TorchMode {
    /** The CPU libtorch of the {@code pytorch-native-cpu} jar on the class path; offline. The default, and CI's. */
    BUNDLED,
    /** An installed Python {@code torch} of the version DJL was built for (a CUDA wheel on a GPU machine); offline. */
    PIP,
    /** DJL downloads the libtorch that matches the machine (CUDA when it sees one) into its cache; needs network. */
    DOWNLOAD,
    /** The installed torch, whatever its version, through a bridge built for it by {@code scripts/build-bridge}; offline. */
    BRIDGE;

    /** The name users write ({@code bundled}, {@code pip}, {@code download}, {@code bridge}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws TorchSetupException naming the accepted values
     */
    public static TorchMode parse(String value, String where) {
        for (TorchMode m : values()) {
            if (m.label().equals(value.strip().toLowerCase(Locale.ROOT))) return m;
        }
        throw new TorchSetupException(where + " must be bundled, pip, download or bridge, got '" + value + "'");
    }
}
