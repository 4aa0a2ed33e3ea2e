// The CUDA side of int8_linear: tensors to pointers on the tensors' device and torch's current stream; rows beyond
// one launch's kRowsPerLaunch go in groups (each group reads the weights once more).
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <vector>

#include "cuda_kernels.h"
#include "weight_only.h"

namespace ladder::cuda {

at::Tensor int8_linear(const at::Tensor& x, const at::Tensor& q, const at::Tensor& scale, const at::Tensor& bias) {
  TORCH_CHECK(x.scalar_type() == at::kHalf || x.scalar_type() == at::kFloat,
              "on CUDA x must be float16 or float32, got ", x.scalar_type());
  const c10::cuda::CUDAGuard guard(x.device());
  const int64_t out = q.size(0), in = q.size(1), rows = x.numel() / in;
  at::Tensor xc = x.contiguous(), qc = q.contiguous(), sc = scale.contiguous();
  at::Tensor bc = bias.defined() ? bias.contiguous() : bias;
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = out;
  at::Tensor y = at::empty(shape, x.options());
  void* stream = c10::cuda::getCurrentCUDAStream(x.device().index()).stream();
  const bool half = x.scalar_type() == at::kHalf;
  const size_t size = half ? 2 : 4;
  for (int64_t r = 0; r < rows; r += kRowsPerLaunch) {
    const int64_t n = std::min<int64_t>(kRowsPerLaunch, rows - r);
    const char* xr = static_cast<const char*>(xc.data_ptr()) + r * in * size;
    char* yr = static_cast<char*>(y.data_ptr()) + r * out * size;
    const void* b = bc.defined() ? bc.data_ptr() : nullptr;
    int err = half ? int8_linear_f16(xr, n, in, qc.data_ptr<int8_t>(), out, sc.data_ptr(), b, yr, stream)
                   : int8_linear_f32(reinterpret_cast<const float*>(xr), n, in, qc.data_ptr<int8_t>(), out,
                                     sc.data_ptr<float>(), static_cast<const float*>(b),
                                     reinterpret_cast<float*>(yr), stream);
    TORCH_CHECK(err == 0, "int8_linear CUDA kernel: ", error_string(err));
  }
  return y;
}

}  // namespace ladder::cuda
