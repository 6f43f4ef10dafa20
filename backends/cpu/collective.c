/* NcclAllReduce on logical CPUs. The session runs a group of NcclAllReduce
 * nodes as one call of the backend's all_reduce (gang scheduling,
 * runtime/EXECUTION.md), so the node's own kernel never computes: it exists
 * so the placer's rows and the session's kernel lookup agree, and it fails
 * if ever called on its own.
 *
 * grt_cpu_all_reduce: every member's memory is host memory, so the
 * reduction reads every input in member order (the session's device order)
 * into the first output and copies it to the others: each device gets the
 * same bits, whichever thread ran the group. float16 is reduced in float
 * and rounded once per element, as the sum of two halves would be. */
#include <string.h>

#include "backends/cpu/collective.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "base/threadpool.h"

GRT_CPU_VECTORIZE

static grt_status* nccl_all_reduce_alone(grt_kernel_ctx* ctx) {
  return GRT_ERROR(INTERNAL,
                   "NcclAllReduce runs only as a group, by the session's executor (its kernel "
                   "is never called on its own)");
}

GRT_CPU_KERNEL_TABLE(collective, {"NcclAllReduce", nccl_all_reduce_alone, NULL, NULL, 0});

typedef struct {
  const grt_all_reduce_args* a;
  void* out;
} job;

/* out[i] = in_0[i] op in_1[i] op ... for one element range, member order. */
#define REDUCE_RANGE(sfx, T)                                                      \
  static void reduce_##sfx(const job* j, int64_t b, int64_t e) {                  \
    const grt_all_reduce_args* a = j->a;                                          \
    T* restrict out = j->out;                                                     \
    const T* first = grt_tensor_data(a->inputs[0]);                               \
    for (int64_t i = b; i < e; i++) out[i] = first[i];                            \
    for (int32_t k = 1; k < a->n; k++) {                                          \
      const T* restrict x = grt_tensor_data(a->inputs[k]);                        \
      switch (a->reduction) {                                                     \
        case GRT_REDUCE_SUM:                                                      \
          for (int64_t i = b; i < e; i++) out[i] = (T)(out[i] + x[i]);            \
          break;                                                                  \
        case GRT_REDUCE_PROD:                                                     \
          for (int64_t i = b; i < e; i++) out[i] = (T)(out[i] * x[i]);            \
          break;                                                                  \
        case GRT_REDUCE_MIN:                                                      \
          for (int64_t i = b; i < e; i++) out[i] = x[i] < out[i] ? x[i] : out[i]; \
          break;                                                                  \
        case GRT_REDUCE_MAX:                                                      \
          for (int64_t i = b; i < e; i++) out[i] = x[i] > out[i] ? x[i] : out[i]; \
          break;                                                                  \
      }                                                                           \
    }                                                                             \
  }
REDUCE_RANGE(f32, float)
REDUCE_RANGE(f64, double)
/* Integer sums and products wrap, as TensorFlow's (two's complement). */
REDUCE_RANGE(u32, uint32_t)
REDUCE_RANGE(u64, uint64_t)
REDUCE_RANGE(i32, int32_t)
REDUCE_RANGE(i64, int64_t)

static void reduce_f16(const job* j, int64_t b, int64_t e) {
  const grt_all_reduce_args* a = j->a;
  uint16_t* out = j->out;
  for (int64_t i = b; i < e; i++) {
    float acc = grt_half_to_float(((const uint16_t*)grt_tensor_data(a->inputs[0]))[i]);
    for (int32_t k = 1; k < a->n; k++) {
      float x = grt_half_to_float(((const uint16_t*)grt_tensor_data(a->inputs[k]))[i]);
      switch (a->reduction) {
        case GRT_REDUCE_SUM:
          acc += x;
          break;
        case GRT_REDUCE_PROD:
          acc *= x;
          break;
        case GRT_REDUCE_MIN:
          acc = x < acc ? x : acc;
          break;
        case GRT_REDUCE_MAX:
          acc = x > acc ? x : acc;
          break;
      }
      /* Round after each step, as k-1 half additions would. */
      acc = grt_half_to_float(grt_float_to_half(acc));
    }
    out[i] = grt_float_to_half(acc);
  }
}

typedef void (*reduce_fn)(const job* j, int64_t b, int64_t e);

static reduce_fn pick(grt_dtype t, grt_reduction r) {
  bool wraps = r == GRT_REDUCE_SUM || r == GRT_REDUCE_PROD;
  switch (t) {
    case GRT_FLOAT32:
      return reduce_f32;
    case GRT_FLOAT64:
      return reduce_f64;
    case GRT_FLOAT16:
      return reduce_f16;
    case GRT_INT32:
      return wraps ? reduce_u32 : reduce_i32;
    case GRT_INT64:
      return wraps ? reduce_u64 : reduce_i64;
    default:
      return NULL;
  }
}

typedef struct {
  job j;
  reduce_fn fn;
} shard_ctx;

static void shard(void* ctx, int64_t b, int64_t e) {
  shard_ctx* c = ctx;
  c->fn(&c->j, b, e);
}

grt_status* grt_cpu_all_reduce(const grt_all_reduce_args* a) {
  if (a->n < 1) return GRT_ERROR(INTERNAL, "all-reduce '%s' has no members", a->shared_name);
  grt_dtype t = grt_tensor_dtype(a->inputs[0]);
  reduce_fn fn = pick(t, a->reduction);
  if (!fn)
    return GRT_ERROR(INVALID_ARGUMENT, "all-reduce '%s': no CPU reduction for dtype %s",
                     a->shared_name, grt_dtype_name(t));
  for (int32_t k = 0; k < a->n; k++)
    if (!a->devices[k]->host_addressable)
      return GRT_ERROR(INVALID_ARGUMENT, "all-reduce '%s': member on %s is not a host device",
                       a->shared_name, a->devices[k]->name);
  int64_t n = grt_tensor_num_elements(a->inputs[0]);
  shard_ctx c = {{a, grt_tensor_data(a->outputs[0])}, fn};
  if (n > 0) grt_parallel_for(a->intra_op, n, a->n, shard, &c);
  size_t bytes = grt_tensor_byte_size(a->outputs[0]);
  for (int32_t k = 1; k < a->n && bytes > 0; k++)
    memcpy(grt_tensor_data(a->outputs[k]), grt_tensor_data(a->outputs[0]), bytes);
  return NULL;
}
