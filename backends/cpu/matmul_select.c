/* Which library runs a float32 MatMul / _FusedMatMul of m x k times k x n.
 * Data, not code: the first row whose bound the product's multiply-adds
 * (m * k * n) stay under names the engine. The figures behind the rows are
 * bench/exec_bench libs's (today's table beside oneDNN alone, interleaved
 * in one run); backends/cpu/LIBRARIES.md has them. */
#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/matmul_dnnl.h"

typedef enum { OPENBLAS, DNNL_MATMUL, DNNL_SGEMM, DNNL_IF_PACKED } engine;

typedef struct {
  int64_t below; /* multiply-adds, exclusive */
  engine engine;
  const char* why;
} pick_row;

static const pick_row kPicks[] = {
    /* 1x256x10 1.1 us vs 1.3 (sgemm) and 2.5 (matmul); 1x256x256 3.3 vs
     * 3.6 and 7.3: a oneDNN call costs a few tenths of a microsecond more,
     * its matmul primitive a microsecond or more. */
    {INT64_C(1) << 17, OPENBLAS, "small: OpenBLAS's call is cheaper"},
    /* oneDNN's matmul on packed weights: at or under OpenBLAS's time at
     * every shape measured (the MLP and conv net layers). */
    {INT64_C(1) << 28, DNNL_MATMUL, "medium: oneDNN's packed-weight kernels"},
    /* 1024^3: OpenBLAS's SkylakeX kernels 16.1 ms vs oneDNN's sgemm 17.3
     * and matmul 24.4 in the quieter sitting (0.85-0.97x in a busy one).
     * And oneDNN's sgemm aborts the process under an address-space cap (an
     * exception out of its kernel generation), and one matmul call cannot
     * stop for a cancelled run, where OpenBLAS runs in row blocks with its
     * buffers checked first (matmul_gemm.c). */
    /* Weights packed once (a Const, or a variable no run writes: the
     * inference graphs' linear layers): oneDNN's packed-weight kernels beat
     * OpenBLAS there too (vit_b_16's [197, 768] x [768, 3072] layers: the
     * model 360 -> 230-260 ms per image, a transformer encoder's [1024,
     * 512] x [512, 2048] 460 -> 275 ms per batch of 8; bench/models, 27 Nov
     * 2026). Unpacked, oneDNN's matmul loses (1024^3: 24.4 ms vs 16.1).
     * One oneDNN call cannot stop for a cancelled run: 2^32 multiply-adds
     * bound that wait to tens of milliseconds. */
    {INT64_C(1) << 32, DNNL_IF_PACKED, "large, packed weights: oneDNN; else OpenBLAS"},
    {INT64_MAX, OPENBLAS, "large: OpenBLAS, in row blocks"},
};

/* A transposed left operand and a narrow result (a classifier's weight
 * gradient, h^T . dy: 256 x 256 x 10 in the seeds' MLP) go to OpenBLAS
 * whatever their size: oneDNN's matmul reads the strided operand far
 * slower than OpenBLAS packs it (bench/gemm_bench --training, paused host:
 * 27.2 us against 9.8 on one thread, 14.9 against 12.6 on two). */
enum { kNarrowTransposed = 16 };

/* bench/exec_bench libs's switch (matmul_dnnl.h). */
static int g_library = GRT_MM_LIBRARY_TABLE;

void grt_matmul_set_library(grt_mm_library library) {
  __atomic_store_n(&g_library, (int)library, __ATOMIC_RELAXED);
}

static engine pick(int64_t m, int64_t k, int64_t n, bool ta) {
  int library = __atomic_load_n(&g_library, __ATOMIC_RELAXED);
  if (library == GRT_MM_LIBRARY_DNNL_MATMUL) return DNNL_MATMUL;
  if (ta && n < kNarrowTransposed)
    return library == GRT_MM_LIBRARY_DNNL_ONLY ? DNNL_SGEMM : OPENBLAS;
  int64_t work = m > INT64_MAX / k ? INT64_MAX : m * k;
  work = work > INT64_MAX / n ? INT64_MAX : work * n;
  for (size_t i = 0; i < sizeof kPicks / sizeof kPicks[0]; i++)
    if (work < kPicks[i].below) {
      engine e = kPicks[i].engine;
      return e == OPENBLAS && library == GRT_MM_LIBRARY_DNNL_ONLY ? DNNL_SGEMM : e;
    }
  return OPENBLAS;
}

/* One row of at least this many multiply-adds runs matmul_gemv.c: a
 * classifier's weights at batch 1, streamed from memory (1 x 1280 x 1000
 * in mobilenet_v2: 175 -> 91 µs, the node's minimum in the model). Below
 * it OpenBLAS's GEMV call costs less (bench/exec_bench libs, 28 Nov 2026:
 * 1 x 256 x 10 0.7 µs against 1.2, 1 x 256 x 256 2.7 against 3.2; level
 * at 1 x 784 x 256). */
#define GEMV_MIN_MACS (INT64_C(1) << 17)

bool grt_matmul_pick_gemv(int64_t m, int64_t k, int64_t n) {
  /* k * n >= GEMV_MIN_MACS, without the product's overflow. */
  bool enough = k > 0 && n > 0 && (k >= GEMV_MIN_MACS || n >= (GEMV_MIN_MACS + k - 1) / k);
  return m == 1 && enough && __atomic_load_n(&g_library, __ATOMIC_RELAXED) == GRT_MM_LIBRARY_TABLE;
}

bool grt_matmul_pick_dnnl(int64_t m, int64_t k, int64_t n, bool ta) {
  return m > 0 && k > 0 && n > 0 && pick(m, k, n, ta) == DNNL_MATMUL;
}

bool grt_matmul_pick_dnnl_if_packed(int64_t m, int64_t k, int64_t n, bool ta) {
  return m > 0 && k > 0 && n > 0 && pick(m, k, n, ta) == DNNL_IF_PACKED;
}

/* For the GEMM engine (matmul_gemm.c): only under the benchmark's
 * DNNL_ONLY, since no row of the table names dnnl_sgemm (above). */
bool grt_matmul_pick_sgemm(int64_t m, int64_t k, int64_t n) {
  if (__atomic_load_n(&g_library, __ATOMIC_RELAXED) == GRT_MM_LIBRARY_DNNL_ONLY) return true;
  return m > 0 && k > 0 && n > 0 && pick(m, k, n, false) == DNNL_SGEMM;
}
