// JNI entry points of dev.ladder.inference.nativeext.NativeLibrary. Tensors travel as DJL's handles: a jlong that
// points at a heap torch::Tensor (DJL's bridge makes them with new torch::Tensor(...) and deletes them when the
// NDArray closes). Results are new heap tensors, handed to Java the same way and wrapped in a PtNDArray there.
#include <jni.h>

#include <c10/util/Exception.h>

#include <exception>
#include <string>

#include "weight_only.h"

#ifndef LADDER_TORCH_VERSION
#error "LADDER_TORCH_VERSION (the torch version this is built against) must be defined by the build"
#endif

namespace {

const at::Tensor& tensor(jlong handle) {
  TORCH_CHECK(handle != 0, "a required tensor is missing (null handle)");
  return *reinterpret_cast<const at::Tensor*>(handle);
}

// handle 0 (a Java null) is an undefined tensor: no bias, no zero points, ...
at::Tensor optional(jlong handle) {
  return handle == 0 ? at::Tensor() : tensor(handle);
}

jlong release(at::Tensor&& t) {
  return reinterpret_cast<jlong>(new at::Tensor(std::move(t)));
}

void raise(JNIEnv* env, const char* message) {
  jclass cls = env->FindClass("ai/djl/engine/EngineException");
  if (cls == nullptr) {
    env->ExceptionClear();
    cls = env->FindClass("java/lang/RuntimeException");
  }
  env->ThrowNew(cls, message);
}

template <typename F>
jlong guarded(JNIEnv* env, F&& f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    raise(env, e.what_without_backtrace());
  } catch (const std::exception& e) {
    raise(env, e.what());
  }
  return 0;
}

}  // namespace

extern "C" {

JNIEXPORT jstring JNICALL Java_dev_ladder_inference_nativeext_NativeLibrary_info(JNIEnv* env, jclass) {
  std::string info = std::string("torch=") + LADDER_TORCH_VERSION + ";kernels=" + ladder::kernels() +
                     ";max_rows=" + std::to_string(ladder::kMaxRows);
  return env->NewStringUTF(info.c_str());
}

JNIEXPORT jstring JNICALL Java_dev_ladder_inference_nativeext_NativeLibrary_cpuKernels(JNIEnv* env, jclass) {
  return env->NewStringUTF(ladder::cpu::isas().c_str());
}

JNIEXPORT jboolean JNICALL Java_dev_ladder_inference_nativeext_NativeLibrary_useCpuKernels(JNIEnv* env, jclass,
                                                                                           jstring name) {
  const char* chars = env->GetStringUTFChars(name, nullptr);
  bool ok = ladder::cpu::use_isa(chars);
  env->ReleaseStringUTFChars(name, chars);
  return ok ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jlong JNICALL Java_dev_ladder_inference_nativeext_NativeLibrary_int8Linear(
    JNIEnv* env, jclass, jlong x, jlong q, jlong scale, jlong bias) {
  return guarded(env, [&] { return release(ladder::int8_linear(tensor(x), tensor(q), tensor(scale), optional(bias))); });
}

JNIEXPORT jlong JNICALL Java_dev_ladder_inference_nativeext_NativeLibrary_int4Linear(
    JNIEnv* env, jclass, jlong x, jlong packed, jlong in, jlong group, jlong scales, jlong zeros, jlong codes,
    jlong bias) {
  return guarded(env, [&] {
    return release(ladder::int4_linear(tensor(x), tensor(packed), in, group, tensor(scales), optional(zeros),
                                       optional(codes), optional(bias)));
  });
}

}  // extern "C"
