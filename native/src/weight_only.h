// Weight-only quantised matrix products of Ladder's native extension: y = x . W^T (+ b) where W is stored as int8
// with one scale per output row, or as packed 4-bit codes with group-wise scales. Each weight byte is read once per
// call and no float copy of W is made. Tensors in, a new tensor out; shapes and types are checked here.
#pragma once

#include <ATen/ATen.h>

#include <string>

namespace ladder {

// Most rows (x's elements / in) the small-batch kernels take; more go back to the caller's path (a matmul on a
// dequantised copy is compute-bound and efficient there).
constexpr int64_t kMaxRows = 32;

// y = (x . q^T) * scale (+ bias). x [..., in] (float32 on a CPU; float16 or float32 on CUDA), q int8 [out, in],
// scale [out] and bias [out] (or undefined) of x's type; y [..., out] of x's type.
at::Tensor int8_linear(const at::Tensor& x, const at::Tensor& q, const at::Tensor& scale, const at::Tensor& bias);

// y = x . W^T (+ bias) with W[o, i] = (code(n) - zero[o, g]) * scale[o, g], n the 4-bit value of weight (o, i),
// g = i / group. packed uint8 [out, ceil(in / 2)]: weight 2k of a row in the low nibble of byte k, 2k + 1 in the
// high one. code(n) = codes[n] (float32 [16]) when codes is defined, else n; zero = 0 when zeros is undefined.
// scales and zeros float32 [out, ceil(in / group)]. CPU, float32 x.
at::Tensor int4_linear(const at::Tensor& x, const at::Tensor& packed, int64_t in, int64_t group,
                       const at::Tensor& scales, const at::Tensor& zeros, const at::Tensor& codes,
                       const at::Tensor& bias);

// The kernels this build and this CPU run: "avx512", "avx2" or "scalar", plus "+cuda" when compiled with CUDA.
std::string kernels();

namespace cpu {
void int8_linear(const float* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const float* scale,
                 const float* bias, float* y);
void int4_linear(const float* x, int64_t rows, int64_t in, const uint8_t* packed, int64_t out, int64_t group,
                 const float* scales, const float* zeros, const float* codes, const float* bias, float* y);
const char* isa();
// the variants this CPU runs, lowest first ("scalar,avx2,avx512"), and a switch to one of them (false: not here)
std::string isas();
bool use_isa(const std::string& name);
}  // namespace cpu

#ifdef LADDER_CUDA
namespace cuda {
at::Tensor int8_linear(const at::Tensor& x, const at::Tensor& q, const at::Tensor& scale, const at::Tensor& bias);
}
#endif

}  // namespace ladder
