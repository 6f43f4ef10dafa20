/* Which library runs a float32 MatMul / _FusedMatMul of m x k times k x n.
 * Data, not code: the first row whose bound the product's multiply-adds
 * (m * k * n) stay under names the library. The figures behind the rows are
 * bench/gemm_bench's, on a 2-vCPU AMD EPYC (Zen 5, AVX-512) with OpenBLAS's
 * SkylakeX kernels (what the grt command selects) and oneDNN 2.6's avx512
 * kernels; backends/cpu/LIBRARIES.md has the table. */
#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/matmul_dnnl.h"

typedef struct {
  int64_t below; /* multiply-adds, exclusive */
  bool dnnl;
  const char* why;
} pick_row;

static const pick_row kPicks[] = {
    /* 1x256x256 2.2 us vs 5.0; 1x384x192 1.3 vs 5.8; 64x192x10 2.6 vs 4.1:
     * a oneDNN primitive call costs a few microseconds of its own. */
    {INT64_C(1) << 17, false, "small: OpenBLAS's call is cheaper"},
    /* 1x784x256 6.9 vs 5.9 (packed); 256x784x256 517 vs 226; 64x2304x384
     * 416 vs 254; 32x512x512 77 vs 39: oneDNN's packed-weight kernels. */
    {INT64_C(1) << 28, true, "medium: oneDNN 1.2-2.3x faster"},
    /* 1024^3 31 ms vs 41: OpenBLAS's large-GEMM blocking wins. */
    {INT64_MAX, false, "large: OpenBLAS faster"},
};

bool grt_matmul_pick_dnnl(int64_t m, int64_t k, int64_t n) {
  if (m <= 0 || k <= 0 || n <= 0) return false;
  int64_t work = m > INT64_MAX / k ? INT64_MAX : m * k;
  work = work > INT64_MAX / n ? INT64_MAX : work * n;
  for (size_t i = 0; i < sizeof kPicks / sizeof kPicks[0]; i++)
    if (work < kPicks[i].below) return kPicks[i].dnnl;
  return false;
}
