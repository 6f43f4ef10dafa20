/* Internal to the random CPU kernels (random*.c): the Philox4x32-10
 * counter-based generator (Salmon et al., "Parallel Random Numbers: As Easy
 * as 1, 2, 3", SC11) keyed as TensorFlow's PhiloxRandom(seed, seed2) is, and
 * TensorFlow's conversions of its output to uniform and normal samples. */
#ifndef GRT_BACKENDS_CPU_RANDOM_PHILOX_H_
#define GRT_BACKENDS_CPU_RANDOM_PHILOX_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A 128-bit counter and a 64-bit key; each block of output consumes one
 * counter value and gives four 32-bit words. Plain data: copying it forks
 * the stream. */
typedef struct grt_philox {
  uint32_t counter[4];
  uint32_t key[2];
} grt_philox;

/* TensorFlow's PhiloxRandom(seed_lo = seed, seed_hi = seed2): the key is
 * seed's two halves, counter words 2..3 are seed2's, words 0..1 start at 0. */
void grt_philox_init(grt_philox* g, uint64_t seed, uint64_t seed2);

/* Advances the counter by `count` blocks (128 bits each). */
void grt_philox_skip(grt_philox* g, uint64_t count);

/* The next block: ten rounds over the counter, then the counter moves on. */
void grt_philox_next(grt_philox* g, uint32_t out[4]);

/* TensorFlow's conversions: the low 23 (52) bits as the mantissa of a
 * number in [1, 2), minus 1 -> [0, 1). */
float grt_philox_uint32_to_float(uint32_t x);
double grt_philox_uint64_to_double(uint32_t hi, uint32_t lo);

/* Box-Muller: two words -> two standard normal floats (four words -> two
 * doubles), as TensorFlow's BoxMullerFloat/BoxMullerDouble. */
void grt_philox_box_muller_float(uint32_t x0, uint32_t x1, float* f0, float* f1);
void grt_philox_box_muller_double(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                                  double* d1);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_RANDOM_PHILOX_H_ */
