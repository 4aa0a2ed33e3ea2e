// Launchers of the CUDA weight-only kernels: plain pointers and a stream, no torch types, so the .cu file compiles
// with nvcc alone.
#pragma once

#include <cstdint>

namespace ladder::cuda {

// Most rows of x one launch takes; the binding runs more in groups of this many.
constexpr int kRowsPerLaunch = 8;

// y[r, o] = (sum_i x[r, i] * q[o, i]) * scale[o] + bias[o], rows <= kRowsPerLaunch, for T = __half (half_bits
// true) or float; x row stride = in. Returns the launch's cudaError_t as an int (0 = success).
int int8_linear_f16(const void* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const void* scale,
                    const void* bias, void* y, void* stream);
int int8_linear_f32(const float* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const float* scale,
                    const float* bias, float* y, void* stream);
const char* error_string(int code);

}  // namespace ladder::cuda
