/* Sigmoid and SiLU (x * sigmoid(x), "swish") over float32 rows in place,
 * at the widest vector width the CPU runs.
 *
 * grt's depthwise kernel (conv_depthwise.c) runs them over each output row
 * while the row is in L1. With AVX-512 they take about 0.35 ns per element
 * on a thread: e^-|x| with its 2^n by VSCALEFPS (exact into the
 * denormals), then one division. Elsewhere they compute the same formula
 * with grt_cpu_expf (about 0.65 ns), vectorised by the compiler. The fused
 * convolutions run them as a pass over oneDNN's output in place of
 * oneDNN's own post-op (conv_fused.c).
 *
 * Sigmoid is within 3 ulp of the correctly rounded value for every float,
 * SiLU within 4 down to x = -87.3, below which e^x is a denormal and x
 * times it keeps only its absolute error (under 1e-40). NaN stays NaN;
 * sigmoid(+inf) = 1, sigmoid(-inf) = 0, swish(+inf) = +inf, swish(-inf) =
 * NaN (-inf * 0, as x * sigmoid(x) gives). */
#ifndef GRT_BACKENDS_CPU_ACT_ROWS_H_
#define GRT_BACKENDS_CPU_ACT_ROWS_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GRT_CPU_ACT_SIGMOID,
  GRT_CPU_ACT_SWISH,
} grt_cpu_act;

/* x[i] = act(x[i]) for i in [0, n), on the calling thread. */
void grt_cpu_act_row(grt_cpu_act act, float* x, int64_t n);

/* The same over x[0, n) split into `team` contiguous parts (ends on
 * 64-byte lines), one per thread of `pool` with the caller among them; a
 * team of 1 or a NULL pool runs it on the calling thread. For an output
 * oneDNN has just written: its post-op for these two costs about twice
 * these rows, even with the second pass over memory (backends/cpu/DNNL.md,
 * "SiLU"). */
struct grt_threadpool;
void grt_cpu_act_rows_parallel(struct grt_threadpool* pool, int team, grt_cpu_act act, float* x,
                               int64_t n);

/* An NHWC output of `batch` x `positions` x `c` floats: act over it in
 * place as grt_cpu_act_rows_parallel (apply false: left as it is), and
 * means[b * c + k], the mean of channel k of batch element b over its
 * positions, taken while each block of rows is in L1 (a squeeze-excitation
 * block's Mean after its depthwise convolution, conv_fused.c). `partial`
 * is room for team * batch * c doubles. The sums are in double, so the
 * means match a separate Mean to float's rounding. */
void grt_cpu_act_rows_mean_parallel(struct grt_threadpool* pool, int team, bool apply,
                                    grt_cpu_act act, float* x, int64_t batch, int64_t positions,
                                    int64_t c, double* partial, float* means);

/* acc[k] += the sum of rows[r * c + k] over r < n (n rows of c channels),
 * in float over 64 rows at a time and in double across them, as
 * grt_cpu_act_rows_mean_parallel sums: a kernel summing its own output
 * rows for a channel mean (conv_expand_dw.c). */
void grt_cpu_channel_sums(const float* rows, int64_t n, int64_t c, double* acc);

/* means[k] = the sum over parts p of partial[p * per + k], in part order,
 * over `positions` (NaN for no positions, as a Mean over nothing; partial
 * is not read then): the end of both of the above. */
void grt_cpu_channel_means(const double* partial, int64_t parts, int64_t per, int64_t positions,
                           float* means);

/* Forces the portable rows (true) or lets the CPU decide (false): for tests
 * that compare the two. */
void grt_cpu_act_force_portable(bool portable);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_ACT_ROWS_H_ */
