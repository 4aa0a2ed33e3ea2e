/**
 * Ladder's own native extension ({@code native/}, built by {@code scripts/build-native} against the libtorch DJL's
 * bridge uses): {@link dev.ladder.inference.nativeext.NativeExtension} decides once per process whether it is loaded
 * and says why not in one line; {@link dev.ladder.inference.nativeext.NativeOps} runs its kernels on DJL's arrays.
 * Everything it does has a Java path beside it, which stays the reference and the fallback.
 */
package dev.ladder.inference.nativeext;
