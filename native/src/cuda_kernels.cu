// Weight-only int8 matrix-vector products for the few rows of a decode step on CUDA (compute capability 7.5 and
// up, the T4 included: float16 and float32 only, no bfloat16). One warp per output row: each lane reads 16 int8
// weights at a time (one 16-byte load), widens them in registers and multiplies them with the same 16 columns of
// every row of x (at most kRowsPerLaunch), accumulating in float32; a warp shuffle sums the lanes. The weight
// matrix is read once per launch and never written in another type.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_kernels.h"

namespace ladder::cuda {
namespace {

constexpr int kWarps = 8;  // output rows per block

__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ void from_float(float v, __half* p) { *p = __float2half(v); }
__device__ __forceinline__ void from_float(float v, float* p) { *p = v; }

// 16 consecutive values of x as float32, from a 16-byte aligned address
__device__ __forceinline__ void load16(const __half* p, float* v) {
  const uint4 a = reinterpret_cast<const uint4*>(p)[0];
  const uint4 b = reinterpret_cast<const uint4*>(p)[1];
  const __half2* h = reinterpret_cast<const __half2*>(&a);
  const __half2* g = reinterpret_cast<const __half2*>(&b);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float2 f = __half22float2(h[k]);
    v[2 * k] = f.x, v[2 * k + 1] = f.y;
    float2 e = __half22float2(g[k]);
    v[8 + 2 * k] = e.x, v[8 + 2 * k + 1] = e.y;
  }
}

__device__ __forceinline__ void load16(const float* p, float* v) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float4 f = reinterpret_cast<const float4*>(p)[k];
    v[4 * k] = f.x, v[4 * k + 1] = f.y, v[4 * k + 2] = f.z, v[4 * k + 3] = f.w;
  }
}

// R rows of x; VEC: in % 16 == 0 and 16-byte aligned rows (else one element per lane at a time)
template <typename T, int R, bool VEC>
__global__ void int8_gemv(const T* __restrict__ x, int64_t in, const int8_t* __restrict__ q, int64_t out,
                          const T* __restrict__ scale, const T* __restrict__ bias, T* __restrict__ y) {
  const int lane = threadIdx.x % 32;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (o >= out) return;
  const int8_t* qr = q + o * in;
  float acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r) acc[r] = 0.f;
  if (VEC) {
    for (int64_t i = static_cast<int64_t>(lane) * 16; i < in; i += 32 * 16) {
      const int4 packed = *reinterpret_cast<const int4*>(qr + i);
      const int8_t* w8 = reinterpret_cast<const int8_t*>(&packed);
      float w[16];
#pragma unroll
      for (int k = 0; k < 16; ++k) w[k] = static_cast<float>(w8[k]);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        float xv[16];
        load16(x + r * in + i, xv);
#pragma unroll
        for (int k = 0; k < 16; ++k) acc[r] = fmaf(w[k], xv[k], acc[r]);
      }
    }
  } else {
    for (int64_t i = lane; i < in; i += 32) {
      const float w = static_cast<float>(qr[i]);
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] = fmaf(w, to_float(x[r * in + i]), acc[r]);
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int s = 16; s > 0; s /= 2) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], s);
  }
  if (lane == 0) {
    const float sc = to_float(scale[o]);
    const float b = bias ? to_float(bias[o]) : 0.f;
#pragma unroll
    for (int r = 0; r < R; ++r) from_float(acc[r] * sc + b, y + r * out + o);
  }
}

template <typename T, int R>
cudaError_t launch_rows(const T* x, int64_t in, const int8_t* q, int64_t out, const T* scale, const T* bias, T* y,
                        cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((out + kWarps - 1) / kWarps)), block(32 * kWarps);
  const bool vec = in % 16 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(q) % 16 == 0;
  if (vec) int8_gemv<T, R, true><<<grid, block, 0, stream>>>(x, in, q, out, scale, bias, y);
  else int8_gemv<T, R, false><<<grid, block, 0, stream>>>(x, in, q, out, scale, bias, y);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch(const T* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const T* scale,
                   const T* bias, T* y, cudaStream_t stream) {
  switch (rows) {
    case 1: return launch_rows<T, 1>(x, in, q, out, scale, bias, y, stream);
    case 2: return launch_rows<T, 2>(x, in, q, out, scale, bias, y, stream);
    case 3: return launch_rows<T, 3>(x, in, q, out, scale, bias, y, stream);
    case 4: return launch_rows<T, 4>(x, in, q, out, scale, bias, y, stream);
    case 5: return launch_rows<T, 5>(x, in, q, out, scale, bias, y, stream);
    case 6: return launch_rows<T, 6>(x, in, q, out, scale, bias, y, stream);
    case 7: return launch_rows<T, 7>(x, in, q, out, scale, bias, y, stream);
    case 8: return launch_rows<T, 8>(x, in, q, out, scale, bias, y, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

int int8_linear_f16(const void* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const void* scale,
                    const void* bias, void* y, void* stream) {
  return static_cast<int>(launch(static_cast<const __half*>(x), rows, in, q, out, static_cast<const __half*>(scale),
                                 static_cast<const __half*>(bias), static_cast<__half*>(y),
                                 static_cast<cudaStream_t>(stream)));
}

int int8_linear_f32(const float* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const float* scale,
                    const float* bias, float* y, void* stream) {
  return static_cast<int>(launch(x, rows, in, q, out, scale, bias, y, static_cast<cudaStream_t>(stream)));
}

const char* error_string(int code) {
  return cudaGetErrorString(static_cast<cudaError_t>(code));
}

}  // namespace ladder::cuda
