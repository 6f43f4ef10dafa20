/* RandomUniform, RandomStandardNormal and TruncatedNormal with TensorFlow's
 * generator, so a seed pair gives TensorFlow's values:
 *
 * - Each node owns a Philox stream keyed by (seed, seed2) as
 *   GuardedPhiloxRandom does; both 0 means a seed pair from the OS.
 * - A run of n outputs reserves n * 256 blocks of the stream under the
 *   node's lock (TensorFlow's ReserveRandomOutputs), so consecutive and
 *   concurrent runs draw disjoint samples.
 * - Outputs come in groups (4 floats or 2 doubles per block). Uniform and
 *   normal groups take one block each, in order; truncated normal, which
 *   rejects |x| >= 2, gives each group its own window of 256 blocks per
 *   output (FillPhiloxRandomTask), so groups can be filled in parallel and
 *   the result does not depend on how the work was split. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/random_philox.h"

enum { kReservedPerOutput = 256 };

/* ---- distributions: one group of outputs per call ------------------------- */

typedef struct dist {
  int32_t group; /* outputs per call */
  bool variable; /* consumes a data-dependent number of blocks */
  int32_t cost;  /* rough ns per group */
  void (*fn)(grt_philox* g, void* out);
} dist;

static void uniform_f32(grt_philox* g, void* out) {
  uint32_t s[4];
  grt_philox_next(g, s);
  for (int i = 0; i < 4; i++) ((float*)out)[i] = grt_philox_uint32_to_float(s[i]);
}
static void uniform_f64(grt_philox* g, void* out) {
  uint32_t s[4];
  grt_philox_next(g, s);
  for (int i = 0; i < 2; i++)
    ((double*)out)[i] = grt_philox_uint64_to_double(s[2 * i], s[2 * i + 1]);
}
/* 10 (7) random mantissa bits of a half (bfloat16) in [1, 2), minus 1: the
 * value is exactly bits / 2^10 (2^7). */
static void uniform_f16(grt_philox* g, void* out) {
  uint32_t s[4];
  grt_philox_next(g, s);
  for (int i = 0; i < 4; i++)
    ((uint16_t*)out)[i] = grt_float_to_half((float)(s[i] & 0x3ffu) * 0x1p-10f);
}
static void uniform_bf16(grt_philox* g, void* out) {
  uint32_t s[4];
  grt_philox_next(g, s);
  for (int i = 0; i < 4; i++)
    ((uint16_t*)out)[i] = grt_float_to_bfloat16((float)(s[i] & 0x7fu) * 0x1p-7f);
}

static void normal_float4(grt_philox* g, float f[4]) {
  uint32_t s[4];
  grt_philox_next(g, s);
  grt_philox_box_muller_float(s[0], s[1], &f[0], &f[1]);
  grt_philox_box_muller_float(s[2], s[3], &f[2], &f[3]);
}
static void normal_f32(grt_philox* g, void* out) { normal_float4(g, out); }
static void normal_f16(grt_philox* g, void* out) {
  float f[4];
  normal_float4(g, f);
  for (int i = 0; i < 4; i++) ((uint16_t*)out)[i] = grt_float_to_half(f[i]);
}
static void normal_bf16(grt_philox* g, void* out) {
  float f[4];
  normal_float4(g, f);
  for (int i = 0; i < 4; i++) ((uint16_t*)out)[i] = grt_float_to_bfloat16(f[i]);
}
static void normal_f64(grt_philox* g, void* out) {
  uint32_t s[4];
  grt_philox_next(g, s);
  grt_philox_box_muller_double(s[0], s[1], s[2], s[3], &((double*)out)[0], &((double*)out)[1]);
}

/* TensorFlow's SingleSampleAdapter: one word at a time from whole blocks. */
typedef struct {
  grt_philox* g;
  uint32_t buf[4];
  int used;
} single;

static uint32_t single_next(single* s) {
  if (s->used == 4) {
    grt_philox_next(s->g, s->buf);
    s->used = 0;
  }
  return s->buf[s->used++];
}

/* Four normals with |x| < 2, taken from pairs in order. */
static void truncated_float4(grt_philox* g, float out[4]) {
  single s = {g, {0}, 4};
  int n = 0;
  for (;;) {
    uint32_t x0 = single_next(&s), x1 = single_next(&s);
    float f[2];
    grt_philox_box_muller_float(x0, x1, &f[0], &f[1]);
    for (int i = 0; i < 2; i++) {
      if (fabsf(f[i]) < 2.0f) {
        out[n++] = f[i];
        if (n == 4) return;
      }
    }
  }
}
static void truncated_f32(grt_philox* g, void* out) { truncated_float4(g, out); }
static void truncated_f16(grt_philox* g, void* out) {
  float f[4];
  truncated_float4(g, f);
  for (int i = 0; i < 4; i++) ((uint16_t*)out)[i] = grt_float_to_half(f[i]);
}
static void truncated_bf16(grt_philox* g, void* out) {
  float f[4];
  truncated_float4(g, f);
  for (int i = 0; i < 4; i++) ((uint16_t*)out)[i] = grt_float_to_bfloat16(f[i]);
}
static void truncated_f64(grt_philox* g, void* out) {
  single s = {g, {0}, 4};
  int n = 0;
  for (;;) {
    uint32_t x0 = single_next(&s), x1 = single_next(&s), x2 = single_next(&s), x3 = single_next(&s);
    double d[2];
    grt_philox_box_muller_double(x0, x1, x2, x3, &d[0], &d[1]);
    for (int i = 0; i < 2; i++) {
      if (fabs(d[i]) < 2.0) {
        ((double*)out)[n++] = d[i];
        if (n == 2) return;
      }
    }
  }
}

typedef const dist* dist_table[GRT_NUM_DTYPES];

#define D(G, V, C, F) \
  &(const dist) { G, V, C, F }
static const dist_table kUniform = {[GRT_FLOAT16] = D(4, false, 50, uniform_f16),
                                    [GRT_BFLOAT16] = D(4, false, 50, uniform_bf16),
                                    [GRT_FLOAT32] = D(4, false, 50, uniform_f32),
                                    [GRT_FLOAT64] = D(2, false, 50, uniform_f64)};
static const dist_table kNormal = {[GRT_FLOAT16] = D(4, false, 300, normal_f16),
                                   [GRT_BFLOAT16] = D(4, false, 300, normal_bf16),
                                   [GRT_FLOAT32] = D(4, false, 300, normal_f32),
                                   [GRT_FLOAT64] = D(2, false, 300, normal_f64)};
static const dist_table kTruncated = {[GRT_FLOAT16] = D(4, true, 400, truncated_f16),
                                      [GRT_BFLOAT16] = D(4, true, 400, truncated_bf16),
                                      [GRT_FLOAT32] = D(4, true, 400, truncated_f32),
                                      [GRT_FLOAT64] = D(2, true, 400, truncated_f64)};
#undef D

/* ---- filling ---------------------------------------------------------------- */

typedef struct {
  const dist* d;
  grt_philox base; /* the stream position this run reserved */
  char* data;
  int64_t size;
  size_t esize;
} fill_job;

static void fill_shard(void* arg, int64_t g0, int64_t g1) {
  const fill_job* j = arg;
  const dist* d = j->d;
  uint64_t window = (uint64_t)d->group * kReservedPerOutput / 4; /* blocks per group */
  grt_philox gen = j->base;
  if (!d->variable) grt_philox_skip(&gen, (uint64_t)g0);
  for (int64_t g = g0; g < g1; g++) {
    if (d->variable) {
      gen = j->base;
      grt_philox_skip(&gen, (uint64_t)g * window);
    }
    uint64_t tmp[4];
    d->fn(&gen, tmp);
    int64_t at = g * d->group, n = j->size - at < d->group ? j->size - at : d->group;
    memcpy(j->data + (size_t)at * j->esize, tmp, (size_t)n * j->esize);
  }
}

/* ---- per-node state ---------------------------------------------------------- */

typedef struct {
  pthread_mutex_t mu;
  grt_philox gen;
} random_state;

/* A seed pair from the OS, for seed = seed2 = 0 (TensorFlow's New64()). */
static void os_seeds(uint64_t s[2]) {
  if (getrandom(s, 2 * sizeof s[0], 0) == (ssize_t)(2 * sizeof s[0])) return;
  static uint64_t counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  s[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^ (uintptr_t)s;
  s[1] = c * 0xBF58476D1CE4E5B9ull ^ (uint64_t)ts.tv_nsec;
}

static int64_t int_attr(const grt_node* node, const char* name) {
  const grt_attr_value* v = grt_node_attr(node, name);
  return v && v->type == GRT_ATTR_INT ? v->u.i : 0;
}

static grt_status* random_create(const grt_node* node, void** out_state) {
  *out_state = NULL;
  random_state* st = grt_calloc(1, sizeof *st);
  if (!st) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory creating a random generator");
  if (pthread_mutex_init(&st->mu, NULL) != 0) {
    grt_free(st);
    return GRT_ERROR(INTERNAL, "cannot initialise the generator's mutex");
  }
  uint64_t s[2] = {(uint64_t)int_attr(node, "seed"), (uint64_t)int_attr(node, "seed2")};
  if (s[0] == 0 && s[1] == 0) os_seeds(s);
  grt_philox_init(&st->gen, s[0], s[1]);
  *out_state = st;
  return NULL;
}

static void random_free(void* state) {
  random_state* st = state;
  if (!st) return;
  pthread_mutex_destroy(&st->mu);
  grt_free(st);
}

static grt_status* random_compute(grt_kernel_ctx* ctx, const dist_table* table) {
  random_state* st = ctx->state;
  if (!st) return GRT_ERROR(INTERNAL, "random generator has no state");
  const grt_tensor* shape_t = ctx->n_inputs > 0 ? ctx->inputs[0] : NULL;
  if (!shape_t) return GRT_ERROR(INTERNAL, "input 0 was not provided");
  grt_dtype dt;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_type(ctx, "dtype", &dt));
  const dist* d = grt_dtype_valid(dt) ? (*table)[dt] : NULL;
  if (!d) return grt_cpu_no_kernel(ctx, dt);
  if (shape_t->shape.rank != 1) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "shape must be a vector of {int32,int64}, got shape %s",
                     grt_shape_str(&shape_t->shape, buf, sizeof buf));
  }
  grt_shape s;
  GRT_RETURN_IF_ERROR(grt_cpu_read_dims(shape_t, "shape", &s));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, dt, &s, &out));
  fill_job j = {
      d, {{0}, {0}}, grt_tensor_data(out), grt_tensor_num_elements(out), grt_dtype_size(dt)};
  pthread_mutex_lock(&st->mu);
  j.base = st->gen;
  grt_philox_skip(&st->gen, (uint64_t)j.size * kReservedPerOutput);
  pthread_mutex_unlock(&st->mu);
  int64_t groups = (j.size + d->group - 1) / d->group;
  grt_parallel_for(ctx->intra_op, groups, d->cost, fill_shard, &j);
  return NULL;
}

static grt_status* random_uniform(grt_kernel_ctx* ctx) { return random_compute(ctx, &kUniform); }
static grt_status* random_normal(grt_kernel_ctx* ctx) { return random_compute(ctx, &kNormal); }
static grt_status* truncated_normal(grt_kernel_ctx* ctx) {
  return random_compute(ctx, &kTruncated);
}

/* clang-format off */
GRT_CPU_KERNEL_TABLE(random,
                     {"RandomUniform", random_uniform, random_create, random_free, 0},
                     {"RandomStandardNormal", random_normal, random_create, random_free, 0},
                     {"TruncatedNormal", truncated_normal, random_create, random_free, 0});
/* clang-format on */
