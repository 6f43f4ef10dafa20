/* Internal to the neural-network CPU kernels (nn*.c). */
#ifndef GRT_BACKENDS_CPU_NN_H_
#define GRT_BACKENDS_CPU_NN_H_

#include <stdbool.h>
#include <stdint.h>

#include "kernels/op_kernel.h"

/* One softmax row without the final division: y[j] = e^(x[j] - max) and
 * the returned sum of the y[j]; *out_max gets max(x). n >= 1; y may be x.
 * Shared by Softmax and the cross-entropies. */
float grt_cpu_softmax_row_f32(const float* x, float* y, int64_t n, float* out_max);
double grt_cpu_softmax_row_f64(const double* x, double* y, int64_t n, double* out_max);

/* Rows of fewer than GRT_CPU_SOFTMAX_SHORT_ROW elements (a classifier's
 * 10 classes), up to GRT_CPU_SOFTMAX_BLOCK of them at once: what
 * grt_cpu_softmax_row_f32 gives each row, bit for bit, with the exps of the
 * block in one vector loop. maxes[r] and sums[r] get row r's max and sum;
 * y may be x. */
enum { GRT_CPU_SOFTMAX_SHORT_ROW = 16, GRT_CPU_SOFTMAX_BLOCK = 64 };
void grt_cpu_softmax_short_rows_f32(const float* x, float* y, int64_t rows, int64_t n, float* maxes,
                                    float* sums);

GRT_MUST_USE grt_status* grt_cpu_bias_add(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_bias_add_grad(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_softmax(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_sparse_xent(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_xent(grt_kernel_ctx* ctx);

/* The sequence models' fused ops (ops/defs_fused_seq.c), float32. One row
 * of n elements of _LayerNorm (y may not alias x), and _Gelu over n
 * elements (y may be x); exported for the kernel tests' references. */
void grt_cpu_layer_norm_row(const float* x, float* y, int64_t n, const float* gamma,
                            const float* beta, float epsilon);
void grt_cpu_gelu_f32(const float* x, float* y, int64_t n, bool approximate);
GRT_MUST_USE grt_status* grt_cpu_layer_norm(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_gelu(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_attention(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_packed_attention(grt_kernel_ctx* ctx);
/* Tests: runs the attention kernel's copy for `width` floats per vector
 * (4 baseline SSE, 8 AVX2, 16 AVX-512; 0 the widest the CPU runs, the
 * default) so each copy is checked on a machine that would pick another.
 * -1 (and no change) for a width the CPU cannot run. */
int grt_cpu_attention_force_width(int width);

/* The recurrent ops (ops/defs_rnn.c; nn_rnn.c), float32. */
GRT_MUST_USE grt_status* grt_cpu_rnn(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_gru(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_lstm(grt_kernel_ctx* ctx);

#endif /* GRT_BACKENDS_CPU_NN_H_ */
