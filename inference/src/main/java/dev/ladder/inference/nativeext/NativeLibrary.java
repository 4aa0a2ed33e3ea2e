package dev.ladder.inference.nativeext;

/**
 * The JNI entry points of {@code libladder_native.so} ({@code native/src/jni.cc}). Tensors are DJL's handles: the
 * address of a heap {@code torch::Tensor}; every method returns a new one for a {@code PtNDArray} to own. 0 stands for
 * an absent optional tensor. Called only once {@link NativeExtension} has loaded the library.
 */
final class NativeLibrary {
    private NativeLibrary() {}

    /** {@code torch=<version built against>;kernels=<avx512|avx2|scalar>[+cuda];max_rows=<n>}. */
    static native String info();

    /** The CPU kernel variants this CPU runs, lowest first: {@code scalar,avx2,avx512}. */
    static native String cpuKernels();

    /** Switches the CPU kernels to one of {@link #cpuKernels()}; false when this CPU has no such variant. */
    static native boolean useCpuKernels(String name);

    static native long int8Linear(long x, long q, long scale, long bias);

    static native long int4Linear(long x, long packed, long in, long group, long scales, long zeros, long codes,
                                  long bias);
}
