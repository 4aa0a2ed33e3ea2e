// Checks and dispatch of the weight-only products: tensors in, one new tensor out.
#include "weight_only.h"

#include <c10/util/Exception.h>

#include <string>
#include <vector>

namespace ladder {
namespace {

std::vector<int64_t> out_shape(const at::Tensor& x, int64_t out) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = out;
  return shape;
}

int64_t rows_of(const at::Tensor& x, int64_t in) {
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) == in, "x's last dimension is ", x.dim() ? x.size(-1) : 0,
              ", the weight's input dimension is ", in);
  int64_t rows = x.numel() / std::max<int64_t>(1, in);
  TORCH_CHECK(rows <= kMaxRows, "x has ", rows, " rows, more than the ", kMaxRows, " the small-batch kernels take");
  return rows;
}

void check_vector(const at::Tensor& t, const char* name, int64_t n, const at::Tensor& x) {
  TORCH_CHECK(t.dim() == 1 && t.size(0) == n, name, " must have shape [", n, "], got ", t.sizes());
  TORCH_CHECK(t.scalar_type() == x.scalar_type() && t.device() == x.device(), name, " must be ",
              x.scalar_type(), " on ", x.device(), " like x, got ", t.scalar_type(), " on ", t.device());
}

}  // namespace

at::Tensor int8_linear(const at::Tensor& x, const at::Tensor& q, const at::Tensor& scale, const at::Tensor& bias) {
  TORCH_CHECK(q.dim() == 2 && q.scalar_type() == at::kChar, "q must be a 2-D int8 tensor, got ", q.scalar_type(),
              " ", q.sizes());
  TORCH_CHECK(q.device() == x.device(), "q is on ", q.device(), ", x on ", x.device());
  const int64_t out = q.size(0), in = q.size(1);
  const int64_t rows = rows_of(x, in);
  check_vector(scale, "scale", out, x);
  if (bias.defined()) check_vector(bias, "bias", out, x);
  if (x.is_cuda()) {
#ifdef LADDER_CUDA
    return cuda::int8_linear(x, q, scale, bias);
#else
    TORCH_CHECK(false, "this build of the native extension has no CUDA kernels (scripts/build-native --cuda on)");
#endif
  }
  TORCH_CHECK(x.is_cpu() && x.scalar_type() == at::kFloat, "on a CPU x must be float32, got ", x.scalar_type(),
              " on ", x.device());
  at::Tensor xc = x.contiguous(), qc = q.contiguous(), sc = scale.contiguous();
  at::Tensor bc = bias.defined() ? bias.contiguous() : bias;
  at::Tensor y = at::empty(out_shape(x, out), x.options());
  cpu::int8_linear(xc.data_ptr<float>(), rows, in, qc.data_ptr<int8_t>(), out, sc.data_ptr<float>(),
                   bc.defined() ? bc.data_ptr<float>() : nullptr, y.data_ptr<float>());
  return y;
}

at::Tensor int4_linear(const at::Tensor& x, const at::Tensor& packed, int64_t in, int64_t group,
                       const at::Tensor& scales, const at::Tensor& zeros, const at::Tensor& codes,
                       const at::Tensor& bias) {
  TORCH_CHECK(x.is_cpu() && x.scalar_type() == at::kFloat, "int4: x must be float32 on a CPU, got ",
              x.scalar_type(), " on ", x.device());
  TORCH_CHECK(in >= 1 && group >= 1, "int4: in and group must be >= 1, got ", in, " and ", group);
  TORCH_CHECK(packed.dim() == 2 && packed.scalar_type() == at::kByte && packed.size(1) == (in + 1) / 2,
              "int4: packed must be uint8 [out, ", (in + 1) / 2, "], got ", packed.scalar_type(), " ", packed.sizes());
  const int64_t out = packed.size(0), groups = (in + group - 1) / group;
  const int64_t rows = rows_of(x, in);
  auto check_groups = [&](const at::Tensor& t, const char* name) {
    TORCH_CHECK(t.dim() == 2 && t.size(0) == out && t.size(1) == groups && t.scalar_type() == at::kFloat &&
                    t.is_cpu(), "int4: ", name, " must be float32 [", out, ", ", groups, "] on the CPU, got ",
                t.scalar_type(), " ", t.sizes());
  };
  check_groups(scales, "scales");
  if (zeros.defined()) check_groups(zeros, "zeros");
  if (codes.defined()) {
    TORCH_CHECK(codes.numel() == 16 && codes.scalar_type() == at::kFloat && codes.is_cpu(),
                "int4: codes must be 16 float32 values on the CPU, got ", codes.scalar_type(), " ", codes.sizes());
  }
  if (bias.defined()) check_vector(bias, "bias", out, x);
  at::Tensor xc = x.contiguous(), pc = packed.contiguous(), sc = scales.contiguous();
  at::Tensor zc = zeros.defined() ? zeros.contiguous() : zeros, cc = codes.defined() ? codes.contiguous() : codes;
  at::Tensor bc = bias.defined() ? bias.contiguous() : bias;
  at::Tensor y = at::empty(out_shape(x, out), x.options());
  cpu::int4_linear(xc.data_ptr<float>(), rows, in, pc.data_ptr<uint8_t>(), out, group, sc.data_ptr<float>(),
                   zc.defined() ? zc.data_ptr<float>() : nullptr, cc.defined() ? cc.data_ptr<float>() : nullptr,
                   bc.defined() ? bc.data_ptr<float>() : nullptr, y.data_ptr<float>());
  return y;
}

std::string kernels() {
  std::string k = cpu::isa();
#ifdef LADDER_CUDA
  k += "+cuda";
#endif
  return k;
}

}  // namespace ladder
