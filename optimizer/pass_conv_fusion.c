/* Pass "conv_fusion": a convolution and the element-wise ops after it
 * become one _FusedConv2D / _FusedDepthwiseConv2dNative node (TensorFlow's
 * remapper fusions), so the output is written once with the bias,
 * residual and activation applied as oneDNN post-ops:
 *
 *   Conv2D | DepthwiseConv2dNative
 *     -> BiasAdd (same data_format; absent: a zero bias is made when
 *        something else fuses)
 *     -> AddV2 | Add with a tensor of exactly the output's shape
 *        (fused_ops "Add", num_args 2: the residual of a ResNet block)
 *     -> one activation: Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh;
 *        Maximum(v, 0) as Relu and Minimum(Maximum(v, 0), 6) as Relu6 (the
 *        ONNX importer's Clip); v * Sigmoid(v) as _Swish (SiLU); the
 *        importer's HardSwish (v * Maximum(Minimum(v/6 + 0.5, 1), 0)) as
 *        _HardSwish.
 *
 * Every member but the last has exactly one data use (the next member),
 * no control edges, and sits on the convolution's device; all are float32.
 * The fused node takes the last member's name, so fetches of it still
 * work; fetching a swallowed member falls back to the user's graph.
 *
 * Which fused_ops a device type's fused kernels take is data (kTypes): the
 * CPU's take all of the above; the GPU's _FusedConv2D only TensorFlow's
 * BiasAdd + Relu|Relu6|Elu, and it has no depthwise fused op, so nothing
 * else is made there. A type not in the table gets no fusion. */
#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "optimizer/passes.h"

/* What a device type's fused convolution kernels accept. */
typedef struct {
  const char* type;
  bool depthwise;   /* has _FusedDepthwiseConv2dNative */
  bool residual;    /* fused_ops "Add" */
  const char* acts; /* the activations, space-separated, each ending in ' ' */
} fusion_caps;

static const fusion_caps kTypes[] = {
    {"CPU", true, true, "Relu Relu6 Elu LeakyRelu Sigmoid Tanh _Swish _HardSwish "},
    {"GPU", false, false, "Relu Relu6 Elu "},
};

static const fusion_caps* caps_of(const char* type) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (type && strcmp(kTypes[i].type, type) == 0) return &kTypes[i];
  return NULL;
}

static bool caps_act(const fusion_caps* k, const char* act) {
  size_t n = strlen(act);
  for (const char* p = strstr(k->acts, act); p; p = strstr(p + 1, act))
    if ((p == k->acts || p[-1] == ' ') && p[n] == ' ') return true;
  return false;
}

/* Ops that end a chain as they are, by the name fused_ops gives them. */
static const char* const kActOps[] = {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"};

static bool is_op(const grt_node* n, const char* op) { return strcmp(n->op, op) == 0; }

/* Node j may join a chain on conv's device: live, not fixed, float32, no
 * control edges in or out. */
static bool joinable(grt_opt_ctx* c, int32_t conv, int32_t j) {
  const grt_node* n = grt_opt_node(c, j);
  const grt_opt_use* u;
  return !grt_opt_is_dead(c, j) && !grt_opt_is_fixed(c, j) && n->n_controls == 0 &&
         grt_opt_uses(c, j, -1, &u) == 0 && n->sig.n_outputs == 1 &&
         grt_opt_output_type(c, j, 0) == GRT_FLOAT32 && grt_opt_same_device(c, j, conv);
}

/* The one node reading output 0 of node v, when v has exactly one data
 * use and no control uses; else -1. */
static int32_t sole_consumer(grt_opt_ctx* c, int32_t v, int32_t* out_input) {
  const grt_opt_use* u;
  if (grt_opt_num_data_uses(c, v) != 1 || grt_opt_uses(c, v, -1, &u) != 0) return -1;
  if (grt_opt_uses(c, v, 0, &u) != 1 || u[0].input < 0) return -1;
  *out_input = u[0].input;
  return u[0].node;
}

/* Whether input `k` of node j is a one-element float Const equal to `want`. */
static bool scalar_input(grt_opt_ctx* c, int32_t j, int32_t k, float want) {
  int32_t port, s = grt_opt_input_node(c, j, k, &port);
  const grt_tensor* t = s >= 0 ? grt_opt_const_value(c, s) : NULL;
  if (!t || grt_tensor_dtype(t) != GRT_FLOAT32 || grt_tensor_num_elements(t) != 1) return false;
  return *(const float*)grt_tensor_data(t) == want;
}

static bool shapes_same(const grt_shape* a, const grt_shape* b) {
  if (!a || !b || a->rank < 0 || a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Nodes this pass made stand for the chains' last nodes (their shapes). */
typedef struct {
  int32_t n_start;
  int32_t* orig; /* per node made here (index - n_start): the node it replaced, or -1 */
  int32_t cap;
} origins;

/* The inferred shape of output (i, port), for a fused node made earlier in
 * this pass that of the node it replaced. */
static const grt_shape* shape_of(grt_opt_ctx* c, const origins* o, int32_t i, int32_t port) {
  if (i >= o->n_start) {
    int32_t k = i - o->n_start;
    if (k >= o->cap || o->orig[k] < 0) return NULL;
    i = o->orig[k];
  }
  return i >= 0 ? grt_opt_output_shape(c, i, port) : NULL;
}

typedef struct {
  int32_t conv, last;
  int32_t bias_src, bias_port;         /* -1: none, a zero bias is made */
  int32_t residual_src, residual_port; /* -1: none */
  const char* act;                     /* NULL: none */
  float leaky_alpha;
  int32_t members[12];
  int32_t n_members;
} chain;

static void add_member(chain* ch, int32_t j) {
  ch->members[ch->n_members++] = j;
  ch->last = j;
}

/* The other operand of binary node j, whose input `from` reads (v, 0);
 * -1 when j does not read v exactly once. */
static int32_t other_operand(grt_opt_ctx* c, int32_t j, int32_t v, int32_t* out_k) {
  int32_t p0, p1;
  int32_t a = grt_opt_input_node(c, j, 0, &p0), b = grt_opt_input_node(c, j, 1, &p1);
  if (a == v && p0 == 0 && !(b == v && p1 == 0)) {
    *out_k = 1;
    return b;
  }
  if (b == v && p1 == 0 && !(a == v && p0 == 0)) {
    *out_k = 0;
    return a;
  }
  return -1;
}

/* Activations that read v twice: v * Sigmoid(v) (SiLU) as _Swish, and the
 * ONNX importer's HardSwish, v * Maximum(Minimum(v / 6 + 0.5, 1), 0) (its
 * v / 6 written Mul(1/6, v)), as _HardSwish. */
static void match_two_uses(grt_opt_ctx* c, const fusion_caps* caps, chain* ch) {
  const grt_opt_use* u;
  int32_t v = ch->last;
  if (grt_opt_num_data_uses(c, v) != 2 || grt_opt_uses(c, v, -1, &u) != 0 ||
      grt_opt_uses(c, v, 0, &u) != 2 || u[0].input < 0 || u[1].input < 0 || u[0].node == u[1].node)
    return;
  for (int k = 0; k < 2; k++)
    if (!joinable(c, ch->conv, u[k].node)) return;
  int32_t mi, kk;
  for (int k = 0; k < 2; k++) {
    int32_t first = u[k].node, mul = u[1 - k].node;
    if (!is_op(grt_opt_node(c, mul), "Mul") || other_operand(c, mul, v, &kk) < 0) continue;
    int32_t tail = other_operand(c, mul, v, &kk);
    if (is_op(grt_opt_node(c, first), "Sigmoid") && tail == first &&
        sole_consumer(c, first, &mi) == mul && caps_act(caps, "_Swish")) {
      ch->act = "_Swish";
      add_member(ch, first);
      add_member(ch, mul);
      return;
    }
    /* first = Mul(1/6, v) -> AddV2 0.5 -> Minimum 1 -> Maximum 0 = tail */
    if (!is_op(grt_opt_node(c, first), "Mul") || !caps_act(caps, "_HardSwish")) continue;
    int32_t k0, steps[3], at = first;
    if (other_operand(c, first, v, &k0) < 0 || !scalar_input(c, first, k0, 1.0f / 6.0f)) continue;
    static const char* const kOps[3] = {"AddV2", "Minimum", "Maximum"};
    static const float kArgs[3] = {0.5f, 1.0f, 0.0f};
    bool ok = true;
    for (int st = 0; st < 3 && ok; st++) {
      int32_t in, nx = sole_consumer(c, at, &in);
      ok = nx >= 0 && joinable(c, ch->conv, nx) && is_op(grt_opt_node(c, nx), kOps[st]) &&
           grt_opt_node(c, nx)->n_inputs == 2 && scalar_input(c, nx, 1 - in, kArgs[st]);
      steps[st] = at = nx;
    }
    if (!ok || tail != at || sole_consumer(c, at, &mi) != mul) continue;
    ch->act = "_HardSwish";
    add_member(ch, first);
    for (int st = 0; st < 3; st++) add_member(ch, steps[st]);
    add_member(ch, mul);
    return;
  }
}

/* The activation after ch->last, if one fuses: sets ch->act and adds its
 * nodes. */
static void match_act(grt_opt_ctx* c, const fusion_caps* caps, chain* ch) {
  int32_t in, j = sole_consumer(c, ch->last, &in);
  if (j < 0) {
    match_two_uses(c, caps, ch);
    return;
  }
  if (!joinable(c, ch->conv, j)) return;
  const grt_node* n = grt_opt_node(c, j);
  for (size_t k = 0; k < sizeof kActOps / sizeof kActOps[0]; k++)
    if (is_op(n, kActOps[k]) && caps_act(caps, kActOps[k])) {
      ch->act = kActOps[k];
      if (is_op(n, "LeakyRelu")) {
        const grt_attr_value* a = grt_node_attr(n, "alpha");
        if (!a || a->type != GRT_ATTR_FLOAT) return;
        ch->leaky_alpha = a->u.f;
      }
      add_member(ch, j);
      return;
    }
  /* Maximum(v, 0) [then Minimum(., 6)]: the importer's Relu and Clip(0, 6). */
  if (is_op(n, "Maximum") && n->n_inputs == 2 && scalar_input(c, j, 1 - in, 0.0f) &&
      caps_act(caps, "Relu")) {
    int32_t in2, m = sole_consumer(c, j, &in2);
    if (m >= 0 && joinable(c, ch->conv, m) && is_op(grt_opt_node(c, m), "Minimum") &&
        scalar_input(c, m, 1 - in2, 6.0f) && caps_act(caps, "Relu6") &&
        shapes_same(grt_opt_output_shape(c, m, 0), grt_opt_output_shape(c, ch->last, 0))) {
      ch->act = "Relu6";
      add_member(ch, j);
      add_member(ch, m);
      return;
    }
    if (!shapes_same(grt_opt_output_shape(c, j, 0), grt_opt_output_shape(c, ch->last, 0))) return;
    ch->act = "Relu";
    add_member(ch, j);
  }
}

/* The chain starting at convolution i, or false when nothing fuses. */
static bool match(grt_opt_ctx* c, const origins* o, int32_t i, const fusion_caps* caps, chain* ch) {
  memset(ch, 0, sizeof *ch);
  ch->conv = ch->last = i;
  ch->bias_src = ch->residual_src = -1;
  ch->members[ch->n_members++] = i;
  const grt_node* conv = grt_opt_node(c, i);
  const grt_attr_value* df = grt_node_attr(conv, "data_format");
  const char* format = df && df->type == GRT_ATTR_STRING ? df->u.s : "NHWC";
  int32_t in, j = sole_consumer(c, i, &in);
  if (j >= 0 && joinable(c, i, j) && is_op(grt_opt_node(c, j), "BiasAdd") && in == 0) {
    const grt_attr_value* bf = grt_node_attr(grt_opt_node(c, j), "data_format");
    if (bf && bf->type == GRT_ATTR_STRING && strcmp(bf->u.s, format) == 0) {
      ch->bias_src = grt_opt_input_node(c, j, 1, &ch->bias_port);
      add_member(ch, j);
    }
  }
  j = sole_consumer(c, ch->last, &in);
  if (caps->residual && j >= 0 && joinable(c, i, j) &&
      (is_op(grt_opt_node(c, j), "AddV2") || is_op(grt_opt_node(c, j), "Add"))) {
    int32_t port, other = grt_opt_input_node(c, j, 1 - in, &port);
    const grt_shape* mine = grt_opt_output_shape(c, ch->last, 0);
    if (other >= 0 && shapes_same(shape_of(c, o, other, port), mine) &&
        shapes_same(grt_opt_output_shape(c, j, 0), mine)) {
      ch->residual_src = other;
      ch->residual_port = port;
      add_member(ch, j);
    }
  }
  match_act(c, caps, ch);
  return ch->n_members > 1;
}

static grt_status* set_fused_attrs(grt_opt_ctx* c, int32_t f, const chain* ch) {
  grt_graph* g = grt_opt_graph(c);
  const char* ops[3];
  int32_t n = 0;
  ops[n++] = "BiasAdd";
  if (ch->residual_src >= 0) ops[n++] = "Add";
  if (ch->act) ops[n++] = ch->act;
  const char** list = grt_arena_alloc(g->arena, (size_t)n * sizeof *list);
  if (!list) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for fused_ops");
  memcpy(list, ops, (size_t)n * sizeof *list);
  grt_attr_value fo = {.type = GRT_ATTR_LIST_STRING};
  fo.u.list.n = n;
  fo.u.list.v.s = list;
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(g, f, "fused_ops", &fo));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, f, "num_args", ch->residual_src >= 0 ? 2 : 1));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(g, f, "epsilon", 0.0f));
  if (ch->act && strcmp(ch->act, "LeakyRelu") == 0)
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(g, f, "leakyrelu_alpha", ch->leaky_alpha));
  return NULL;
}

/* A zero bias of the convolution's output depth (from its filter). */
static grt_status* zero_bias(grt_opt_ctx* c, const chain* ch, bool depthwise, int32_t* out) {
  int32_t port;
  int32_t fsrc = grt_opt_input_node(c, ch->conv, 1, &port);
  const grt_shape* fs = grt_opt_output_shape(c, fsrc, port);
  *out = -1;
  if (!fs || fs->rank != 4 || fs->dims[2] < 0 || fs->dims[3] < 0) return NULL;
  int64_t oc = depthwise ? fs->dims[2] * fs->dims[3] : fs->dims[3];
  grt_tensor* t = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_FLOAT32, 1, &oc, &t));
  grt_status* s = grt_opt_add_const(c, ch->conv, "zero_bias", t, out);
  grt_tensor_free(t);
  return s;
}

static grt_status* fuse(grt_opt_ctx* c, origins* o, const chain* ch, bool depthwise, bool* done) {
  *done = false;
  int32_t bias = ch->bias_src, bias_port = ch->bias_port;
  if (bias < 0) {
    GRT_RETURN_IF_ERROR(zero_bias(c, ch, depthwise, &bias));
    if (bias < 0) return NULL; /* the depth is unknown */
    bias_port = 0;
  }
  const char* op = depthwise ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D";
  int32_t f;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, ch->last, "fused", op, &f));
  if (f - o->n_start >= o->cap) {
    int32_t cap = 2 * (f - o->n_start) + 16;
    int32_t* m = grt_realloc(o->orig, (size_t)cap * sizeof *m);
    if (!m) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory fusing convolutions");
    for (int32_t k = o->cap; k < cap; k++) m[k] = -1;
    o->orig = m;
    o->cap = cap;
  }
  o->orig[f - o->n_start] = ch->last;
  for (int32_t k = 0; k < 2; k++) {
    int32_t port, src = grt_opt_input_node(c, ch->conv, k, &port);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, f, src, port));
  }
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, f, bias, bias_port));
  if (ch->residual_src >= 0)
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, f, ch->residual_src, ch->residual_port));
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, f, ch->conv, NULL));
  GRT_RETURN_IF_ERROR(set_fused_attrs(c, f, ch));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, ch->last, 0, f, 0, false, true));
  for (int32_t k = 0; k < ch->n_members; k++) grt_opt_kill(c, ch->members[k]);
  grt_opt_take_name(c, f, ch->last);
  *done = true;
  return NULL;
}

grt_status* grt_opt_pass_conv_fusion(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c);
  int32_t fused = 0, residual = 0, act = 0;
  origins o = {n, NULL, 0};
  for (int32_t i = 0; i < n; i++) {
    const grt_node* node = grt_opt_node(c, i);
    bool depthwise = is_op(node, "DepthwiseConv2dNative");
    if ((!depthwise && !is_op(node, "Conv2D")) || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) ||
        node->n_controls > 0 || grt_opt_output_type(c, i, 0) != GRT_FLOAT32)
      continue;
    const char* type = grt_opt_device_type(c, i);
    const fusion_caps* caps = caps_of(type);
    const char* op = depthwise ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D";
    if (!caps || (depthwise && !caps->depthwise) || !grt_opt_has_kernel(type, op, "T", GRT_FLOAT32))
      continue;
    chain ch;
    if (!match(c, &o, i, caps, &ch)) continue;
    bool done;
    grt_status* s = fuse(c, &o, &ch, depthwise, &done);
    if (s) {
      grt_free(o.orig);
      return s;
    }
    if (!done) continue;
    fused++;
    residual += ch.residual_src >= 0;
    act += ch.act != NULL;
  }
  grt_free(o.orig);
  grt_opt_count(c, fused);
  if (fused)
    grt_opt_detail(c, "%d convolutions fused (%d with a residual Add, %d with an activation)",
                   (int)fused, (int)residual, (int)act);
  return NULL;
}
