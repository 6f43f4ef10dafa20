/* Pass "bn_fold": an inference batch norm (or any per-channel scale and
 * shift) after a convolution with a constant filter is folded into the
 * filter and a bias, so Conv + BN becomes Conv + BiasAdd, which
 * conv_fusion then fuses:
 *
 *   Conv2D | DepthwiseConv2dNative (filter: a Const, or a Transpose of one
 *   by a constant permutation: the ONNX importer's OIHW -> HWIO)
 *     -> BiasAdd (optional)
 *     -> any chain of Mul, AddV2/Add, Sub, RealDiv by per-channel
 *        constants (the ONNX importer's BatchNormalization:
 *        (x - mean) * rsqrt(var + eps) * scale + bias, the parameters
 *        reshaped to [C, 1, 1]), or FusedBatchNorm/V3 with is_training
 *        false and only its y used.
 *
 * Per-channel constants are computed here on the host, in double: a Const,
 * a Reshape of one, Rsqrt/Sqrt/Neg/Reciprocal of one, and the element-wise
 * binary ops of two, when every value in between has one element or one
 * per output channel. The chain is y = a * conv + b per channel; the new
 * filter is W * a over its output channels (HWIO's last axis; a depthwise
 * filter's last two), the bias b, both rounded to float32 once. The
 * BiasAdd takes the chain's last name. */
#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "optimizer/passes.h"

static bool is_op(const grt_node* n, const char* op) { return strcmp(n->op, op) == 0; }

static const grt_shape* shape_of(grt_opt_ctx* c, int32_t i, int32_t port) {
  static const grt_shape kUnknown = {.rank = -1};
  const grt_shape* s = i >= 0 ? grt_opt_output_shape(c, i, port) : NULL;
  return s ? s : &kUnknown;
}

static int64_t numel(const grt_shape* s) {
  if (s->rank < 0) return -1;
  int64_t n = 1;
  for (int32_t d = 0; d < s->rank; d++) {
    if (s->dims[d] < 0) return -1;
    n *= s->dims[d];
  }
  return n;
}

/* The one node reading node v (output 0), or -1. */
static int32_t sole_consumer(grt_opt_ctx* c, int32_t v, int32_t* out_input) {
  const grt_opt_use* u;
  if (grt_opt_num_data_uses(c, v) != 1 || grt_opt_uses(c, v, -1, &u) != 0) return -1;
  if (grt_opt_uses(c, v, 0, &u) != 1 || u[0].input < 0) return -1;
  *out_input = u[0].input;
  return u[0].node;
}

static bool joinable(grt_opt_ctx* c, int32_t conv, int32_t j) {
  const grt_node* n = grt_opt_node(c, j);
  const grt_opt_use* u;
  return !grt_opt_is_dead(c, j) && !grt_opt_is_fixed(c, j) && n->n_controls == 0 &&
         grt_opt_uses(c, j, -1, &u) == 0 && grt_opt_output_type(c, j, 0) == GRT_FLOAT32 &&
         strcmp(n->device, grt_opt_node(c, conv)->device) == 0;
}

/* ---- per-channel constants ------------------------------------------- */

enum { MAX_DEPTH = 8 };

/* The value of output (i, port) as `oc` doubles (a one-element value
 * repeated), when it is a constant computed from Consts by the ops above.
 * Flat order: a per-channel value of any rank lists its channels in
 * order. */
static bool chan_value(grt_opt_ctx* c, int32_t i, int32_t port, int64_t oc, double* out,
                       int depth) {
  if (i < 0 || depth > MAX_DEPTH || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i)) return false;
  const grt_node* n = grt_opt_node(c, i);
  if (n->n_controls > 0 || grt_opt_output_type(c, i, port) != GRT_FLOAT32) return false;
  int64_t k = numel(shape_of(c, i, port));
  if (k != 1 && k != oc) return false;
  const grt_tensor* t = grt_opt_const_value(c, i);
  if (t) {
    if (grt_tensor_num_elements(t) != k) return false;
    const float* v = grt_tensor_data(t);
    for (int64_t e = 0; e < oc; e++) out[e] = v[k == 1 ? 0 : e];
    return true;
  }
  int32_t p0, p1;
  int32_t a = grt_opt_input_node(c, i, 0, &p0), b = grt_opt_input_node(c, i, 1, &p1);
  if (is_op(n, "Reshape") || is_op(n, "Identity"))
    return numel(shape_of(c, a, p0)) == k && chan_value(c, a, p0, oc, out, depth + 1);
  static const char* const kUnary[] = {"Rsqrt", "Sqrt", "Neg", "Reciprocal"};
  for (int u = 0; u < 4; u++)
    if (is_op(n, kUnary[u])) {
      if (n->n_inputs != 1 || !chan_value(c, a, p0, oc, out, depth + 1)) return false;
      for (int64_t e = 0; e < oc; e++)
        out[e] = u == 0   ? 1.0 / sqrt(out[e])
                 : u == 1 ? sqrt(out[e])
                 : u == 2 ? -out[e]
                          : 1.0 / out[e];
      return true;
    }
  bool add = is_op(n, "AddV2") || is_op(n, "Add"), sub = is_op(n, "Sub"), mul = is_op(n, "Mul"),
       div = is_op(n, "RealDiv");
  if (!(add || sub || mul || div) || n->n_inputs != 2) return false;
  /* Both operands one element or the same shape: no broadcast between
   * differently laid out vectors. */
  const grt_shape *sa = shape_of(c, a, p0), *sb = shape_of(c, b, p1);
  if (numel(sa) != 1 && numel(sb) != 1 && !grt_shape_equal(sa, sb)) return false;
  double* y = grt_malloc((size_t)oc * sizeof *y);
  if (!y) return false;
  bool ok = chan_value(c, a, p0, oc, out, depth + 1) && chan_value(c, b, p1, oc, y, depth + 1);
  for (int64_t e = 0; ok && e < oc; e++)
    out[e] = add ? out[e] + y[e] : sub ? out[e] - y[e] : mul ? out[e] * y[e] : out[e] / y[e];
  grt_free(y);
  return ok;
}

/* Whether a broadcast operand of shape s against the convolution's output
 * (rank 4, channels at `caxis`) is per channel or one element. */
static bool per_channel_shape(const grt_shape* s, int32_t caxis, int64_t oc) {
  int64_t k = numel(s);
  if (k == 1) return true;
  if (k != oc || s->rank > 4) return false;
  int32_t at = caxis - (4 - s->rank); /* s is aligned to the right */
  return at >= 0 && s->dims[at] == oc;
}

/* ---- the filter ------------------------------------------------------- */

/* The constant filter of convolution i as HWIO floats (a new tensor), or
 * NULL: a Const, or a rank-4 Transpose of one by a constant permutation. */
static grt_tensor* filter_value(grt_opt_ctx* c, int32_t i) {
  int32_t port, f = grt_opt_input_node(c, i, 1, &port);
  if (f < 0 || port != 0) return NULL;
  const grt_tensor* t = grt_opt_const_value(c, f);
  grt_tensor* out = NULL;
  if (t) {
    if (grt_tensor_dtype(t) != GRT_FLOAT32 || grt_tensor_rank(t) != 4) return NULL;
    int64_t dims[4];
    for (int d = 0; d < 4; d++) dims[d] = grt_tensor_dim(t, d);
    grt_status* s = grt_tensor_new(GRT_FLOAT32, 4, dims, &out);
    if (s) {
      grt_status_free(s);
      return NULL;
    }
    memcpy(grt_tensor_data(out), grt_tensor_data(t), grt_tensor_byte_size(t));
    return out;
  }
  const grt_node* n = grt_opt_node(c, f);
  if (!is_op(n, "Transpose") || n->n_controls > 0 || grt_opt_is_fixed(c, f)) return NULL;
  int32_t sp, pp;
  const grt_tensor* src = grt_opt_const_value(c, grt_opt_input_node(c, f, 0, &sp));
  int32_t pn = grt_opt_input_node(c, f, 1, &pp);
  const grt_tensor* perm = pn >= 0 ? grt_opt_const_value(c, pn) : NULL;
  if (!src || !perm || grt_tensor_dtype(src) != GRT_FLOAT32 || grt_tensor_rank(src) != 4 ||
      grt_tensor_num_elements(perm) != 4)
    return NULL;
  int64_t p[4], sd[4], od[4], ss[4];
  for (int d = 0; d < 4; d++) {
    p[d] = grt_tensor_dtype(perm) == GRT_INT64 ? ((const int64_t*)grt_tensor_data(perm))[d]
                                               : ((const int32_t*)grt_tensor_data(perm))[d];
    if (p[d] < 0 || p[d] > 3) return NULL;
    sd[d] = grt_tensor_dim(src, d);
  }
  ss[3] = 1;
  for (int d = 2; d >= 0; d--) ss[d] = ss[d + 1] * sd[d + 1];
  for (int d = 0; d < 4; d++) od[d] = sd[p[d]];
  grt_status* s = grt_tensor_new(GRT_FLOAT32, 4, od, &out);
  if (s) {
    grt_status_free(s);
    return NULL;
  }
  const float* in = grt_tensor_data(src);
  float* o = grt_tensor_data(out);
  int64_t e = 0;
  for (int64_t a = 0; a < od[0]; a++)
    for (int64_t b = 0; b < od[1]; b++)
      for (int64_t q = 0; q < od[2]; q++)
        for (int64_t r = 0; r < od[3]; r++)
          o[e++] = in[a * ss[p[0]] + b * ss[p[1]] + q * ss[p[2]] + r * ss[p[3]]];
  return out;
}

/* ---- the pass --------------------------------------------------------- */

typedef struct {
  int32_t members[16];
  int32_t n;
  int32_t last;
  bool folded; /* something besides a BiasAdd */
} chain;

/* Folds the element-wise step j (reading the chain at input `in`) into
 * y = a * conv + b, or returns false. */
static bool fold_step(grt_opt_ctx* c, int32_t j, int32_t in, int32_t caxis, int64_t oc, double* a,
                      double* b, double* k) {
  const grt_node* n = grt_opt_node(c, j);
  if (n->n_inputs != 2) return false;
  int32_t port, other = grt_opt_input_node(c, j, 1 - in, &port);
  if (!per_channel_shape(shape_of(c, other, port), caxis, oc) ||
      !chan_value(c, other, port, oc, k, 0))
    return false;
  bool add = is_op(n, "AddV2") || is_op(n, "Add");
  if (!add && !is_op(n, "Sub") && !is_op(n, "Mul") && !(is_op(n, "RealDiv") && in == 0))
    return false;
  for (int64_t e = 0; e < oc; e++) {
    if (add) {
      b[e] += k[e];
    } else if (is_op(n, "Sub")) {
      if (in == 0) {
        b[e] -= k[e];
      } else {
        a[e] = -a[e];
        b[e] = k[e] - b[e];
      }
    } else if (is_op(n, "Mul")) {
      a[e] *= k[e];
      b[e] *= k[e];
    } else {
      a[e] /= k[e];
      b[e] /= k[e];
    }
  }
  return true;
}

/* FusedBatchNorm/V3 at inference with only y read: y = (x - mean) * scale
 * / sqrt(var + eps) + offset. */
static bool fold_bn(grt_opt_ctx* c, int32_t j, const char* format, int64_t oc, double* a, double* b,
                    double* k) {
  const grt_node* n = grt_opt_node(c, j);
  const grt_attr_value* tr = grt_node_attr(n, "is_training");
  const grt_attr_value* df = grt_node_attr(n, "data_format");
  const grt_attr_value* ep = grt_node_attr(n, "epsilon");
  if (n->n_inputs != 5 || !tr || tr->type != GRT_ATTR_BOOL || tr->u.b || !df ||
      df->type != GRT_ATTR_STRING || strcmp(df->u.s, format) != 0 || !ep ||
      ep->type != GRT_ATTR_FLOAT)
    return false;
  for (int32_t p = 1; p < n->sig.n_outputs; p++) {
    const grt_opt_use* u;
    if (grt_opt_uses(c, j, p, &u) > 0) return false;
  }
  double* v[4] = {NULL, NULL, NULL, NULL};
  bool ok = true;
  for (int q = 0; q < 4 && ok; q++) {
    v[q] = grt_malloc((size_t)oc * sizeof(double));
    int32_t port, src = grt_opt_input_node(c, j, q + 1, &port);
    ok = v[q] && numel(shape_of(c, src, port)) == oc && chan_value(c, src, port, oc, v[q], 0);
  }
  for (int64_t e = 0; ok && e < oc; e++) {
    /* scale, offset, mean, variance */
    k[e] = v[0][e] / sqrt(v[3][e] + (double)ep->u.f);
    a[e] *= k[e];
    b[e] = (b[e] - v[2][e]) * k[e] + v[1][e];
  }
  for (int q = 0; q < 4; q++) grt_free(v[q]);
  return ok;
}

/* The chain after convolution i, folded into a and b (which start as 1
 * and 0). */
static void match(grt_opt_ctx* c, int32_t i, const char* format, int64_t oc, double* a, double* b,
                  double* k, chain* ch) {
  int32_t caxis = strcmp(format, "NCHW") == 0 ? 1 : 3;
  ch->n = 0;
  ch->members[ch->n++] = i;
  ch->last = i;
  ch->folded = false;
  const grt_shape* out = shape_of(c, i, 0);
  for (;;) {
    int32_t in, j = sole_consumer(c, ch->last, &in);
    if (j < 0 || !joinable(c, i, j) || ch->n >= 16) return;
    const grt_node* n = grt_opt_node(c, j);
    if (is_op(n, "BiasAdd") && ch->n == 1 && in == 0) {
      const grt_attr_value* df = grt_node_attr(n, "data_format");
      const char* bf = df && df->type == GRT_ATTR_STRING ? df->u.s : "NHWC";
      int32_t port, src = grt_opt_input_node(c, j, 1, &port);
      if (strcmp(bf, format) != 0 || numel(shape_of(c, src, port)) != oc ||
          !chan_value(c, src, port, oc, k, 0))
        return;
      for (int64_t e = 0; e < oc; e++) b[e] = k[e];
    } else if ((is_op(n, "FusedBatchNormV3") || is_op(n, "FusedBatchNorm")) && in == 0) {
      if (!fold_bn(c, j, format, oc, a, b, k)) return;
      ch->folded = true;
    } else {
      if (!grt_shape_equal(shape_of(c, j, 0), out)) return;
      if (!fold_step(c, j, in, caxis, oc, a, b, k)) return;
      ch->folded = true;
    }
    ch->members[ch->n++] = j;
    ch->last = j;
  }
}

/* Builds Conv(input, W * a) + BiasAdd(b) in place of the chain. */
static grt_status* rebuild(grt_opt_ctx* c, int32_t i, const chain* ch, grt_tensor* w,
                           const double* a, const double* b, int64_t oc, const char* format) {
  float* wv = grt_tensor_data(w);
  int64_t n = grt_tensor_num_elements(w);
  for (int64_t e = 0; e < n; e++) wv[e] = (float)((double)wv[e] * a[e % oc]);
  grt_tensor* bias = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_FLOAT32, 1, &oc, &bias));
  float* bv = grt_tensor_data(bias);
  for (int64_t e = 0; e < oc; e++) bv[e] = (float)b[e];
  int32_t wc, bc, conv, add;
  grt_status* s = grt_opt_add_const(c, i, "folded_filter", w, &wc);
  if (!s) s = grt_opt_add_const(c, i, "folded_bias", bias, &bc);
  grt_tensor_free(bias);
  if (s) return s;
  const char* op = grt_opt_node(c, i)->op;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "folded", op, &conv));
  int32_t port, src = grt_opt_input_node(c, i, 0, &port);
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, conv, src, port));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, conv, wc, 0));
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, conv, i, NULL));
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, ch->last, "bias", "BiasAdd", &add));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, add, conv, 0));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, add, bc, 0));
  grt_graph* g = grt_opt_graph(c);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, add, "T", GRT_FLOAT32));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(g, add, "data_format", format));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, ch->last, 0, add, 0, false, true));
  for (int32_t m = 0; m < ch->n; m++) grt_opt_kill(c, ch->members[m]);
  grt_opt_take_name(c, add, ch->last);
  return NULL;
}

grt_status* grt_opt_pass_bn_fold(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), folded = 0;
  for (int32_t i = 0; i < n; i++) {
    const grt_node* node = grt_opt_node(c, i);
    bool depthwise = is_op(node, "DepthwiseConv2dNative");
    if ((!depthwise && !is_op(node, "Conv2D")) || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) ||
        node->n_controls > 0 || grt_opt_output_type(c, i, 0) != GRT_FLOAT32 ||
        shape_of(c, i, 0)->rank != 4 ||
        !grt_opt_has_kernel(grt_opt_device_type(c, i), "BiasAdd", "T", GRT_FLOAT32))
      continue;
    const grt_attr_value* df = grt_node_attr(node, "data_format");
    const char* format = df && df->type == GRT_ATTR_STRING ? df->u.s : "NHWC";
    /* The filter is computed only for a chain that folds. */
    int32_t fport, fsrc = grt_opt_input_node(c, i, 1, &fport);
    const grt_shape* fs = shape_of(c, fsrc, fport);
    if (fs->rank != 4 || numel(fs) <= 0) continue;
    int64_t oc = depthwise ? fs->dims[2] * fs->dims[3] : fs->dims[3];
    double* buf = grt_calloc((size_t)oc * 3, sizeof *buf);
    if (!buf) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory folding batch norm");
    double *a = buf, *b = buf + oc, *k = buf + 2 * oc;
    for (int64_t e = 0; e < oc; e++) a[e] = 1.0;
    chain ch;
    match(c, i, format, oc, a, b, k, &ch);
    grt_tensor* w = ch.folded ? filter_value(c, i) : NULL;
    for (int d = 0; w && d < 4; d++)
      if (grt_tensor_dim(w, d) != fs->dims[d]) { /* not what the graph said: leave it */
        grt_tensor_free(w);
        w = NULL;
      }
    grt_status* s = NULL;
    if (w) {
      s = rebuild(c, i, &ch, w, a, b, oc, format);
      folded++;
    }
    grt_free(buf);
    grt_tensor_free(w);
    if (s) return s;
  }
  grt_opt_count(c, folded);
  if (folded)
    grt_opt_detail(c, "%d scale/shift chains folded into convolution filters", (int)folded);
  return NULL;
}
