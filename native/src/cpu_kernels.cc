// CPU kernels of the weight-only products: each output row's weights are read once and widened to float32 in
// registers, never stored. One row of x (batch-1 decode) streams the weights row after row; several rows of x go in
// tiles of 4 output rows x 2-4 rows of x, so each widened weight and each load of x serves several products.
// A variant per instruction set (AVX-512, AVX2 + FMA, portable C++) is chosen once from what the CPU has, so one
// build runs on any x86-64 machine.
#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define LADDER_X86 1
#endif

#include "weight_only.h"

namespace ladder::cpu {
namespace {

struct Int8Args {
  const float* x;
  int64_t rows, in;
  const int8_t* q;
  int64_t out;
  const float* scale;
  const float* bias;
  float* y;
};

struct Int4Args {
  const float* x;
  int64_t rows, in;
  const uint8_t* packed;
  int64_t row_bytes, out, group, groups;
  const float* scales;
  const float* zeros;
  const float* codes;  // 16 values, never null here
  const float* xsum;   // [rows, groups] sums of x per group, when zeros
  const float* bias;
  float* y;
};

inline void store(const Int8Args& a, int64_t o, int64_t b, float dot) {
  a.y[b * a.out + o] = dot * a.scale[o] + (a.bias ? a.bias[o] : 0.f);
}

inline int nibble(const uint8_t* row, int64_t i) {
  uint8_t byte = row[i >> 1];
  return (i & 1) ? byte >> 4 : byte & 15;
}

// --- portable ---------------------------------------------------------------------------------------------------

void int8_rows_scalar(const Int8Args& a, int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    const int8_t* qr = a.q + o * a.in;
    for (int64_t b = 0; b < a.rows; ++b) {
      const float* xr = a.x + b * a.in;
      float s = 0.f;
      for (int64_t i = 0; i < a.in; ++i) s += xr[i] * static_cast<float>(qr[i]);
      store(a, o, b, s);
    }
  }
}

void int4_rows_scalar(const Int4Args& a, int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    const uint8_t* p = a.packed + o * a.row_bytes;
    const float* sc = a.scales + o * a.groups;
    for (int64_t b = 0; b < a.rows; ++b) {
      const float* xr = a.x + b * a.in;
      float total = 0.f;
      for (int64_t g = 0; g < a.groups; ++g) {
        int64_t end = std::min(a.in, (g + 1) * a.group);
        float s = 0.f;
        for (int64_t i = g * a.group; i < end; ++i) s += a.codes[nibble(p, i)] * xr[i];
        total += sc[g] * s;
        if (a.zeros) total -= sc[g] * a.zeros[o * a.groups + g] * a.xsum[b * a.groups + g];
      }
      a.y[b * a.out + o] = total + (a.bias ? a.bias[o] : 0.f);
    }
  }
}

#ifdef LADDER_X86

// --- AVX2 + FMA -------------------------------------------------------------------------------------------------

__attribute__((target("avx2,fma"))) inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// NO output rows x NB rows of x: 8 weights of each output row widened once, used NB times
template <int NO, int NB>
__attribute__((target("avx2,fma"))) void int8_tile_avx2(const Int8Args& a, int64_t o, int64_t b) {
  const int64_t in = a.in;
  const int8_t* qr[NO];
  const float* xr[NB];
  __m256 acc[NO][NB];
  for (int k = 0; k < NO; ++k) qr[k] = a.q + (o + k) * in;
  for (int j = 0; j < NB; ++j) xr[j] = a.x + (b + j) * in;
  for (int k = 0; k < NO; ++k)
    for (int j = 0; j < NB; ++j) acc[k][j] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    __m256 w[NO];
    for (int k = 0; k < NO; ++k) {
      __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(qr[k] + i));
      w[k] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
    }
    for (int j = 0; j < NB; ++j) {
      __m256 xv = _mm256_loadu_ps(xr[j] + i);
      for (int k = 0; k < NO; ++k) acc[k][j] = _mm256_fmadd_ps(w[k], xv, acc[k][j]);
    }
  }
  for (int k = 0; k < NO; ++k) {
    for (int j = 0; j < NB; ++j) {
      float s = hsum(acc[k][j]);
      for (int64_t t = i; t < in; ++t) s += xr[j][t] * static_cast<float>(qr[k][t]);
      store(a, o + k, b + j, s);
    }
  }
}

template <int NO>
__attribute__((target("avx2,fma"))) void int8_batch_avx2(const Int8Args& a, int64_t o) {
  int64_t b = 0;
  for (; b + 2 <= a.rows; b += 2) int8_tile_avx2<NO, 2>(a, o, b);
  if (b < a.rows) int8_tile_avx2<NO, 1>(a, o, b);
}

// One row of x: one output row at a time, so the weights stream through memory in one sequential run (what the
// prefetchers follow best), with four accumulators over 32 weights for independent FMA chains.
__attribute__((target("avx2,fma"))) void int8_row_avx2(const Int8Args& a, int64_t o) {
  const int64_t in = a.in;
  const int8_t* qr = a.q + o * in;
  const float* xr = a.x;
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  int64_t i = 0;
  for (; i + 32 <= in; i += 32) {
    for (int k = 0; k < 4; ++k) {
      __m256 w = _mm256_cvtepi32_ps(
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qr + i + 8 * k))));
      acc[k] = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr + i + 8 * k), acc[k]);
    }
  }
  for (; i + 8 <= in; i += 8) {
    __m256 w = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qr + i))));
    acc[0] = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr + i), acc[0]);
  }
  float s = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
  for (; i < in; ++i) s += xr[i] * static_cast<float>(qr[i]);
  store(a, o, 0, s);
}

__attribute__((target("avx2,fma"))) void int8_rows_avx2(const Int8Args& a, int64_t o0, int64_t o1) {
  int64_t o = o0;
  if (a.rows == 1) {
    for (; o < o1; ++o) int8_row_avx2(a, o);
    return;
  }
  // several rows of x: tiles of 4 output rows, each x load used for 4 weights rows
  for (; o + 4 <= o1; o += 4) int8_batch_avx2<4>(a, o);
  for (; o < o1; ++o) int8_batch_avx2<1>(a, o);
}

// one output row x NB rows of x; 8 codes at a time: 4 bytes -> 8 nibbles -> 8 table lookups (two permutes, a blend)
template <int NB>
__attribute__((target("avx2,fma"))) void int4_tile_avx2(const Int4Args& a, int64_t o, int64_t b) {
  const uint8_t* p = a.packed + o * a.row_bytes;
  const float* sc = a.scales + o * a.groups;
  const float* xr[NB];
  for (int j = 0; j < NB; ++j) xr[j] = a.x + (b + j) * a.in;
  const __m256 lo = _mm256_loadu_ps(a.codes), hi = _mm256_loadu_ps(a.codes + 8);
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), low4 = _mm256_set1_epi32(15);
  const bool vector = a.group % 8 == 0;
  __m256 total[NB];
  float rest[NB];
  for (int j = 0; j < NB; ++j) total[j] = _mm256_setzero_ps(), rest[j] = 0.f;
  for (int64_t g = 0; g < a.groups; ++g) {
    const int64_t end = std::min(a.in, (g + 1) * a.group);
    __m256 acc[NB];
    float tail[NB];
    for (int j = 0; j < NB; ++j) acc[j] = _mm256_setzero_ps(), tail[j] = 0.f;
    int64_t i = g * a.group;
    if (vector) {
      for (; i + 8 <= end; i += 8) {
        uint32_t word;
        std::memcpy(&word, p + (i >> 1), 4);
        __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(word)), shifts), low4);
        __m256 w = _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, idx), _mm256_permutevar8x32_ps(hi, idx),
                                    _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
        for (int j = 0; j < NB; ++j) acc[j] = _mm256_fmadd_ps(w, _mm256_loadu_ps(xr[j] + i), acc[j]);
      }
    }
    for (; i < end; ++i) {
      float w = a.codes[nibble(p, i)];
      for (int j = 0; j < NB; ++j) tail[j] += w * xr[j][i];
    }
    const __m256 s = _mm256_set1_ps(sc[g]);
    for (int j = 0; j < NB; ++j) {
      total[j] = _mm256_fmadd_ps(acc[j], s, total[j]);
      rest[j] += sc[g] * tail[j];
      if (a.zeros) rest[j] -= sc[g] * a.zeros[o * a.groups + g] * a.xsum[(b + j) * a.groups + g];
    }
  }
  for (int j = 0; j < NB; ++j) a.y[(b + j) * a.out + o] = hsum(total[j]) + rest[j] + (a.bias ? a.bias[o] : 0.f);
}

__attribute__((target("avx2,fma"))) void int4_rows_avx2(const Int4Args& a, int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    int64_t b = 0;
    for (; b + 4 <= a.rows; b += 4) int4_tile_avx2<4>(a, o, b);
    for (; b < a.rows; ++b) int4_tile_avx2<1>(a, o, b);
  }
}

// --- AVX-512 ----------------------------------------------------------------------------------------------------

template <int NO, int NB>
__attribute__((target("avx512f"))) void int8_tile_avx512(const Int8Args& a, int64_t o, int64_t b) {
  const int64_t in = a.in;
  const int8_t* qr[NO];
  const float* xr[NB];
  __m512 acc[NO][NB];
  for (int k = 0; k < NO; ++k) qr[k] = a.q + (o + k) * in;
  for (int j = 0; j < NB; ++j) xr[j] = a.x + (b + j) * in;
  for (int k = 0; k < NO; ++k)
    for (int j = 0; j < NB; ++j) acc[k][j] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= in; i += 16) {
    __m512 w[NO];
    for (int k = 0; k < NO; ++k) {
      __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qr[k] + i));
      w[k] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes));
    }
    for (int j = 0; j < NB; ++j) {
      __m512 xv = _mm512_loadu_ps(xr[j] + i);
      for (int k = 0; k < NO; ++k) acc[k][j] = _mm512_fmadd_ps(w[k], xv, acc[k][j]);
    }
  }
  for (int k = 0; k < NO; ++k) {
    for (int j = 0; j < NB; ++j) {
      float s = _mm512_reduce_add_ps(acc[k][j]);
      for (int64_t t = i; t < in; ++t) s += xr[j][t] * static_cast<float>(qr[k][t]);
      store(a, o + k, b + j, s);
    }
  }
}

template <int NO>
__attribute__((target("avx512f"))) void int8_batch_avx512(const Int8Args& a, int64_t o) {
  int64_t b = 0;
  for (; b + 4 <= a.rows; b += 4) int8_tile_avx512<NO, 4>(a, o, b);
  for (; b < a.rows; ++b) int8_tile_avx512<NO, 1>(a, o, b);
}

__attribute__((target("avx512f"))) void int8_rows_avx512(const Int8Args& a, int64_t o0, int64_t o1) {
  int64_t o = o0;
  if (a.rows == 1) {
    // the AVX2 stream: on the reference (AMD EPYC, 512-bit operations in two halves) its widening of 8 weights at a
    // time ran a row of x 1.45 times faster per CPU-second than 16 at a time
    for (; o < o1; ++o) int8_row_avx2(a, o);
    return;
  }
  for (; o + 4 <= o1; o += 4) int8_batch_avx512<4>(a, o);
  for (; o < o1; ++o) int8_batch_avx512<1>(a, o);
}

#endif  // LADDER_X86

enum class Isa { kScalar, kAvx2, kAvx512 };

Isa detect() {
#ifdef LADDER_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
  return Isa::kScalar;
}

// the kernels in use: the best the CPU has, unless use_isa chose a lower one (tests hold every variant to the Java path)
std::atomic<int> chosen{-1};

Isa isa_in_use() {
  int c = chosen.load(std::memory_order_relaxed);
  if (c < 0) {
    c = static_cast<int>(detect());
    chosen.store(c, std::memory_order_relaxed);
  }
  return static_cast<Isa>(c);
}

const char* name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx2: return "avx2";
    default: return "scalar";
  }
}

// output rows per parallel task: at least 64 KiB of weights, so small matrices stay on the calling thread
int64_t grain(int64_t row_bytes) {
  return std::max<int64_t>(4, (64 << 10) / std::max<int64_t>(1, row_bytes));
}

}  // namespace

const char* isa() {
  return name(isa_in_use());
}

std::string isas() {
  std::string all;
  for (int i = 0; i <= static_cast<int>(detect()); ++i) all += std::string(i ? "," : "") + name(static_cast<Isa>(i));
  return all;
}

bool use_isa(const std::string& wanted) {
  for (int i = 0; i <= static_cast<int>(detect()); ++i) {
    if (wanted == name(static_cast<Isa>(i))) {
      chosen.store(i, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

void int8_linear(const float* x, int64_t rows, int64_t in, const int8_t* q, int64_t out, const float* scale,
                 const float* bias, float* y) {
  const Int8Args a{x, rows, in, q, out, scale, bias, y};
  void (*run)(const Int8Args&, int64_t, int64_t) = int8_rows_scalar;
#ifdef LADDER_X86
  if (isa_in_use() == Isa::kAvx512) run = int8_rows_avx512;
  else if (isa_in_use() == Isa::kAvx2) run = int8_rows_avx2;
#endif
  at::parallel_for(0, out, grain(in), [&](int64_t o0, int64_t o1) { run(a, o0, o1); });
}

void int4_linear(const float* x, int64_t rows, int64_t in, const uint8_t* packed, int64_t out, int64_t group,
                 const float* scales, const float* zeros, const float* codes, const float* bias, float* y) {
  float identity[16];
  for (int n = 0; n < 16; ++n) identity[n] = static_cast<float>(n);
  const int64_t groups = (in + group - 1) / group;
  std::vector<float> xsum;
  if (zeros) {
    // sum(code * x) - zero * sum(x) per group: the zero points cost one product per group, not per weight
    xsum.assign(rows * groups, 0.f);
    for (int64_t b = 0; b < rows; ++b)
      for (int64_t i = 0; i < in; ++i) xsum[b * groups + i / group] += x[b * in + i];
  }
  const Int4Args a{x, rows, in, packed, (in + 1) / 2, out, group, groups, scales, zeros,
                   codes ? codes : identity, zeros ? xsum.data() : nullptr, bias, y};
  void (*run)(const Int4Args&, int64_t, int64_t) = int4_rows_scalar;
#ifdef LADDER_X86
  if (isa_in_use() != Isa::kScalar) run = int4_rows_avx2;
#endif
  at::parallel_for(0, out, grain(a.row_bytes), [&](int64_t o0, int64_t o1) { run(a, o0, o1); });
}

}  // namespace ladder::cpu
