package dev.ladder.inference.nativeext;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.engine.PtNDManager;
import java.util.List;

/**
 * The native extension's kernels on DJL's arrays. Each result is a new array on the manager of {@code x}. Call
 * only where {@link #int8(Device, DataType)} (or {@link #int4(Device, DataType)}) says yes, with at most
 * {@link #maxRows()} rows; the kernels check shapes and types and throw DJL's {@code EngineException} otherwise.
 */
public final class NativeOps {
    private NativeOps() {}

    /** Whether the int8 product runs for activations of {@code type} on {@code device}: float32 on a CPU; float16 or float32 on CUDA when built with it. */
    public static boolean int8(Device device, DataType type) {
        NativeExtension.Status s = NativeExtension.status();
        if (!s.loaded()) return false;
        if (device.isGpu()) return s.cuda() && (type == DataType.FLOAT16 || type == DataType.FLOAT32);
        return type == DataType.FLOAT32;
    }

    /** Whether the packed int4 product runs for activations of {@code type} on {@code device}: float32 on a CPU. */
    public static boolean int4(Device device, DataType type) {
        return NativeExtension.status().loaded() && !device.isGpu() && type == DataType.FLOAT32;
    }

    /** Most rows of x (its elements over the input size) one call takes. */
    public static int maxRows() {
        return NativeExtension.status().maxRows();
    }

    /** The CPU kernel variants this CPU runs, lowest first ({@code scalar}, {@code avx2}, {@code avx512}). */
    public static List<String> cpuKernels() {
        return List.of(NativeLibrary.cpuKernels().split(","));
    }

    /**
     * Runs the CPU kernels of variant {@code name} from now on (the best one the CPU has is the default): for tests,
     * which hold every variant to the Java path, and benchmarks.
     *
     * @throws IllegalArgumentException when this CPU has no such variant
     */
    public static void useCpuKernels(String name) {
        if (!NativeLibrary.useCpuKernels(name)) {
            throw new IllegalArgumentException("no CPU kernels '" + name + "' here; this CPU runs " + cpuKernels());
        }
    }

    /**
     * {@code (x q^T) * scale (+ bias)}: {@code q} int8 {@code [out, in]}, {@code scale} and {@code bias} ({@code null}
     * for none) {@code [out]} of x's type; the result {@code [..., out]}.
     */
    public static NDArray int8Linear(NDArray x, NDArray q, NDArray scale, NDArray bias) {
        return wrap(x, NativeLibrary.int8Linear(handle(x), handle(q), handle(scale), handle(bias)));
    }

    /**
     * {@code x W^T (+ bias)} with {@code W[o, i] = (code(n) - zero[o, g]) * scale[o, g]}, {@code n} the 4-bit value of
     * weight {@code (o, i)} in {@code packed} (uint8 {@code [out, ceil(in / 2)]}, weight {@code 2k} in the low nibble
     * of byte {@code k}), {@code g = i / group}; {@code code(n) = codes[n]} ({@code null}: {@code n}), {@code zeros}
     * {@code null}: 0. Float32 on a CPU.
     */
    public static NDArray int4Linear(NDArray x, NDArray packed, long in, long group, NDArray scales, NDArray zeros,
                                     NDArray codes, NDArray bias) {
        return wrap(x, NativeLibrary.int4Linear(handle(x), handle(packed), in, group, handle(scales), handle(zeros),
                handle(codes), handle(bias)));
    }

    private static long handle(NDArray a) {
        return a == null ? 0 : ((PtNDArray) a).getHandle();
    }

    private static NDArray wrap(NDArray x, long handle) {
        return new PtNDArray((PtNDManager) x.getManager(), handle);
    }
}
