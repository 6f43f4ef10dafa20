/* The CUDA reductions' passes (reduce_plan.h), and the plan run on the host
 * for int32. */
#include "reduce_plan.h"

#include <stdlib.h>
#include <string.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Chunk length for a pass over [A, B, C]: B when the pass alone has enough
 * units of work, else B cut so that units * chunks reaches the target
 * without a chunk going under the minimum. */
static int64_t chunk_length(int64_t A, int64_t B, int64_t C) {
  int64_t units = C == 1 ? A : A * ceil_div(C, GRT_CUDA_RED_COL_TILE);
  if (units >= GRT_CUDA_RED_TARGET_BLOCKS) return B;
  int64_t min_chunk = C == 1 ? GRT_CUDA_RED_MIN_ROW_CHUNK : GRT_CUDA_RED_MIN_COL_CHUNK;
  int64_t by_size = ceil_div(B, min_chunk);
  int64_t by_units = ceil_div(GRT_CUDA_RED_TARGET_BLOCKS, units);
  int64_t chunks = by_size < by_units ? by_size : by_units;
  if (chunks < 2) return B;
  return ceil_div(B, chunks);
}

int64_t grt_cuda_red_pass_outputs(const grt_cuda_red_pass* p) {
  return p->A * ceil_div(p->B, p->L) * p->C;
}

static void add_pass(grt_cuda_red_plan* plan, int64_t A, int64_t B, int64_t C) {
  int64_t L = chunk_length(A, B, C);
  plan->pass[plan->n_passes++] = (grt_cuda_red_pass){A, B, C, L};
  if (L < B) {
    int64_t S = ceil_div(B, L);
    plan->pass[plan->n_passes++] = (grt_cuda_red_pass){A, S, C, S};
  }
}

void grt_cuda_reduce_plan(const grt_shape* in, const bool* reduced, grt_cuda_red_plan* out) {
  memset(out, 0, sizeof *out);
  int64_t size[GRT_MAX_RANK];
  bool red[GRT_MAX_RANK];
  int32_t g = 0;
  int64_t n_in = 1;
  out->count = 1;
  out->n_out = 1;
  for (int32_t i = 0; i < in->rank; i++) {
    int64_t d = in->dims[i];
    n_in *= d;
    if (reduced[i])
      out->count *= d;
    else
      out->n_out *= d;
    if (d == 1) continue;
    if (g > 0 && red[g - 1] == reduced[i]) {
      size[g - 1] *= d;
    } else {
      size[g] = d;
      red[g] = reduced[i];
      g++;
    }
  }
  if (out->n_out == 0) {
    out->kind = GRT_CUDA_RED_NOTHING;
    return;
  }
  if (n_in == 0) {
    out->kind = GRT_CUDA_RED_FILL;
    return;
  }
  int32_t n_red = 0;
  for (int32_t k = 0; k < g; k++) n_red += red[k];
  out->kind = n_red ? GRT_CUDA_RED_PASSES : GRT_CUDA_RED_COPY;
  while (n_red > 0) {
    int32_t k = g - 1;
    while (!red[k]) k--;
    int64_t A = 1, C = 1;
    for (int32_t i = 0; i < k; i++) A *= size[i];
    for (int32_t i = k + 1; i < g; i++) C *= size[i];
    add_pass(out, A, size[k], C);
    /* Drop group k; its kept neighbours become one group. */
    int32_t drop = k > 0 && k + 1 < g ? 2 : 1;
    if (drop == 2) size[k - 1] *= size[k + 1];
    for (int32_t i = k; i + drop < g; i++) {
      size[i] = size[i + drop];
      red[i] = red[i + drop];
    }
    g -= drop;
    n_red--;
  }
}

/* ---- int32 on the host ------------------------------------------------- */

static int32_t combine_i32(grt_cuda_red_op op, int32_t a, int32_t v) {
  switch (op) {
    case GRT_CUDA_RED_PROD:
      return (int32_t)((uint32_t)a * (uint32_t)v);
    case GRT_CUDA_RED_MAX:
      return v > a ? v : a;
    case GRT_CUDA_RED_MIN:
      return v < a ? v : a;
    default:
      return (int32_t)((uint32_t)a + (uint32_t)v);
  }
}

static int32_t identity_i32(grt_cuda_red_op op) {
  return op == GRT_CUDA_RED_PROD  ? 1
         : op == GRT_CUDA_RED_MAX ? INT32_MIN
         : op == GRT_CUDA_RED_MIN ? INT32_MAX
                                  : 0;
}

static void pass_i32(const grt_cuda_red_pass* p, grt_cuda_red_op op, const int32_t* x, int32_t* y) {
  int64_t S = ceil_div(p->B, p->L);
  for (int64_t a = 0; a < p->A; a++)
    for (int64_t s = 0; s < S; s++)
      for (int64_t c = 0; c < p->C; c++) {
        int64_t b1 = (s + 1) * p->L < p->B ? (s + 1) * p->L : p->B;
        int32_t acc = identity_i32(op);
        for (int64_t b = s * p->L; b < b1; b++)
          acc = combine_i32(op, acc, x[(a * p->B + b) * p->C + c]);
        y[(a * S + s) * p->C + c] = acc;
      }
}

grt_status* grt_cuda_reduce_host_i32(const grt_cuda_red_plan* plan, grt_cuda_red_op op,
                                     const int32_t* x, int32_t* out) {
  if (op == GRT_CUDA_RED_MEAN || op < 0 || op >= GRT_CUDA_RED_NUM_OPS)
    return grt_status_new(GRT_UNIMPLEMENTED,
                          "the CUDA reductions' int32 host path has no kernel for Mean");
  switch (plan->kind) {
    case GRT_CUDA_RED_NOTHING:
      return NULL;
    case GRT_CUDA_RED_FILL:
      for (int64_t i = 0; i < plan->n_out; i++) out[i] = identity_i32(op);
      return NULL;
    case GRT_CUDA_RED_COPY:
      memcpy(out, x, (size_t)plan->n_out * sizeof *out);
      return NULL;
    case GRT_CUDA_RED_PASSES:
      break;
  }
  const int32_t* src = x;
  int32_t* prev = NULL; /* the intermediate `src` points into, if any */
  for (int32_t k = 0; k < plan->n_passes; k++) {
    const grt_cuda_red_pass* p = &plan->pass[k];
    int32_t* dst = out;
    if (k + 1 < plan->n_passes) {
      dst = malloc((size_t)grt_cuda_red_pass_outputs(p) * sizeof *dst);
      if (!dst) {
        free(prev);
        return grt_status_new(GRT_RESOURCE_EXHAUSTED,
                              "the CUDA reductions' int32 host path: no memory for %lld partial "
                              "results",
                              (long long)grt_cuda_red_pass_outputs(p));
      }
    }
    pass_i32(p, op, src, dst);
    free(prev);
    prev = dst == out ? NULL : dst;
    src = dst;
  }
  return NULL;
}
