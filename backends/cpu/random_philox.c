/* Philox4x32-10 and TensorFlow's sample conversions (see random_philox.h).
 * Written from the published algorithm; the constants are the paper's. */
#include "backends/cpu/random_philox.h"

#include <math.h>
#include <string.h>

#define kW32A 0x9E3779B9u /* key increments (golden ratio, sqrt(3) - 1) */
#define kW32B 0xBB67AE85u
#define kM4x32A 0xD2511F53u /* round multipliers */
#define kM4x32B 0xCD9E8D57u

void grt_philox_init(grt_philox* g, uint64_t seed, uint64_t seed2) {
  g->key[0] = (uint32_t)seed;
  g->key[1] = (uint32_t)(seed >> 32);
  g->counter[0] = 0;
  g->counter[1] = 0;
  g->counter[2] = (uint32_t)seed2;
  g->counter[3] = (uint32_t)(seed2 >> 32);
}

void grt_philox_skip(grt_philox* g, uint64_t count) {
  uint32_t lo = (uint32_t)count, hi = (uint32_t)(count >> 32);
  g->counter[0] += lo;
  if (g->counter[0] < lo) hi++;
  g->counter[1] += hi;
  /* hi may have wrapped to 0 above, in which case nothing carries. */
  if (g->counter[1] < hi && ++g->counter[2] == 0) ++g->counter[3];
}

void grt_philox_next(grt_philox* g, uint32_t out[4]) {
  uint32_t c0 = g->counter[0], c1 = g->counter[1], c2 = g->counter[2], c3 = g->counter[3];
  uint32_t k0 = g->key[0], k1 = g->key[1];
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)kM4x32A * c0, p1 = (uint64_t)kM4x32B * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += kW32A;
    k1 += kW32B;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
  if (++g->counter[0] == 0 && ++g->counter[1] == 0 && ++g->counter[2] == 0) ++g->counter[3];
}

float grt_philox_uint32_to_float(uint32_t x) {
  uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

double grt_philox_uint64_to_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = (1023ull << 52) | ((uint64_t)(hi & 0xfffffu) << 32) | lo;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

/* TensorFlow keeps u1 away from 0 so the log stays finite; the angle is
 * computed in double (2 * M_PI) and rounded to float, as its C++ does. */
void grt_philox_box_muller_float(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float epsilon = 1.0e-7f;
  float u1 = grt_philox_uint32_to_float(x0);
  if (u1 < epsilon) u1 = epsilon;
  const float v1 = (float)(2.0 * M_PI * (double)grt_philox_uint32_to_float(x1));
  const float u2 = sqrtf(-2.0f * logf(u1));
  sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

void grt_philox_box_muller_double(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                                  double* d1) {
  const double epsilon = 1.0e-7;
  double u1 = grt_philox_uint64_to_double(x0, x1);
  if (u1 < epsilon) u1 = epsilon;
  const double v1 = 2 * M_PI * grt_philox_uint64_to_double(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}
