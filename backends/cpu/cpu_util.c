/* Broadcast plans, the loops that run row functions over them, and half
 * widening (see cpu_util.h). */
#include "backends/cpu/cpu_util.h"

GRT_CPU_VECTORIZE

#include <string.h>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

const char* grt_cpu_shape_str(const grt_shape* s, char* buf) {
  return grt_shape_str(s, buf, GRT_SHAPE_STR_MAX);
}

grt_status* grt_cpu_read_dims(const grt_tensor* t, const char* what, grt_shape* out) {
  int64_t dims[GRT_MAX_RANK];
  int32_t rank;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t, what, dims, GRT_MAX_RANK, &rank));
  for (int32_t i = 0; i < rank; i++)
    if (dims[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[i]);
  *out = grt_shape_make(rank, dims);
  return NULL;
}

grt_status* grt_cpu_no_kernel(const grt_kernel_ctx* ctx, grt_dtype t) {
  return GRT_ERROR(UNIMPLEMENTED, "%s has no CPU kernel for T=%s", ctx->node->op,
                   grt_dtype_name(t));
}

/* ---- broadcasting ------------------------------------------------------- */

grt_status* grt_cpu_bcast_make(const grt_shape* x, const grt_shape* y, grt_cpu_bcast* out) {
  int32_t rank = x->rank > y->rank ? x->rank : y->rank;
  int64_t dx[GRT_MAX_RANK], dy[GRT_MAX_RANK];
  for (int32_t i = 0; i < rank; i++) {
    int32_t ix = i - (rank - x->rank), iy = i - (rank - y->rank);
    dx[i] = ix >= 0 ? x->dims[ix] : 1;
    dy[i] = iy >= 0 ? y->dims[iy] : 1;
  }
  out->out.rank = rank;
  out->n = 1;
  for (int32_t i = 0; i < rank; i++) {
    int64_t d;
    if (dx[i] == dy[i] || dy[i] == 1)
      d = dx[i];
    else if (dx[i] == 1)
      d = dy[i];
    else {
      char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", grt_cpu_shape_str(x, a),
                       grt_cpu_shape_str(y, b));
    }
    out->out.dims[i] = d;
    out->n *= d;
  }
  /* Strides of the padded shapes, innermost first. */
  int64_t stride_x[GRT_MAX_RANK], stride_y[GRT_MAX_RANK];
  int64_t px = 1, py = 1;
  for (int32_t i = rank - 1; i >= 0; i--) {
    stride_x[i] = px;
    stride_y[i] = py;
    px *= dx[i];
    py *= dy[i];
  }
  /* Loop dims: drop output dims of 1; merge a dim into the one before when
   * both operands broadcast (or not) in both. */
  int32_t r = 0;
  bool prev_bx = false, prev_by = false;
  for (int32_t i = 0; i < rank; i++) {
    int64_t d = out->out.dims[i];
    if (d == 1) continue;
    bool bx = dx[i] != d, by = dy[i] != d;
    if (r > 0 && bx == prev_bx && by == prev_by) {
      out->dims[r - 1] *= d;
    } else {
      out->dims[r] = d;
      r++;
    }
    out->sx[r - 1] = bx ? 0 : stride_x[i];
    out->sy[r - 1] = by ? 0 : stride_y[i];
    prev_bx = bx;
    prev_by = by;
  }
  if (r == 0) { /* one element */
    out->dims[0] = 1;
    out->sx[0] = 0;
    out->sy[0] = 0;
    r = 1;
  }
  out->rank = r;
  return NULL;
}

typedef struct {
  const grt_cpu_bcast* b;
  grt_cpu_binary_row row;
  const char* x;
  const char* y;
  char* z;
  size_t in_size, out_size;
} bcast_job;

/* Rows [r0, r1) of the plan; a row is the innermost loop dimension. */
static void bcast_rows(void* arg, int64_t r0, int64_t r1) {
  const bcast_job* j = arg;
  const grt_cpu_bcast* b = j->b;
  int32_t outer = b->rank - 1;
  int64_t inner = b->dims[outer];
  int64_t isx = b->sx[outer], isy = b->sy[outer];
  int64_t idx[GRT_MAX_RANK];
  int64_t ox = 0, oy = 0, r = r0;
  for (int32_t d = outer - 1; d >= 0; d--) {
    idx[d] = r % b->dims[d];
    r /= b->dims[d];
    ox += idx[d] * b->sx[d];
    oy += idx[d] * b->sy[d];
  }
  for (int64_t row = r0; row < r1; row++) {
    j->row(inner, j->x + (size_t)ox * j->in_size, isx, j->y + (size_t)oy * j->in_size, isy,
           j->z + (size_t)(row * inner) * j->out_size);
    for (int32_t d = outer - 1; d >= 0; d--) {
      ox += b->sx[d];
      oy += b->sy[d];
      if (++idx[d] < b->dims[d]) break;
      ox -= b->sx[d] * b->dims[d];
      oy -= b->sy[d] * b->dims[d];
      idx[d] = 0;
    }
  }
}

void grt_cpu_bcast_run(const grt_cpu_bcast* b, grt_cpu_binary_row row, const void* x, const void* y,
                       size_t in_size, void* z, size_t out_size, int64_t cost_ns,
                       grt_threadpool* pool) {
  if (b->n == 0) return;
  if (b->rank == 1) {
    grt_cpu_binary_run_flat(row, b->n, x, b->sx[0], y, b->sy[0], in_size, z, out_size, cost_ns,
                            pool);
    return;
  }
  bcast_job j = {b, row, x, y, z, in_size, out_size};
  int64_t inner = b->dims[b->rank - 1];
  grt_parallel_for(pool, b->n / inner, inner * cost_ns, bcast_rows, &j);
}

typedef struct {
  grt_cpu_binary_row row;
  const char* x;
  const char* y;
  char* z;
  int64_t sx, sy;
  size_t in_size, out_size;
} flat_job;

static void flat_range(void* arg, int64_t b, int64_t e) {
  const flat_job* j = arg;
  j->row(e - b, j->x + (size_t)(b * j->sx) * j->in_size, j->sx,
         j->y + (size_t)(b * j->sy) * j->in_size, j->sy, j->z + (size_t)b * j->out_size);
}

/* Below this many element-nanoseconds the work is never split, so small
 * tensors skip building a job. */
#define GRT_CPU_INLINE_COST 32768

void grt_cpu_binary_run_flat(grt_cpu_binary_row row, int64_t n, const void* x, int64_t sx,
                             const void* y, int64_t sy, size_t in_size, void* z, size_t out_size,
                             int64_t cost_ns, grt_threadpool* pool) {
  if (!pool || n * cost_ns < GRT_CPU_INLINE_COST) {
    if (n > 0) row(n, x, sx, y, sy, z);
    return;
  }
  flat_job j = {row, x, y, z, sx, sy, in_size, out_size};
  grt_parallel_for(pool, n, cost_ns, flat_range, &j);
}

typedef struct {
  grt_cpu_unary_row row;
  const char* x;
  char* y;
  size_t in_size, out_size;
} unary_job;

static void unary_range(void* arg, int64_t b, int64_t e) {
  const unary_job* j = arg;
  j->row(e - b, j->x + (size_t)b * j->in_size, j->y + (size_t)b * j->out_size);
}

void grt_cpu_unary_run(grt_cpu_unary_row row, int64_t n, const void* x, size_t in_size, void* y,
                       size_t out_size, int64_t cost_ns, grt_threadpool* pool) {
  if (!pool || n * cost_ns < GRT_CPU_INLINE_COST) {
    if (n > 0) row(n, x, y);
    return;
  }
  unary_job j = {row, x, y, in_size, out_size};
  grt_parallel_for(pool, n, cost_ns, unary_range, &j);
}

/* ---- float16 / bfloat16 ------------------------------------------------- */

void grt_cpu_widen(grt_dtype t, const void* in, float* out, int64_t n) {
  const uint16_t* h = in;
  if (t == GRT_BFLOAT16) {
    for (int64_t i = 0; i < n; i++) {
      uint32_t u = (uint32_t)h[i] << 16;
      memcpy(&out[i], &u, sizeof u);
    }
  } else {
    for (int64_t i = 0; i < n; i++) out[i] = grt_half_to_float(h[i]);
  }
}

void grt_cpu_narrow(grt_dtype t, const float* in, void* out, int64_t n) {
  uint16_t* h = out;
  if (t == GRT_BFLOAT16) {
    for (int64_t i = 0; i < n; i++) h[i] = grt_float_to_bfloat16(in[i]);
  } else {
    for (int64_t i = 0; i < n; i++) h[i] = grt_float_to_half(in[i]);
  }
}

grt_status* grt_cpu_widen_tensor(grt_kernel_ctx* ctx, const grt_tensor* t, grt_tensor** out) {
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &t->shape, out));
  grt_cpu_widen(t->dtype, grt_tensor_data(t), grt_tensor_data(*out), grt_tensor_num_elements(t));
  return NULL;
}

int grt_cpu_vector_width(int force) {
  if (force) return force;
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  if (__builtin_cpu_supports("x86-64-v4")) return 16;
  if (__builtin_cpu_supports("x86-64-v3")) return 8;
#endif
  return 4;
}

bool grt_cpu_vector_width_runs(int width) {
  if (width != 0 && width != 4 && width != 8 && width != 16) return false;
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  if (width == 16) return __builtin_cpu_supports("x86-64-v4");
  if (width == 8) return __builtin_cpu_supports("x86-64-v3");
  return true;
#else
  return width <= 4;
#endif
}
