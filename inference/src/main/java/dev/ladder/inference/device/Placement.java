package dev.ladder.inference.device;

import ai.djl.Device;
import java.util.Objects;

/**
 * Where a model runs once a device choice is resolved: the CPU or one GPU. The engines' own device types stay inside
 * this module; callers (the runner, the CLI) hold a placement.
 *
 * @param kind  the CPU or CUDA
 * @param index the GPU's index (0 for the CPU)
 */
public record Placement(DeviceKind kind, int index) {

    public Placement {
        Objects.requireNonNull(kind, "kind");
        if (index < 0 || kind == DeviceKind.CPU && index != 0) {
            throw new IllegalArgumentException("no device " + kind.cliName() + ":" + index);
        }
    }

    public static Placement cpu() {
        return new Placement(DeviceKind.CPU, 0);
    }

    public static Placement gpu(int index) {
        return new Placement(DeviceKind.CUDA, index);
    }

    /** The placement of an engine device. */
    public static Placement of(Device device) {
        return device.isGpu() ? gpu(device.getDeviceId()) : cpu();
    }

    /** The djl engine's device. */
    public Device toDjl() {
        return isGpu() ? Device.gpu(index) : Device.cpu();
    }

    public boolean isGpu() {
        return kind == DeviceKind.CUDA;
    }

    /** As users write it: {@code cpu}, {@code cuda:0}. */
    public String label() {
        return isGpu() ? "cuda:" + index : "cpu";
    }

    /** {@code cpu} or {@code gpu}: the word generation caches key their entries by (as DJL's device type). */
    public String type() {
        return isGpu() ? "gpu" : "cpu";
    }

    @Override
    public String toString() {
        return label();
    }
}
