/* Internal to the matmul CPU kernels: float32 matrix products on oneDNN's
 * matmul primitive, with an optional bias and activation applied by the
 * same primitive (post-ops, for _FusedMatMul), and weights packed once into
 * the primitive's preferred layout when the graph says they are constant.
 * Which library runs which shape is grt_matmul_pick_dnnl's table
 * (matmul_select.c); backends/cpu/LIBRARIES.md gives the measurements. */
#ifndef GRT_BACKENDS_CPU_MATMUL_DNNL_H_
#define GRT_BACKENDS_CPU_MATMUL_DNNL_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Activations fused after the bias (TensorFlow's fused_ops tail). */
typedef enum grt_mm_activation {
  GRT_MM_NONE = 0,
  GRT_MM_RELU,
  GRT_MM_RELU6,
  GRT_MM_ELU,
  GRT_MM_GELU_EXACT,  /* x Phi(x), erf form: fused_ops' GeluExact */
  GRT_MM_GELU_APPROX, /* tanh form: GeluApproximate */
} grt_mm_activation;

/* One product: out[m, n] = act(op(a) * op(b) + bias), row-major float32,
 * a m x k (k x m when ta), b k x n (n x k when tb), bias n floats or NULL. */
typedef struct grt_mm_call {
  int64_t m, k, n;
  bool ta, tb;
  const float* a;
  const float* b;
  const float* bias;
  grt_mm_activation act;
  float* out;
  /* b is packed once per node and shape and reused: a constant of the
   * graph, or a variable unchanged since the node's last call (version
   * b_version); set by grt_mm_weights. */
  bool const_b;
  uint64_t b_version;
} grt_mm_call;

/* Sets c->const_b and c->b_version for c->b, the node's input 1
 * (dnnl_pack.h: grt_dnnl_weights_of). */
void grt_mm_weights(grt_kernel_ctx* ctx, grt_mm_call* c);

/* The kernel state of MatMul and _FusedMatMul: cached primitives and the
 * packed copies of constant weights. */
GRT_MUST_USE grt_status* grt_mm_state_new(const grt_node* node, void** out_state);
void grt_mm_state_free(void* state);

/* The work an m x k x n product's team is sized by (grt_dnnl_team): its
 * multiply-adds, times 4 for a product of at most 4 rows, which streams
 * its weights and waits on memory. */
double grt_mm_team_work(int64_t m, int64_t k, int64_t n);

/* Runs the product on oneDNN. `state` may be NULL (nothing cached). */
GRT_MUST_USE grt_status* grt_mm_dnnl_run(grt_kernel_ctx* ctx, void* state, const grt_mm_call* c);

/* True where a float32 m x k x n product runs matmul_gemv.c: one row
 * (m 1) of at least 2^17 multiply-adds (matmul_select.c), under the table
 * (not under a library forced by grt_matmul_set_library). */
bool grt_matmul_pick_gemv(int64_t m, int64_t k, int64_t n);

/* True where the table gives an m x k x n product to oneDNN's matmul
 * primitive (matmul_select.c); ta: the left operand is read transposed. */
bool grt_matmul_pick_dnnl(int64_t m, int64_t k, int64_t n, bool ta);
/* The band where oneDNN runs only weights packed once (grt_mm_weights says
 * const_b), OpenBLAS the rest. */
bool grt_matmul_pick_dnnl_if_packed(int64_t m, int64_t k, int64_t n, bool ta);

/* The _FusedMatMul kernel (matmul_fused.c) and _FusedConv2D's and
 * _FusedDepthwiseConv2dNative's (conv_fused.c). */
GRT_MUST_USE grt_status* grt_cpu_fused_matmul(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_fused_conv2d(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_fused_depthwise_conv2d(grt_kernel_ctx* ctx);

/* The node's fused_ops as an activation: ["BiasAdd"] or ["BiasAdd", ACT]. */
GRT_MUST_USE grt_status* grt_cpu_fused_ops(const grt_kernel_ctx* ctx, grt_mm_activation* out);

/* The activation of one value, as the fused kernels' own passes apply it
 * (the GELUs excepted: grt_mm_activate_row). */
float grt_mm_activate(grt_mm_activation act, float x);

/* row[j] = act(row[j] + bias[j]) for j < n: OpenBLAS's products' pass over
 * their output. */
void grt_mm_activate_row(grt_mm_activation act, const float* bias, float* row, int64_t n);

/* The activation as a oneDNN eltwise post-op. */
void grt_mm_activation_eltwise(grt_mm_activation act, int* alg, float* alpha, float* beta);

/* Benchmark hook (bench/exec_bench libs): which libraries run float32
 * products, process-wide. TABLE: matmul_select.c's table (the default);
 * DNNL_MATMUL: oneDNN's matmul primitive for every MatMul/_FusedMatMul;
 * DNNL_ONLY: the table with dnnl_sgemm where it says OpenBLAS. */
typedef enum grt_mm_library {
  GRT_MM_LIBRARY_TABLE = 0,
  GRT_MM_LIBRARY_DNNL_MATMUL,
  GRT_MM_LIBRARY_DNNL_ONLY,
} grt_mm_library;
void grt_matmul_set_library(grt_mm_library library);

/* True where a float32 GEMM of m x k x n runs on oneDNN's sgemm
 * (matmul_gemm.c, in row blocks) rather than OpenBLAS: under DNNL_ONLY. */
bool grt_matmul_pick_sgemm(int64_t m, int64_t k, int64_t n);

/* Test hook: weight packings done by this process so far. */
int64_t grt_mm_pack_count(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_MATMUL_DNNL_H_ */
