/* Convolution sizes and their oneDNN descriptors (backends/cpu/conv.h). */
#include "backends/cpu/conv.h"

#include "base/dtype.h"
#include "base/status.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/dnnl_util.h"
#include "base/cancel.h"
#include "base/threadpool.h"

grt_status* grt_cpu_conv_need_f32(const grt_kernel_ctx* ctx, grt_dtype t) {
  return t == GRT_FLOAT32 ? NULL : grt_cpu_no_kernel(ctx, t);
}

grt_status* grt_cpu_conv_make(const grt_kernel_ctx* ctx, const grt_shape* in,
                              const grt_shape* filter, bool depthwise, grt_cpu_conv* out) {
  grt_cpu_conv* g = out;
  GRT_RETURN_IF_ERROR(grt_op_window(ctx, GRT_WINDOW_DILATIONS, &g->w));
  /* Ranks and depths: the checks every backend shares. */
  GRT_RETURN_IF_ERROR(grt_op_conv_depths(in, filter, g->w.nchw, depthwise, &g->groups, &g->oc));
  int32_t h = grt_window_h(&g->w);
  g->n = in->dims[0];
  g->ih = in->dims[h];
  g->iw = in->dims[h + 1];
  g->ic = in->dims[grt_window_c(&g->w)];
  g->kh = filter->dims[0];
  g->kw = filter->dims[1];
  GRT_RETURN_IF_ERROR(grt_window_dim(&g->w, 0, g->ih, g->kh, &g->oh, &g->pad_l[0], &g->pad_r[0]));
  return grt_window_dim(&g->w, 1, g->iw, g->kw, &g->ow, &g->pad_l[1], &g->pad_r[1]);
}

static void activation_shape(const grt_cpu_conv* g, int64_t h, int64_t w, int64_t c,
                             grt_shape* out) {
  out->rank = 4;
  out->dims[0] = g->n;
  if (g->w.nchw) {
    out->dims[1] = c;
    out->dims[2] = h;
    out->dims[3] = w;
  } else {
    out->dims[1] = h;
    out->dims[2] = w;
    out->dims[3] = c;
  }
}

void grt_cpu_conv_input_shape(const grt_cpu_conv* g, grt_shape* out) {
  activation_shape(g, g->ih, g->iw, g->ic, out);
}

void grt_cpu_conv_output_shape(const grt_cpu_conv* g, grt_shape* out) {
  activation_shape(g, g->oh, g->ow, g->oc, out);
}

grt_status* grt_cpu_conv_mds(const grt_cpu_conv* g, dnnl_memory_desc_t* src,
                             dnnl_memory_desc_t* dst, dnnl_memory_desc_t* filter) {
  GRT_RETURN_IF_ERROR(grt_dnnl_md_activation(g->w.nchw, g->n, g->ic, g->ih, g->iw, src));
  GRT_RETURN_IF_ERROR(grt_dnnl_md_activation(g->w.nchw, g->n, g->oc, g->oh, g->ow, dst));
  int64_t icg = g->ic / g->groups, ocg = g->oc / g->groups;
  if (g->groups == 1) {
    dnnl_dims_t d = {g->oc, g->ic, g->kh, g->kw};
    return grt_dnnl_check(dnnl_memory_desc_init_by_tag(filter, 4, d, dnnl_f32, dnnl_hwio),
                          "oneDNN filter descriptor");
  }
  /* HWIO with the output channel split as (group, channel in group):
   * element [kh][kw][i][g * ocg + o]. */
  dnnl_dims_t d = {g->groups, ocg, icg, g->kh, g->kw};
  dnnl_dims_t s = {ocg, 1, g->oc, g->kw * icg * g->oc, icg * g->oc};
  return grt_dnnl_check(dnnl_memory_desc_init_by_strides(filter, 5, d, dnnl_f32, s),
                        "oneDNN filter descriptor");
}

int32_t grt_cpu_conv_key(const grt_cpu_conv* g, int64_t* key) {
  int64_t v[] = {g->n, g->ih, g->iw, g->ic, g->oh, g->ow, g->oc, g->kh, g->kw, g->groups};
  int32_t n = (int32_t)(sizeof v / sizeof v[0]);
  for (int32_t i = 0; i < n; i++) key[i] = v[i];
  return n;
}

double grt_cpu_conv_macs(const grt_cpu_conv* g) {
  double per_output = (double)g->kh * (double)g->kw * (double)(g->ic / (g->groups ? g->groups : 1));
  return (double)g->n * (double)g->oh * (double)g->ow * (double)g->oc * per_output;
}

double grt_cpu_conv_team_work(const grt_cpu_conv* g) {
  /* Each multiply-add of a depthwise convolution loads its own input and
   * filter element and the layer waits on memory: on this 2-vCPU AVX-512
   * host 14x14x576 3x3 ran at ~15 G multiply-adds/s on one thread, the 1x1
   * convolutions beside it at ~50 per thread. */
  bool depthwise = g->groups > 1 && g->groups == g->ic;
  return grt_cpu_conv_macs(g) * (depthwise ? 4.0 : 1.0);
}

typedef struct {
  void (*rows)(const void* ctx, int64_t r0, int64_t r1);
  const void* ctx;
  int64_t n_rows, parts;
} rows_call;

/* Parts [p0, p1): their rows, one at a time, the cancellation checked
 * between them (grt_parallel_for_coarse leaves that to its caller). */
static void rows_parts(void* arg, int64_t p0, int64_t p1) {
  const rows_call* c = arg;
  const grt_cancel_token* cancel = grt_cancel_current();
  int64_t r0 = p0 * c->n_rows / c->parts, r1 = p1 * c->n_rows / c->parts;
  for (int64_t r = r0; r < r1; r++) {
    if (r > r0 && grt_cancel_check(cancel) != GRT_OK) return;
    c->rows(c->ctx, r, r + 1);
  }
}

void grt_cpu_conv_rows_parallel(grt_threadpool* pool, const grt_cpu_conv* g,
                                void (*rows)(const void* ctx, int64_t r0, int64_t r1),
                                const void* ctx) {
  int64_t n_rows = g->n * g->oh;
  int64_t team = grt_dnnl_team_in(pool, grt_cpu_conv_team_work(g));
  if (team > n_rows) team = n_rows;
  if (team < 1) team = 1;
  rows_call c = {rows, ctx, n_rows, team};
  /* One part per thread, each a shard of its own: grt_parallel_for_coarse
   * runs n units on at most n threads, and a cost this high per unit is
   * never run inline. */
  grt_parallel_for_coarse(team > 1 ? pool : NULL, team, INT64_C(1) << 30, rows_parts, &c);
}

grt_status* grt_cpu_sizes_input(const grt_tensor* t, const char* what, grt_shape* out) {
  int64_t d[4];
  int32_t n = 0;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t, what, d, 4, &n));
  if (n != 4) return GRT_ERROR(INVALID_ARGUMENT, "%s must have 4 elements, got %d", what, (int)n);
  out->rank = 4;
  for (int32_t i = 0; i < 4; i++) {
    if (d[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "%s must be non-negative, got %lld", what,
                       (long long)d[i]);
    out->dims[i] = d[i];
  }
  return NULL;
}
