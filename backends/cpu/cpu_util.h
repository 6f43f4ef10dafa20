/* Helpers shared by CPU kernels: NumPy broadcasting plans and the loops
 * that run element functions over them, float16/bfloat16 widening, and a
 * few messages every family writes the same way.
 *
 * Element work is done by "row" functions: plain loops over contiguous
 * memory that the compiler vectorises. A kernel picks one row function per
 * call (by dtype), and the helpers here call it once per contiguous run of
 * elements, never once per element. */
#ifndef GRT_BACKENDS_CPU_CPU_UTIL_H_
#define GRT_BACKENDS_CPU_CPU_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "grt/status.h"
#include "grt/types.h"
#include "kernels/op_kernel.h"
#include "base/shape.h" /* GRT_SHAPE_STR_MAX */
#include "base/tensor.h"
#include "base/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GCC 12 at -O2 vectorises only loops whose trip count it knows (the
 * "very cheap" cost model); kernels loop over runtime lengths, so a kernel
 * file writes GRT_CPU_VECTORIZE once, at file scope after its includes, to
 * use the dynamic cost model for the functions that follow. */
#if defined(__GNUC__) && !defined(__clang__)
#define GRT_CPU_VECTORIZE _Pragma("GCC optimize(\"vect-cost-model=dynamic\")")
#else
#define GRT_CPU_VECTORIZE
#endif

/* A hot loop compiled for AVX-512 and AVX2 beside the baseline, the copy
 * chosen once at load for the CPU it runs on (GCC's target_clones, an
 * IFUNC): the product is built for baseline x86-64, where the vectoriser
 * gets 4-wide SSE. For loops that are compute-bound per element (GELU's
 * polynomial, exp), not the memory-bound ones. Not under ThreadSanitizer:
 * the loader runs an IFUNC's resolver before TSan's runtime is set up, and
 * the instrumented resolver crashes every test binary before main. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define GRT_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GRT_CPU_CLONES
#endif

/* ---- row functions ------------------------------------------------------ */

/* z[i] = f(x[i * sx], y[i * sy]) for i in [0, n); sx and sy are 0 (the
 * operand is one repeated element) or 1 (contiguous). z is contiguous and
 * never overlaps x or y. */
typedef void (*grt_cpu_binary_row)(int64_t n, const void* x, int64_t sx, const void* y, int64_t sy,
                                   void* z);

/* y[i] = f(x[i]) for i in [0, n); y never overlaps x. */
typedef void (*grt_cpu_unary_row)(int64_t n, const void* x, void* y);

/* Whether a kernel with hand-vectorised paths (the fused attention, the
 * depthwise convolution) may be forced to `width` floats per vector for a
 * test: 0 (the widest the CPU runs), 4 (portable), 8 (x86-64-v3) or 16
 * (x86-64-v4), the latter two only where the CPU runs them. */
bool grt_cpu_vector_width_runs(int width);

/* The width such a kernel runs at: `force` when set (a width
 * grt_cpu_vector_width_runs accepted), else the widest the CPU runs: 16,
 * 8 or 4. */
int grt_cpu_vector_width(int force);

/* grt_tensor_data(t), inlined for the per-call fast paths. */
static inline void* grt_cpu_data(const grt_tensor* t) { return (char*)t->buffer->data + t->offset; }

/* ---- broadcasting ------------------------------------------------------- */

/* How two shapes broadcast (NumPy rules, as TensorFlow's BCast): the result
 * shape, and the iteration space with dimensions of size 1 dropped and
 * neighbouring dimensions that broadcast the same way merged, so the
 * innermost loop is as long as possible. */
typedef struct grt_cpu_bcast {
  grt_shape out;              /* the broadcast shape */
  int64_t n;                  /* elements of out */
  int32_t rank;               /* loop dimensions, >= 1 */
  int64_t dims[GRT_MAX_RANK]; /* outermost first */
  int64_t sx[GRT_MAX_RANK];   /* element strides of x; 0 where broadcast */
  int64_t sy[GRT_MAX_RANK];   /* of y */
} grt_cpu_bcast;

/* Plans x op y. Fails with TensorFlow's "Incompatible shapes: [2,3] vs. [4]". */
GRT_MUST_USE grt_status* grt_cpu_bcast_make(const grt_shape* x, const grt_shape* y,
                                            grt_cpu_bcast* out);

/* Runs `row` over a plan: x and y have elements of `in_size` bytes, z of
 * `out_size`. Work is split over `pool` (may be NULL) when n * cost_ns is
 * large (cost_ns: rough nanoseconds per element). */
void grt_cpu_bcast_run(const grt_cpu_bcast* b, grt_cpu_binary_row row, const void* x, const void* y,
                       size_t in_size, void* z, size_t out_size, int64_t cost_ns,
                       grt_threadpool* pool);

/* The flat case: z[i] = f(x[i * sx], y[i * sy]) for n elements, split over
 * the pool in contiguous pieces. */
void grt_cpu_binary_run_flat(grt_cpu_binary_row row, int64_t n, const void* x, int64_t sx,
                             const void* y, int64_t sy, size_t in_size, void* z, size_t out_size,
                             int64_t cost_ns, grt_threadpool* pool);

/* y[i] = f(x[i]) for n elements, split over the pool. */
void grt_cpu_unary_run(grt_cpu_unary_row row, int64_t n, const void* x, size_t in_size, void* y,
                       size_t out_size, int64_t cost_ns, grt_threadpool* pool);

/* ---- float16 / bfloat16 ------------------------------------------------- */

/* Half-precision types are computed in float32 (as TensorFlow's CPU
 * kernels do for most ops): widen, compute, narrow (round to nearest even). */
static inline bool grt_cpu_is_half(grt_dtype t) { return t == GRT_FLOAT16 || t == GRT_BFLOAT16; }

void grt_cpu_widen(grt_dtype t, const void* in, float* out, int64_t n);
void grt_cpu_narrow(grt_dtype t, const float* in, void* out, int64_t n);

/* A new float32 tensor of t's shape from ctx's allocator holding t widened
 * (t must be float16 or bfloat16). Caller frees *out. */
GRT_MUST_USE grt_status* grt_cpu_widen_tensor(grt_kernel_ctx* ctx, const grt_tensor* t,
                                              grt_tensor** out);

/* ---- math ---------------------------------------------------------------- */

/* c ? a : b on floats through their bits. Used instead of ?: in the math
 * below: GCC (with its default -ftrapping-math) would otherwise thread the
 * branches and give up vectorising the loop around them. */
static inline float grt_cpu_select_f(int c, float a, float b) {
  uint32_t ua, ub, m = (uint32_t)0 - (uint32_t)(c != 0);
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  uint32_t u = (ua & m) | (ub & ~m);
  float r;
  memcpy(&r, &u, sizeof r);
  return r;
}

/* e^x in float32 as plain arithmetic, so loops calling it vectorise (libm's
 * expf is a call per element). Range reduction x = n ln2 + r, |r| <= ln2/2,
 * with ln2 split so n * ln2_hi is exact; e^r by its Taylor series to degree
 * 7 (truncation error below 4e-9); 2^n applied as two factors so results in
 * the denormals round once. Error within 1.3 ulp (checked over every
 * 97th float); overflow gives inf, underflow 0, NaN stays NaN. */
static inline float grt_cpu_expf(float x) {
  /* Quiet comparisons: no FP exception on NaN, which passes through. */
  float c = grt_cpu_select_f(__builtin_isgreater(x, 89.0f), 89.0f, x);
  c = grt_cpu_select_f(__builtin_isless(c, -104.0f), -104.0f, c);
  const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
  float n = (c * 1.44269504088896341f + magic) - magic;
  float r = c - n * 0.693145751953125f; /* 0x3f317200: n * this is exact */
  r = r - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f; /* NaN in, NaN out */
  float nk = grt_cpu_select_f(__builtin_isunordered(n, n), 0.0f, n);
  int32_t k = (int32_t)nk; /* in [-150, 129] */
  int32_t k1 = k / 2, k2 = k - k1;
  uint32_t b1 = (uint32_t)(k1 + 127) << 23, b2 = (uint32_t)(k2 + 127) << 23;
  float s1, s2;
  memcpy(&s1, &b1, sizeof s1);
  memcpy(&s2, &b2, sizeof s2);
  return p * s1 * s2;
}

/* tanh in float32, vectorisable likewise: below |x| = 0.4 its Taylor
 * series to degree 15 (next term under 1e-10), above it
 * sign(x) (1 - 2 / (e^2|x| + 1)). Error within a few ulp; tends to +-1
 * exactly; NaN stays NaN. */
static inline float grt_cpu_tanhf(float x) {
  float a = __builtin_fabsf(x), x2 = x * x;
  float p = -929569.0f / 638512875;
  p = p * x2 + 21844.0f / 6081075;
  p = p * x2 + -1382.0f / 155925;
  p = p * x2 + 62.0f / 2835;
  p = p * x2 + -17.0f / 315;
  p = p * x2 + 2.0f / 15;
  p = p * x2 + -1.0f / 3;
  float small = __builtin_copysignf(x + x * x2 * p, x); /* keeps tanh(-0) = -0 */
  float big = __builtin_copysignf(1.0f - 2.0f / (grt_cpu_expf(2.0f * a) + 1.0f), x);
  return grt_cpu_select_f(__builtin_isless(a, 0.4f), small, big);
}

/* ---- messages ----------------------------------------------------------- */

/* "Cast has no CPU kernel for T=int8" (UNIMPLEMENTED). */
GRT_MUST_USE grt_status* grt_cpu_no_kernel(const grt_kernel_ctx* ctx, grt_dtype t);

/* Writes "[2,3]" for `s` into buf (GRT_SHAPE_STR_MAX bytes); returns buf. */
const char* grt_cpu_shape_str(const grt_shape* s, char* buf);

/* ---- inputs ------------------------------------------------------------- */

/* A shape given as an integer vector (Fill's dims, the random ops' shape);
 * a negative dimension fails: "Dimension -1 must be >= 0". */
grt_status* grt_cpu_read_dims(const grt_tensor* t, const char* what, grt_shape* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_CPU_UTIL_H_ */
