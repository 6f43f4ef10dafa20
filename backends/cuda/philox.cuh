// Philox4x32-10 keyed as TensorFlow's PhiloxRandom(seed, seed2), and its
// conversions to uniform and normal samples: the same streams as the CPU
// kernels (backends/cpu/random_philox.c), written once for device and host
// so the integer parts are tested on a host (tests/cuda/philox_test.cc).
// Outside nvcc GRT_HD is empty and this is plain C++.
#ifndef GRT_BACKENDS_CUDA_PHILOX_CUH_
#define GRT_BACKENDS_CUDA_PHILOX_CUH_

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GRT_HD __host__ __device__
#else
#define GRT_HD
#endif

namespace grt_philox_hd {

struct Philox {
  uint32_t counter[4];
  uint32_t key[2];
};

GRT_HD inline Philox Make(uint64_t seed, uint64_t seed2) {
  Philox g;
  g.key[0] = (uint32_t)seed;
  g.key[1] = (uint32_t)(seed >> 32);
  g.counter[0] = 0;
  g.counter[1] = 0;
  g.counter[2] = (uint32_t)seed2;
  g.counter[3] = (uint32_t)(seed2 >> 32);
  return g;
}

// Advances the 128-bit counter by `count` blocks.
GRT_HD inline void Skip(Philox* g, uint64_t count) {
  uint32_t lo = (uint32_t)count, hi = (uint32_t)(count >> 32);
  g->counter[0] += lo;
  if (g->counter[0] < lo) hi++;
  g->counter[1] += hi;
  if (g->counter[1] < hi && ++g->counter[2] == 0) ++g->counter[3];
}

GRT_HD inline void Next(Philox* g, uint32_t out[4]) {
  uint32_t c0 = g->counter[0], c1 = g->counter[1], c2 = g->counter[2], c3 = g->counter[3];
  uint32_t k0 = g->key[0], k1 = g->key[1];
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
  if (++g->counter[0] == 0 && ++g->counter[1] == 0 && ++g->counter[2] == 0) ++g->counter[3];
}

GRT_HD inline float ToFloat(uint32_t x) {
  uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

GRT_HD inline double ToDouble(uint32_t hi, uint32_t lo) {
  uint64_t bits = (1023ull << 52) | ((uint64_t)(hi & 0xfffffu) << 32) | lo;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

// Box-Muller as TensorFlow's BoxMullerFloat: the angle in double, rounded.
// (The device's logf/sincosf may differ from glibc's by an ulp.)
GRT_HD inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = (float)(2.0 * 3.14159265358979323846 * (double)ToFloat(x1));
  const float u2 = sqrtf(-2.0f * logf(u1));
  *f0 = sinf(v1) * u2;
  *f1 = cosf(v1) * u2;
}

GRT_HD inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                                   double* d1) {
  double u1 = ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * 3.14159265358979323846 * ToDouble(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  *d0 = sin(v1) * u2;
  *d1 = cos(v1) * u2;
}

}  // namespace grt_philox_hd

#endif  // GRT_BACKENDS_CUDA_PHILOX_CUH_
