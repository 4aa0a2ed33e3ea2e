package dev.ladder.inference.device;

import java.util.Locale;

/** Where the model runs. */
public enum DeviceKind {
    CPU,
    CUDA;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException (one line) for anything but cpu, cuda */
    public static DeviceKind parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "cpu" -> CPU;
            case "cuda", "gpu" -> CUDA;
            default -> throw new IllegalArgumentException("device must be cpu or cuda, got '" + text + "'");
        };
    }
}
