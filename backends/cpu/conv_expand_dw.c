/* _FusedExpandDepthwise (conv_expand_dw.h): an inverted residual block's
 * expansion and depthwise convolution in one pass.
 *
 * Why: a MobileNet's or EfficientNet's block expands its input with a 1x1
 * convolution (16 -> 96 channels at 112x112 in efficientnet_b0: 4.8 MB at
 * batch 1, 38.5 MB at batch 8) and reads it once, in the depthwise
 * convolution after. Written out, the expanded tensor goes to memory and
 * back (DNNL.md, "Expansion and depthwise together", has the figures).
 *
 * Here each thread takes a block of the depthwise convolution's output
 * rows (as grt_cpu_conv_rows_parallel cuts them) and keeps the expanded
 * input rows its window reaches in a ring of its own: an output row
 * needs kh rows (dilation 1; more with a dilation); the rows are expanded
 * once into the ring as the window reaches them (grt_cpu_pointwise_row,
 * with the expansion's bias and activation) and read there by the
 * depthwise kernel's row (grt_cpu_dw_row, with its bias and activation),
 * so the expanded tensor is never written whole. The ring holds the
 * window's rows in order, contiguous, so the depthwise tiles read them at
 * a fixed row stride: when the next row would not fit, the rows still
 * needed move to the front (the window's kh - 1 rows, every few rows).
 * A block's first output row expands its whole window, so the rows at the
 * blocks' edges (kh - stride of them) are expanded twice, once per
 * thread. With num_means 1 each output row's channel sums go into its
 * block's sums (per batch element) while the row is in cache, and the
 * blocks' sums make the means at the end, in block order.
 *
 * With a projection (num_project 2 or 3: MobileNetV2's blocks, whose
 * depthwise output only the 1x1 projection back to few channels reads)
 * each depthwise row goes to a row of the thread's own instead of the
 * output, and the pointwise kernel projects it from there into the
 * output row, on the residual (copied in first, unless the output is the
 * residual's own buffer). Neither the expanded tensor nor the depthwise
 * output is written whole.
 *
 * Without an expansion (num_expand 0: MobileNetV2's first block, a
 * depthwise convolution of the stem's output and its projection) there
 * is no ring: the depthwise rows read x's rows where they are, and only
 * the projection's rows are the parts' own. */
#include "backends/cpu/conv_expand_dw.h"

#include <math.h>
#include <string.h>

#include "backends/cpu/act_rows.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/conv_stem.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/dnnl_util.h"
#include "base/cancel.h"
#include "base/status.h"
#include "base/tensor.h"
#include "base/threadpool.h"

/* Rows of slack in each ring past the window's span: the rows still
 * needed move to the front once every kSlack rows expanded. */
enum { kSlack = 8 };

static int64_t g_runs; /* atomic: kernel runs */

int64_t grt_cpu_expand_dw_count(void) { return __atomic_load_n(&g_runs, __ATOMIC_RELAXED); }

typedef struct {
  const grt_cpu_conv* pw; /* one expanded row: n 1, h 1, w iw, ic K, oc C; NULL: no expansion */
  const grt_cpu_conv* dw; /* the depthwise convolution of the expanded input */
  const float* x;         /* [n, ih, iw, K]; without an expansion [n, ih, iw, C] */
  const float* we;        /* [K, C] */
  const grt_cpu_dw_epilogue* ee;
  const float* wd; /* [kh, kw, C, 1] */
  const grt_cpu_dw_epilogue* ed;
  float* out;   /* [n, oh, ow, C], or [n, oh, ow, P] with a projection */
  float* rings; /* parts x ring_rows x iw x C */
  int64_t ring_rows, parts;
  double* sums; /* NULL, or parts x n x C: each part's channel sums */
  /* The projection (NULL pj: none): one depthwise output row (n 1, h 1, w
   * ow, ic C, oc P) by wp [C, P] with ep's bias, residual and activation;
   * the depthwise rows go first to a row per part after the rings (parts
   * x ow x C). */
  const grt_cpu_conv* pj;
  const float* wp;
  const grt_cpu_dw_epilogue* ep;
  const float* residual; /* [n, oh, ow, P] to copy into out first; NULL: none or already there */
} xdw_job;

/* The geometry of one row of `width` pixels of a 1x1 convolution from ic
 * to oc channels: what grt_cpu_pointwise_row runs. */
static grt_cpu_conv one_row_1x1(int64_t width, int64_t ic, int64_t oc) {
  grt_cpu_conv g;
  memset(&g, 0, sizeof g);
  g.w.strides[0] = g.w.strides[1] = g.w.dilations[0] = g.w.dilations[1] = 1;
  g.n = g.ih = g.oh = g.kh = g.kw = g.groups = 1;
  g.iw = g.ow = width;
  g.ic = ic;
  g.oc = oc;
  return g;
}

/* The input rows [*lo, *hi) output row oy's window spans, clipped to the
 * input (with a dilation, the rows between its taps too). */
static void window_rows(const grt_cpu_conv* g, int64_t oy, int64_t* lo, int64_t* hi) {
  int64_t start = oy * g->w.strides[0] - g->pad_l[0];
  int64_t end = start + (g->kh - 1) * g->w.dilations[0] + 1;
  *lo = start < 0 ? 0 : start > g->ih ? g->ih : start;
  *hi = end > g->ih ? g->ih : end < *lo ? *lo : end;
}

/* A part's ring: the expanded rows [first, first + count) of batch
 * element b, from `rows` on. */
typedef struct {
  float* rows;
  int64_t b, first, count;
} part_ring;

/* The input rows output row r's window reaches, expanded into q where
 * they are not there yet (the rows still wanted moved to the front when
 * the next would not fit); returns where input row q->first of batch
 * element q->b lies. Without an expansion, x's own rows. */
static const float* window_input(const xdw_job* j, int64_t r, part_ring* q) {
  const grt_cpu_conv* g = j->dw;
  const int64_t row = g->iw * g->ic, rb = r / g->oh;
  if (!j->pw) {
    q->b = rb;
    q->first = 0;
    return j->x + rb * g->ih * row;
  }
  int64_t lo, hi;
  window_rows(g, r % g->oh, &lo, &hi);
  if (rb != q->b || lo >= q->first + q->count) { /* nothing in the ring is wanted */
    q->b = rb;
    q->first = lo;
    q->count = 0;
  }
  if (hi - q->first > j->ring_rows) { /* the rows still wanted to the front */
    int64_t keep = q->first + q->count - lo;
    memmove(q->rows, q->rows + (lo - q->first) * row, (size_t)(keep * row) * sizeof(float));
    q->first = lo;
    q->count = keep;
  }
  for (; q->first + q->count < hi; q->count++)
    grt_cpu_pointwise_row(j->pw, j->x + (rb * g->ih + q->first + q->count) * g->iw * j->pw->ic,
                          j->we, j->ee, q->rows + q->count * row);
  return q->rows;
}

/* Part p's output rows, one at a time (as grt_cpu_conv_rows_parallel cuts
 * them), each from its ring. */
static void run_part(const xdw_job* j, int64_t p) {
  const grt_cpu_conv* g = j->dw;
  const int64_t n_rows = g->n * g->oh, C = g->ic, row = g->iw * C;
  const int64_t r0 = p * n_rows / j->parts, r1 = (p + 1) * n_rows / j->parts;
  part_ring q = {j->rings + p * j->ring_rows * row, -1, 0, 0};
  const grt_cancel_token* cancel = grt_cancel_current();
  for (int64_t r = r0; r < r1; r++) {
    if (r > r0 && grt_cancel_check(cancel) != GRT_OK) return;
    const float* rows = window_input(j, r, &q);
    /* With a projection the depthwise row goes to the part's own row and,
     * still in cache, is projected into the output row. */
    float* dw_row =
        j->pj ? j->rings + (j->parts * j->ring_rows * row + p * g->ow * C) : j->out + r * g->ow * C;
    grt_cpu_dw_row(g, r, rows, q.first, j->wd, j->ed, dw_row);
    if (j->sums) grt_cpu_channel_sums(dw_row, g->ow, C, j->sums + (p * g->n + q.b) * C);
    if (!j->pj) continue;
    const int64_t prow = g->ow * j->pj->oc;
    if (j->residual)
      memcpy(j->out + r * prow, j->residual + r * prow, (size_t)prow * sizeof(float));
    grt_cpu_pointwise_row(j->pj, dw_row, j->wp, j->ep, j->out + r * prow);
  }
}

static void run_parts(void* arg, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; p++) run_part(arg, p);
}

/* ---- the kernel ----------------------------------------------------------- */

/* Attr `name` (an activation, by _FusedConv2D's fused_ops names:
 * grt_cpu_fused_act) and, for LeakyRelu, `alpha_name` into e. Elu is
 * refused: the depthwise kernel has no form of it. */
static grt_status* read_act(const grt_kernel_ctx* ctx, const char* name, const char* alpha_name,
                            grt_cpu_dw_epilogue* e) {
  const char* v = "";
  GRT_RETURN_IF_ERROR(grt_kernel_attr_string(ctx, name, &v));
  bool from_attr = false;
  if (!v[0]) {
    e->act = GRT_DW_ACT_NONE;
    return NULL;
  }
  if (grt_cpu_fused_act(v, &e->act, &e->alpha, &from_attr) && e->act != GRT_DW_ACT_ELU)
    return from_attr ? grt_kernel_attr_float(ctx, alpha_name, &e->alpha) : NULL;
  return GRT_ERROR(INVALID_ARGUMENT,
                   "attr '%s' is '%s': expected '' (none), Relu, Relu6, LeakyRelu, Sigmoid, Tanh, "
                   "_HardSwish or _Swish",
                   name, v);
}

/* The inputs' shapes against each other: x [N, H, W, K], expand_filter
 * [1, 1, K, C] and expand_bias [C] (ne 2; ne 0: none, and K is C), filter
 * [kh, kw, C, 1], bias [C] (the projection's: read_project). */
static grt_status* check_shapes(grt_tensor* const* in, int32_t ne) {
  char b0[GRT_SHAPE_STR_MAX], b1[GRT_SHAPE_STR_MAX];
  const grt_shape *x = &in[0]->shape, *f = &in[1 + ne]->shape;
  if (x->rank != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "input must be [N, H, W, K], got %s",
                     grt_cpu_shape_str(x, b0));
  int64_t c = x->dims[3];
  if (ne) {
    const grt_shape* we = &in[1]->shape;
    if (we->rank != 4 || we->dims[0] != 1 || we->dims[1] != 1 || we->dims[2] != x->dims[3])
      return GRT_ERROR(INVALID_ARGUMENT,
                       "expand_filter must be [1, 1, K, C] for an input [N, H, W, K]: got input "
                       "%s and expand_filter %s",
                       grt_cpu_shape_str(x, b0), grt_cpu_shape_str(we, b1));
    c = we->dims[3];
  }
  if (f->rank != 4 || f->dims[2] != c || f->dims[3] != 1)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "filter must be [kh, kw, %lld, 1] (one output channel per %s channel), "
                     "got %s",
                     (long long)c, ne ? "expanded" : "input", grt_cpu_shape_str(f, b0));
  /* The biases: expand_bias at 2 and bias at 4, or bias alone at 2. */
  for (int32_t i = 2; i <= 2 + ne; i += 2)
    if (in[i]->shape.rank != 1 || in[i]->shape.dims[0] != c)
      return GRT_ERROR(INVALID_ARGUMENT, "%s must be a vector of %lld elements, got %s",
                       i == 2 && ne ? "expand_bias" : "bias", (long long)c,
                       grt_cpu_shape_str(&in[i]->shape, b0));
  return NULL;
}

/* The projection's inputs from input `at` on (num_project 2: filter [1,
 * 1, C, P] and bias [P]; 3: and a residual of the output's shape os, on
 * entry the depthwise output's) into *pj (one row of ow pixels) and ep;
 * os becomes the output's shape. */
static grt_status* read_project(grt_kernel_ctx* ctx, int32_t at, int64_t num_project, grt_shape* os,
                                grt_cpu_conv* pj, grt_cpu_dw_epilogue* ep) {
  char b0[GRT_SHAPE_STR_MAX], b1[GRT_SHAPE_STR_MAX];
  const grt_shape* f = &ctx->inputs[at]->shape;
  int64_t c = os->dims[3];
  if (f->rank != 4 || f->dims[0] != 1 || f->dims[1] != 1 || f->dims[2] != c)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "the projection filter must be [1, 1, %lld, P] for a depthwise output of "
                     "%lld channels, got %s",
                     (long long)c, (long long)c, grt_cpu_shape_str(f, b0));
  int64_t p = f->dims[3];
  const grt_shape* bs = &ctx->inputs[at + 1]->shape;
  if (bs->rank != 1 || bs->dims[0] != p)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "the projection bias must be a vector of %lld elements, got %s", (long long)p,
                     grt_cpu_shape_str(bs, b0));
  os->dims[3] = p;
  if (num_project == 3 && !grt_shape_equal(&ctx->inputs[at + 2]->shape, os))
    return GRT_ERROR(INVALID_ARGUMENT, "the residual has shape %s, the projection's output %s",
                     grt_cpu_shape_str(&ctx->inputs[at + 2]->shape, b0), grt_cpu_shape_str(os, b1));
  *pj = one_row_1x1(os->dims[2], c, p);
  *ep = (grt_cpu_dw_epilogue){grt_cpu_data(ctx->inputs[at + 1]), num_project == 3, GRT_DW_ACT_NONE,
                              0.0f};
  return read_act(ctx, "project_act", "project_leakyrelu_alpha", ep);
}

grt_status* grt_cpu_fused_expand_depthwise(grt_kernel_ctx* ctx) {
  static const char kOp[] = "_FusedExpandDepthwise";
  int64_t num_project = 0, num_expand = 2;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "num_project", &num_project));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "num_expand", &num_expand));
  /* An expansion (2) or none (0, then a projection is required). */
  bool expand_ok = num_expand == 2 || (num_expand == 0 && num_project != 0);
  if (!expand_ok || (num_project != 0 && num_project != 2 && num_project != 3) ||
      ctx->n_inputs != 3 + num_expand + num_project)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "%s takes input, expand_filter and expand_bias as num_expand (2, or 0 with a "
                     "projection: %lld) says, filter and bias, then the projection's filter, bias "
                     "and residual as num_project (0, 2 or 3: %lld) says, got %d inputs",
                     kOp, (long long)num_expand, (long long)num_project, (int)ctx->n_inputs);
  /* The inputs: x, the expansion's (ne), the depthwise filter and bias (at
   * f), the projection's (at f + 2). */
  const int32_t ne = (int32_t)num_expand, f = 1 + ne;
  for (int32_t i = 0; i < ctx->n_inputs; i++) {
    if (!ctx->inputs[i]) return GRT_ERROR(INVALID_ARGUMENT, "%s: input %d is missing", kOp, (int)i);
    GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, ctx->inputs[i]->dtype));
  }
  const char* format = "NHWC";
  GRT_RETURN_IF_ERROR(grt_kernel_attr_string(ctx, "data_format", &format));
  if (strcmp(format, "NHWC") != 0)
    return GRT_ERROR(INVALID_ARGUMENT, "%s runs in NHWC only, got data_format '%s'", kOp, format);
  GRT_RETURN_IF_ERROR(check_shapes(ctx->inputs, ne));
  const grt_tensor* x = ctx->inputs[0];
  int64_t num_means = 0;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "num_means", &num_means));
  if (num_means < 0 || num_means > 1 || ctx->n_outputs != 1 + num_means ||
      (num_means && num_project))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "%s: num_means %lld with %d outputs (0 or 1; 0 with a projection)", kOp,
                     (long long)num_means, (int)ctx->n_outputs);
  grt_cpu_dw_epilogue ee = {ne ? grt_cpu_data(ctx->inputs[2]) : NULL, false, GRT_DW_ACT_NONE, 0.0f};
  grt_cpu_dw_epilogue ed = {grt_cpu_data(ctx->inputs[f + 1]), false, GRT_DW_ACT_NONE, 0.0f};
  if (ne) GRT_RETURN_IF_ERROR(read_act(ctx, "expand_act", "expand_leakyrelu_alpha", &ee));
  GRT_RETURN_IF_ERROR(read_act(ctx, "act", "leakyrelu_alpha", &ed));
  /* The depthwise convolution of the expanded input [N, H, W, C] (without
   * an expansion, of x). */
  grt_shape xs = x->shape;
  if (ne) xs.dims[3] = ctx->inputs[1]->shape.dims[3];
  grt_cpu_conv g;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_make(ctx, &xs, &ctx->inputs[f]->shape, true, &g));
  grt_shape os, ms = {4, {g.n, 1, 1, g.oc}};
  grt_cpu_conv_output_shape(&g, &os);
  grt_cpu_conv pj = {0};
  grt_cpu_dw_epilogue ep = {0};
  if (num_project) GRT_RETURN_IF_ERROR(read_project(ctx, f + 2, num_project, &os, &pj, &ep));
  /* The residual is summed into the output: its own buffer when this node
   * is its last reader, else copied row by row (run_part). */
  const grt_tensor* res = num_project == 3 ? ctx->inputs[f + 4] : NULL;
  grt_tensor *out = NULL, *means = NULL;
  GRT_RETURN_IF_ERROR(
      res ? grt_kernel_forward_or_alloc_output(ctx, f + 4, 0, GRT_FLOAT32, &os, &out)
          : grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  if (num_means) GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 1, GRT_FLOAT32, &ms, &means));
  if (g.n == 0 || g.oh == 0 || g.ow == 0 || os.dims[3] == 0) { /* no output */
    if (means) grt_cpu_channel_means(NULL, 0, g.n * g.oc, g.oh * g.ow, grt_cpu_data(means));
    return NULL;
  }
  __atomic_add_fetch(&g_runs, 1, __ATOMIC_RELAXED);
  /* One expanded row: iw pixels. */
  const grt_cpu_conv pw = one_row_1x1(g.iw, x->shape.dims[3], g.oc);
  /* A team as oneDNN's would be for the layers' work. */
  double work =
      (ne ? (double)g.n * (double)g.ih * (double)g.iw * (double)pw.ic * (double)g.oc : 0.0) +
      grt_cpu_conv_team_work(&g) +
      (num_project ? (double)g.n * (double)g.oh * (double)g.ow * (double)g.oc * (double)pj.oc
                   : 0.0);
  int64_t parts = grt_dnnl_team(ctx, work), n_rows = g.n * g.oh;
  if (parts > n_rows) parts = n_rows;
  if (parts < 1) parts = 1;
  /* Without an expansion the depthwise rows read x's rows: no ring. */
  int64_t ring_rows = ne ? (g.kh - 1) * g.w.dilations[0] + 1 + kSlack : 0;
  /* Each part's ring, then (with a projection) each part's depthwise row. */
  grt_shape rs = {1, {parts * ring_rows * g.iw * g.oc + (num_project ? parts * g.ow * g.oc : 0)}},
            ss = {1, {parts * g.n * g.oc}};
  grt_tensor *rings = NULL, *sums = NULL;
  grt_status* s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &rs, &rings);
  if (!s && means) s = grt_kernel_alloc_temp(ctx, GRT_FLOAT64, &ss, &sums);
  if (!s) {
    if (sums) memset(grt_cpu_data(sums), 0, (size_t)ss.dims[0] * sizeof(double));
    xdw_job j = {ne ? &pw : NULL,
                 &g,
                 grt_cpu_data(x),
                 ne ? grt_cpu_data(ctx->inputs[1]) : NULL,
                 &ee,
                 grt_cpu_data(ctx->inputs[f]),
                 &ed,
                 grt_cpu_data(out),
                 grt_cpu_data(rings),
                 ring_rows,
                 parts,
                 sums ? grt_cpu_data(sums) : NULL,
                 num_project ? &pj : NULL,
                 num_project ? grt_cpu_data(ctx->inputs[f + 2]) : NULL,
                 &ep,
                 res && grt_cpu_data(res) != grt_cpu_data(out) ? grt_cpu_data(res) : NULL};
    /* One part per thread: a cost this high per unit is never run inline. */
    grt_parallel_for_coarse(parts > 1 ? ctx->intra_op : NULL, parts, INT64_C(1) << 30, run_parts,
                            &j);
    if (means)
      grt_cpu_channel_means(grt_cpu_data(sums), parts, g.n * g.oc, g.oh * g.ow,
                            grt_cpu_data(means));
  }
  grt_tensor_free(rings);
  grt_tensor_free(sums);
  return s;
}
