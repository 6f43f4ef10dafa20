/* Which fused convolutions run as oneDNN's Winograd convolution (conv.h).
 *
 * Why: a 3x3 stride-1 convolution is most of a ResNet's time, and oneDNN
 * 2.6's direct kernel (brgconv, NHWC) runs it at about the speed of ONNX
 * Runtime's; its Winograd kernels (jit_fp32_wino_2x3 and jit_wino_4x3 on
 * AVX-512) do the same layer in 0.52-0.57 of the time: 56x56, 64 -> 64 at
 * batch 1 in 539 against 978 µs, 7x7, 512 -> 512 at batch 8 in 4104
 * against 7969 (2 threads, DNNL.md "Winograd"). They read and write
 * oneDNN's blocked layout (nChw16c), so the kernel reorders its NHWC input
 * and output around the call: 30-60 µs a layer at batch 1. Their results
 * differ from the direct sum by rounding only: at most 2e-6 of the
 * output's largest magnitude on resnet18's layers, as a reassociated sum
 * would (DNNL.md). */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/conv.h"

/* The fewest output positions (N x OH x OW) taken. oneDNN 2.6 turns the
 * filter into its Winograd form once per node, in a reorder that costs
 * about 20 ns per filter entry on one thread: 52 ms for a 512 -> 512
 * layer, more than resnet18's whole run at batch 1, while such a layer at
 * 7x7 and batch 1 (49 positions) gains nothing per run (DNNL.md,
 * "Winograd"). Below this the direct kernel runs; a batch large enough
 * takes Winograd (and pays the reorder on its first run). */
enum { kMinPositions = 128 };

static int g_mode = -1; /* atomic: -1 unread, 0 never, 1 the rule */
static int64_t g_runs;  /* atomic: grt_cpu_conv_winograd_ran */

static int mode(void) {
  int m = __atomic_load_n(&g_mode, __ATOMIC_RELAXED);
  if (m >= 0) return m;
  const char* env = getenv("GRT_CPU_WINOGRAD");
  m = env && strcmp(env, "0") == 0 ? 0 : 1;
  int unset = -1; /* a grt_cpu_conv_winograd_set in between wins */
  __atomic_compare_exchange_n(&g_mode, &unset, m, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return __atomic_load_n(&g_mode, __ATOMIC_RELAXED);
}

bool grt_cpu_conv_winograd_takes(const grt_cpu_conv* g) {
  if (!mode()) return false;
  /* oneDNN's kernels: 3x3, stride and dilation 1, whole blocks of 16
   * channels, one group. */
  return !g->w.nchw && g->groups == 1 && g->kh == 3 && g->kw == 3 && g->w.strides[0] == 1 &&
         g->w.strides[1] == 1 && g->w.dilations[0] == 1 && g->w.dilations[1] == 1 &&
         g->ic % 16 == 0 && g->oc % 16 == 0 && g->n * g->oh * g->ow >= kMinPositions;
}

void grt_cpu_conv_winograd_set(bool on) { __atomic_store_n(&g_mode, on ? 1 : 0, __ATOMIC_RELAXED); }

void grt_cpu_conv_winograd_ran(void) { __atomic_add_fetch(&g_runs, 1, __ATOMIC_RELAXED); }

int64_t grt_cpu_conv_winograd_count(void) { return __atomic_load_n(&g_runs, __ATOMIC_RELAXED); }
