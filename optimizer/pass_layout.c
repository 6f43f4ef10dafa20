/* Pass "layout": chains of NCHW convolutions run in NHWC where the device
 * type prefers it. oneDNN's direct convolutions on AVX2/AVX-512 read NHWC
 * (or blocked) activations in place; given NCHW, oneDNN 2.6 picks its
 * GEMM-based implementation (ONEDNN_VERBOSE shows gemm:jit for every
 * convolution of an ONNX ResNet-18), which is several times slower. ONNX
 * models are NCHW throughout, so this is where their time goes.
 *
 * Anchors: Conv2D, DepthwiseConv2dNative, their fused forms, MaxPool,
 * AvgPool and BiasAdd with data_format NCHW, float32. From them the
 * converted set grows over the layout-agnostic ops that read a converted
 * value: element-wise unary ops, element-wise binary ops (the other operand
 * converted, transposed, or a broadcast constant reshaped to rank 4 and
 * transposed, which constant folding then folds), Mean/Sum/Max/Min over
 * constant axes (remapped), ConcatV2 along a constant axis (remapped) and
 * Pad with constant paddings (rows permuted).
 *
 * Each converted node X gets an NHWC twin X' (a new name) reading the
 * twins of its converted inputs, or a Transpose to NHWC of any other
 * input; and a Transpose of X' back to NCHW takes X's name, so every node
 * that keeps an input node's name still computes NCHW (DESIGN.md). The
 * Transposes back that nothing reads are dropped with the dead nodes, so
 * between two converted ops no transpose is left. A reduction without
 * keep_dims whose kept axes stay in order (a global average pool) gives
 * the same value in either layout: its twin takes its name directly.
 *
 * Which layout a device type's convolutions prefer is data (kPrefer): a
 * backend opts in or out by its row, and every op made on a node of that
 * type is checked against the type's support rows. */
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "optimizer/passes.h"

/* Device types whose convolutions run faster in NHWC. The CPU: oneDNN
 * (measured, above). Not the GPU: for float32 without TF32 cuDNN runs
 * NCHW, and refused every NHWC backward algorithm on an H200 (the GPU
 * suite's first run), so the GPU keeps an ONNX graph's NCHW, as TensorFlow
 * does for float32; tensor-core NHWC for half types would be its row here. */
static const char* const kPrefer[] = {"CPU"};

static bool prefers_nhwc(const char* type) {
  for (size_t i = 0; i < sizeof kPrefer / sizeof kPrefer[0]; i++)
    if (type && strcmp(kPrefer[i], type) == 0) return true;
  return false;
}

typedef enum {
  K_NONE = 0,
  K_ANCHOR, /* has data_format: input 0 (and a fused residual) in layout */
  K_UNARY,  /* input 0 */
  K_BINARY, /* inputs 0 and 1, broadcasting */
  K_REDUCE, /* input 0, input 1 the axes */
  K_CONCAT, /* ConcatV2: inputs 0..n-2, the last the axis */
  K_PAD,    /* input 0, input 1 the paddings [4, 2] */
} kind;

typedef struct {
  const char* op;
  kind k;
} op_kind;

static const op_kind kOps[] = {
    {"Conv2D", K_ANCHOR},       {"DepthwiseConv2dNative", K_ANCHOR},
    {"_FusedConv2D", K_ANCHOR}, {"_FusedDepthwiseConv2dNative", K_ANCHOR},
    {"MaxPool", K_ANCHOR},      {"AvgPool", K_ANCHOR},
    {"BiasAdd", K_ANCHOR},      {"Relu", K_UNARY},
    {"Relu6", K_UNARY},         {"Elu", K_UNARY},
    {"Selu", K_UNARY},          {"LeakyRelu", K_UNARY},
    {"Sigmoid", K_UNARY},       {"Tanh", K_UNARY},
    {"Identity", K_UNARY},      {"Neg", K_UNARY},
    {"Abs", K_UNARY},           {"Exp", K_UNARY},
    {"Log", K_UNARY},           {"Sqrt", K_UNARY},
    {"Rsqrt", K_UNARY},         {"Square", K_UNARY},
    {"Softplus", K_UNARY},      {"Erf", K_UNARY},
    {"Floor", K_UNARY},         {"AddV2", K_BINARY},
    {"Add", K_BINARY},          {"Sub", K_BINARY},
    {"Mul", K_BINARY},          {"RealDiv", K_BINARY},
    {"Maximum", K_BINARY},      {"Minimum", K_BINARY},
    {"Pow", K_BINARY},          {"SquaredDifference", K_BINARY},
    {"Mean", K_REDUCE},         {"Sum", K_REDUCE},
    {"Max", K_REDUCE},          {"Min", K_REDUCE},
    {"ConcatV2", K_CONCAT},     {"Pad", K_PAD},
};

static kind kind_of(const char* op) {
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++)
    if (strcmp(kOps[i].op, op) == 0) return kOps[i].k;
  return K_NONE;
}

/* NCHW axis a is NHWC axis kToNhwc[a]. */
static const int64_t kToNhwc[4] = {0, 3, 1, 2};
static const int32_t kPermIn[4] = {0, 2, 3, 1};  /* NCHW -> NHWC */
static const int32_t kPermOut[4] = {0, 3, 1, 2}; /* NHWC -> NCHW */

typedef struct {
  grt_opt_ctx* c;
  int32_t n;
  kind* k;
  bool* conv;       /* converted */
  bool* native_out; /* converted, output in the same layout either way */
  int32_t* twin;    /* the NHWC twin of a converted node */
  int32_t* to_nhwc; /* a Transpose to NHWC of output 0 of a node, or -1 */
} layout;

static const char* data_format(const grt_node* n) {
  const grt_attr_value* v = grt_node_attr(n, "data_format");
  return v && v->type == GRT_ATTR_STRING ? v->u.s : "NHWC";
}

/* The inferred shape of an output (unknown rank when there is none). */
static const grt_shape* shape_of(grt_opt_ctx* c, int32_t i, int32_t port) {
  static const grt_shape kUnknown = {.rank = -1};
  const grt_shape* s = i >= 0 ? grt_opt_output_shape(c, i, port) : NULL;
  return s ? s : &kUnknown;
}

static bool rank4(grt_opt_ctx* c, int32_t i, int32_t port) {
  return shape_of(c, i, port)->rank == 4;
}

/* The int value(s) of a Const input as int64, else false. */
static bool const_ints(grt_opt_ctx* c, int32_t i, int32_t input, int64_t* out, int32_t max,
                       int32_t* n) {
  int32_t port;
  int32_t s = grt_opt_input_node(c, i, input, &port);
  const grt_tensor* t = s >= 0 ? grt_opt_const_value(c, s) : NULL;
  if (!t) return false;
  int64_t k = grt_tensor_num_elements(t);
  if (k > max) return false;
  grt_dtype d = grt_tensor_dtype(t);
  if (d != GRT_INT32 && d != GRT_INT64) return false;
  for (int64_t e = 0; e < k; e++)
    out[e] = d == GRT_INT32 ? ((const int32_t*)grt_tensor_data(t))[e]
                            : ((const int64_t*)grt_tensor_data(t))[e];
  *n = (int32_t)k;
  return true;
}

/* Whether the reduction keeps the order of the axes it keeps when run in
 * NHWC: then without keep_dims its output is the same in both layouts. */
static bool reduce_same_out(const int64_t* axes, int32_t n) {
  bool red[4] = {false, false, false, false};
  for (int32_t e = 0; e < n; e++) red[(axes[e] % 4 + 4) % 4] = true;
  int64_t last = -1;
  for (int32_t a = 0; a < 4; a++) /* kept NCHW axes in order: their NHWC positions rise */
    if (!red[a]) {
      if (kToNhwc[a] < last) return false;
      last = kToNhwc[a];
    }
  return true;
}

/* Whether node i reads a converted value through one of its layout inputs. */
static bool reads_converted(const layout* L, int32_t i, int32_t from, int32_t to) {
  for (int32_t k = from; k < to; k++) {
    int32_t port, s = grt_opt_input_node(L->c, i, k, &port);
    if (s >= 0 && L->conv[s] && port == 0 && !L->native_out[s]) return true;
  }
  return false;
}

/* Whether a binary op's operand k can be given in NHWC: converted, a rank-4
 * value (transposed), or a value of known shape of rank <= 4 (reshaped and
 * transposed: a constant's folds). */
static bool operand_ok(const layout* L, int32_t i, int32_t k) {
  int32_t port, s = grt_opt_input_node(L->c, i, k, &port);
  if (s < 0) return false;
  if (L->conv[s] && port == 0 && !L->native_out[s]) return true;
  const grt_shape* sh = shape_of(L->c, s, port);
  if (sh->rank == 4) return true;
  if (sh->rank < 0 || sh->rank > 4) return false;
  for (int32_t d = 0; d < sh->rank; d++)
    if (sh->dims[d] < 0) return false;
  return true;
}

/* Whether inputs [from, to) of node i are all of rank 4 (a layout input
 * of unknown rank could not be transposed). */
static bool inputs_rank4(grt_opt_ctx* c, int32_t i, int32_t from, int32_t to) {
  for (int32_t k = from; k < to; k++) {
    int32_t port, s = grt_opt_input_node(c, i, k, &port);
    if (!rank4(c, s, port)) return false;
  }
  return true;
}

/* Whether node i may be converted now. */
static bool convertible(const layout* L, int32_t i) {
  grt_opt_ctx* c = L->c;
  const grt_node* n = grt_opt_node(c, i);
  if (L->k[i] == K_NONE || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) ||
      n->sig.n_outputs != 1 || (L->k[i] != K_REDUCE && !rank4(c, i, 0)))
    return false;
  const char* type = grt_opt_device_type(c, i);
  if (!prefers_nhwc(type) || !grt_opt_has_kernel(type, n->op, "T", grt_opt_output_type(c, i, 0)) ||
      !grt_opt_has_kernel(type, "Transpose", "T", grt_opt_output_type(c, i, 0)))
    return false;
  int64_t v[8];
  int32_t m;
  switch (L->k[i]) {
    case K_ANCHOR:
      return strcmp(data_format(n), "NCHW") == 0 && rank4(c, i, 0) &&
             grt_opt_output_type(c, i, 0) == GRT_FLOAT32 && inputs_rank4(c, i, 0, 1) &&
             (n->n_inputs < 4 || inputs_rank4(c, i, 3, 4));
    case K_UNARY:
      return n->n_inputs == 1 && reads_converted(L, i, 0, 1) && inputs_rank4(c, i, 0, 1);
    case K_BINARY:
      return n->n_inputs == 2 && reads_converted(L, i, 0, 2) && operand_ok(L, i, 0) &&
             operand_ok(L, i, 1);
    case K_REDUCE: {
      /* The source first: in one call's arguments, port could be read
       * before grt_opt_input_node set it (C leaves the order open). */
      int32_t port = 0;
      int32_t src = n->n_inputs == 2 ? grt_opt_input_node(c, i, 0, &port) : -1;
      if (n->n_inputs != 2 || !reads_converted(L, i, 0, 1) || !rank4(c, src, port) ||
          !const_ints(c, i, 1, v, 4, &m))
        return false;
      const grt_attr_value* kd = grt_node_attr(n, "keep_dims");
      bool keep = kd && kd->type == GRT_ATTR_BOOL && kd->u.b;
      return keep ? rank4(c, i, 0) : reduce_same_out(v, m);
    }
    case K_CONCAT:
      return n->n_inputs >= 3 && reads_converted(L, i, 0, n->n_inputs - 1) &&
             inputs_rank4(c, i, 0, n->n_inputs - 1) &&
             const_ints(c, i, n->n_inputs - 1, v, 1, &m) && m == 1 && v[0] >= -4 && v[0] < 4;
    case K_PAD:
      return n->n_inputs == 2 && reads_converted(L, i, 0, 1) && inputs_rank4(c, i, 0, 1) &&
             const_ints(c, i, 1, v, 8, &m) && m == 8;
    default:
      return false;
  }
}

/* ---- building -------------------------------------------------------- */

static grt_status* add_int_const(grt_opt_ctx* c, int32_t like, const char* suffix, grt_dtype dt,
                                 int32_t rank, const int64_t* dims, const int64_t* v,
                                 int32_t* out) {
  grt_tensor* t = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(dt, rank, dims, &t));
  int64_t n = grt_tensor_num_elements(t);
  for (int64_t e = 0; e < n; e++) {
    if (dt == GRT_INT32)
      ((int32_t*)grt_tensor_data(t))[e] = (int32_t)v[e];
    else
      ((int64_t*)grt_tensor_data(t))[e] = v[e];
  }
  grt_status* s = grt_opt_add_const(c, like, suffix, t, out);
  grt_tensor_free(t);
  return s;
}

/* A Transpose of (src, port) by `perm`, standing for `like`. */
static grt_status* add_transpose(grt_opt_ctx* c, int32_t like, const char* suffix, int32_t src,
                                 int32_t port, grt_dtype dt, const int32_t* perm, int32_t* out) {
  int64_t p[4] = {perm[0], perm[1], perm[2], perm[3]}, four = 4;
  int32_t pc;
  GRT_RETURN_IF_ERROR(add_int_const(c, like, "perm", GRT_INT32, 1, &four, p, &pc));
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, like, suffix, "Transpose", out));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, *out, src, port));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, *out, pc, 0));
  return grt_graph_set_attr_type(grt_opt_graph(c), *out, "T", dt);
}

/* Input `k` of converted node i as NHWC: the twin of a converted source,
 * else a Transpose of a rank-4 source (one per source), else the source
 * reshaped to rank 4 and transposed (a broadcast operand). */
static grt_status* nhwc_input(layout* L, int32_t i, int32_t k) {
  grt_opt_ctx* c = L->c;
  int32_t port, s = grt_opt_input_node(c, i, k, &port);
  int32_t tw = L->twin[i];
  if (L->conv[s] && port == 0 && !L->native_out[s]) return grt_opt_add_input(c, tw, L->twin[s], 0);
  const grt_shape* sh = shape_of(c, s, port);
  if (sh->rank == 4 && port == 0 && s < L->n && L->to_nhwc[s] >= 0)
    return grt_opt_add_input(c, tw, L->to_nhwc[s], 0);
  int32_t src = s, src_port = port;
  if (sh->rank < 0) return GRT_ERROR(INTERNAL, "layout: an input of unknown rank");
  if (sh->rank != 4) {
    bool ones = true;
    for (int32_t d = 0; d < sh->rank; d++) ones = ones && sh->dims[d] == 1;
    if (ones) return grt_opt_add_input(c, tw, s, port); /* a scalar broadcasts as it is */
    int64_t dims[4] = {1, 1, 1, 1}, four = 4;
    for (int32_t d = 0; d < sh->rank; d++) dims[4 - sh->rank + d] = sh->dims[d];
    int32_t shape_c, r;
    GRT_RETURN_IF_ERROR(add_int_const(c, i, "shape4", GRT_INT64, 1, &four, dims, &shape_c));
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "rank4", "Reshape", &r));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, r, s, port));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, r, shape_c, 0));
    GRT_RETURN_IF_ERROR(
        grt_graph_set_attr_type(grt_opt_graph(c), r, "T", grt_opt_output_type(c, s, port)));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(grt_opt_graph(c), r, "Tshape", GRT_INT64));
    src = r;
    src_port = 0;
  }
  int32_t t;
  GRT_RETURN_IF_ERROR(
      add_transpose(c, i, "to_nhwc", src, src_port, grt_opt_output_type(c, s, port), kPermIn, &t));
  if (sh->rank == 4 && port == 0 && s < L->n) L->to_nhwc[s] = t;
  return grt_opt_add_input(c, tw, t, 0);
}

/* An NCHW-ordered list attr of 4 (or 8: explicit_paddings) as NHWC. */
static grt_status* permute_list_attr(grt_opt_ctx* c, int32_t to, int32_t from, const char* name) {
  const grt_attr_value* v = grt_node_find_attr(grt_opt_node(c, from), name);
  if (!v || v->type != GRT_ATTR_LIST_INT) return NULL;
  int32_t n = v->u.list.n, per = n == 8 ? 2 : 1;
  if (n != 4 && n != 8) return NULL;
  int64_t out[8];
  for (int32_t a = 0; a < 4; a++)
    for (int32_t e = 0; e < per; e++) out[kToNhwc[a] * per + e] = v->u.list.v.i[a * per + e];
  return grt_graph_set_attr_int_list(grt_opt_graph(c), to, name, out, n);
}

static const char* const kPermuted[] = {"strides", "dilations", "ksize", "explicit_paddings"};

static grt_status* make_twin(layout* L, int32_t i) {
  grt_opt_ctx* c = L->c;
  const grt_node* n = grt_opt_node(c, i);
  int32_t tw;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "nhwc", n->op, &tw));
  L->twin[i] = tw;
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, tw, i, NULL));
  if (L->k[i] == K_ANCHOR) {
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(grt_opt_graph(c), tw, "data_format", "NHWC"));
    for (size_t a = 0; a < sizeof kPermuted / sizeof kPermuted[0]; a++)
      GRT_RETURN_IF_ERROR(permute_list_attr(c, tw, i, kPermuted[a]));
  }
  return NULL;
}

/* The remapped axes (reduction, concat) or paddings of node i, as a new
 * Const input of its twin. */
static grt_status* remapped_const(layout* L, int32_t i, int32_t input) {
  grt_opt_ctx* c = L->c;
  int32_t port, src = grt_opt_input_node(c, i, input, &port);
  const grt_tensor* t = grt_opt_const_value(c, src);
  int64_t v[8], out[8], dims[2];
  int32_t m;
  if (!const_ints(c, i, input, v, 8, &m)) return GRT_ERROR(INTERNAL, "layout: const vanished");
  int32_t rank = grt_tensor_rank(t);
  for (int32_t d = 0; d < rank; d++) dims[d] = grt_tensor_dim(t, d);
  if (L->k[i] == K_PAD) {
    for (int32_t a = 0; a < 4; a++) {
      out[kToNhwc[a] * 2] = v[a * 2];
      out[kToNhwc[a] * 2 + 1] = v[a * 2 + 1];
    }
  } else {
    for (int32_t e = 0; e < m; e++) out[e] = kToNhwc[(v[e] % 4 + 4) % 4];
  }
  int32_t k;
  GRT_RETURN_IF_ERROR(add_int_const(c, i, "nhwc_arg", grt_tensor_dtype(t), rank, dims, out, &k));
  return grt_opt_add_input(c, L->twin[i], k, 0);
}

static grt_status* wire_twin(layout* L, int32_t i) {
  grt_opt_ctx* c = L->c;
  /* Adding nodes may move the node array: node i is looked up again
   * after each addition rather than held. */
  int32_t tw = L->twin[i], n_inputs = grt_opt_node(c, i)->n_inputs;
  bool fused = strncmp(grt_opt_node(c, i)->op, "_Fused", 6) == 0;
  for (int32_t k = 0; k < n_inputs; k++) {
    bool in_layout;
    switch (L->k[i]) {
      case K_ANCHOR: /* input, and the residual of a fused convolution */
        in_layout = k == 0 || (k == 3 && fused);
        break;
      case K_UNARY:
      case K_BINARY:
        in_layout = true;
        break;
      case K_CONCAT:
        in_layout = k < n_inputs - 1;
        break;
      default: /* reductions, Pad */
        in_layout = k == 0;
    }
    if (in_layout) {
      GRT_RETURN_IF_ERROR(nhwc_input(L, i, k));
    } else if (L->k[i] == K_REDUCE || L->k[i] == K_CONCAT || L->k[i] == K_PAD) {
      GRT_RETURN_IF_ERROR(remapped_const(L, i, k));
    } else {
      int32_t port, s = grt_opt_input_node(c, i, k, &port);
      GRT_RETURN_IF_ERROR(grt_opt_add_input(c, tw, s, port));
    }
  }
  GRT_RETURN_IF_ERROR(grt_opt_copy_controls(c, tw, i));
  return NULL;
}

/* X's name goes to the Transpose back to NCHW (or to the twin itself when
 * its output is the same in both layouts), which X's readers now read.
 * Run after every twin is wired: it rewires the originals' inputs too. */
static grt_status* redirect(layout* L, int32_t i) {
  grt_opt_ctx* c = L->c;
  int32_t tw = L->twin[i], back = tw;
  if (!L->native_out[i])
    GRT_RETURN_IF_ERROR(
        add_transpose(c, i, "to_nchw", tw, 0, grt_opt_output_type(c, i, 0), kPermOut, &back));
  /* Converted readers read the twin, not the way back: feeding X's name
   * would no longer reach them, so it is not feed-safe then. */
  const grt_opt_use* u;
  int32_t n_uses = grt_opt_uses(c, i, 0, &u);
  bool all_outside = true;
  for (int32_t k = 0; k < n_uses; k++) all_outside = all_outside && !L->conv[u[k].node];
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, back, 0, true, all_outside));
  grt_opt_kill(c, i);
  grt_opt_take_name(c, back, i);
  return NULL;
}

static void layout_free(layout* L) {
  grt_free(L->k);
  grt_free(L->conv);
  grt_free(L->native_out);
  grt_free(L->twin);
  grt_free(L->to_nhwc);
}

grt_status* grt_opt_pass_layout(grt_opt_ctx* c) {
  layout L = {.c = c, .n = grt_opt_num_nodes(c)};
  size_t n = (size_t)L.n + 1;
  L.k = grt_calloc(n, sizeof *L.k);
  L.conv = grt_calloc(n, sizeof *L.conv);
  L.native_out = grt_calloc(n, sizeof *L.native_out);
  L.twin = grt_calloc(n, sizeof *L.twin);
  L.to_nhwc = grt_calloc(n, sizeof *L.to_nhwc);
  if (!L.k || !L.conv || !L.native_out || !L.twin || !L.to_nhwc) {
    layout_free(&L);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for the layout pass");
  }
  int32_t anchors = 0, total = 0;
  for (int32_t i = 0; i < L.n; i++) {
    L.k[i] = kind_of(grt_opt_node(c, i)->op);
    L.to_nhwc[i] = -1;
  }
  /* Grow to a fixed point: the node order need not be topological. */
  for (bool grew = true; grew;) {
    grew = false;
    for (int32_t i = 0; i < L.n; i++) {
      if (L.conv[i] || !convertible(&L, i)) continue;
      L.conv[i] = true;
      grew = true;
      total++;
      anchors += L.k[i] == K_ANCHOR;
      L.native_out[i] = L.k[i] == K_REDUCE && !rank4(c, i, 0);
    }
  }
  grt_status* s = NULL;
  for (int32_t i = 0; !s && i < L.n; i++)
    if (L.conv[i]) s = make_twin(&L, i);
  for (int32_t i = 0; !s && i < L.n; i++)
    if (L.conv[i]) s = wire_twin(&L, i);
  for (int32_t i = 0; !s && i < L.n; i++)
    if (L.conv[i]) s = redirect(&L, i);
  layout_free(&L);
  if (s) return s;
  grt_opt_count(c, total);
  if (total)
    grt_opt_detail(c, "%d nodes to NHWC (%d convolutions, pools, bias adds)", (int)total,
                   (int)anchors);
  return NULL;
}
