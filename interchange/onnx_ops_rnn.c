/* ONNX RNN, GRU and LSTM: one grt node each (_RNN, _GRU, _LSTM:
 * ops/defs_rnn.c), whose kernel loops over the sequence. The graph's size
 * does not depend on the sequence length, which comes from X at run time
 * (symbolic, computed or of any size). The ONNX node's inputs and attrs
 * pass through as they are; an absent optional input becomes an empty
 * Const (the ops' "absent"), sequence_lens of another integer type a Cast
 * to int32, and float16/float64 models run in float32 between Casts (the
 * kernel's only type). The attrs are checked when the node's shape is
 * inferred (ops/rnn.c), so a bad one fails the import naming the node. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/attr.h"
#include "ops/graph.h"

/* An empty 1-D Const of dtype t: an absent optional input. */
static grt_status* absent(onnx_import* ctx, grt_dtype t, const char** out) {
  int64_t zero = 0;
  grt_tensor* e;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, 1, &zero, &e));
  grt_status* s = onnx_const(ctx, "absent", e, out);
  grt_tensor_free(e);
  return s;
}

/* Input k as the op wants it: float32 (int32 for sequence_lens), or an
 * empty Const where the ONNX node leaves it out. */
static grt_status* input(onnx_import* ctx, int k, const char** out) {
  grt_dtype want = k == 4 ? GRT_INT32 : GRT_FLOAT32;
  if (!onnx_has_input(ctx, k)) return absent(ctx, want, out);
  const onnx_value* v;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, k, &v));
  if (k == 4 && v->dtype != GRT_INT32 && v->dtype != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "sequence_lens must be int32, got %s",
                     grt_dtype_name(v->dtype));
  return onnx_cast(ctx, k == 4 ? "lens_int32" : "float32", v->ref, v->dtype, want, out);
}

/* A copy of ONNX's bytes as a string in the graph's arena. */
static const char* arena_string(onnx_import* ctx, const ProtobufCBinaryData* b) {
  char* s = grt_arena_alloc(ctx->g->arena, b->len + 1);
  if (!s) return NULL;
  if (b->len) memcpy(s, b->data, b->len);
  s[b->len] = '\0';
  return s;
}

static grt_status* set_strings(onnx_import* ctx, int32_t node, const char* name,
                               const Onnx__AttributeProto* a) {
  if (!a) return NULL;
  if (a->n_strings > 64)
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' lists %zu functions", name, a->n_strings);
  const char** v = grt_arena_alloc(ctx->g->arena, (a->n_strings + 1) * sizeof *v);
  if (!v) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < a->n_strings; i++)
    if (!(v[i] = arena_string(ctx, &a->strings[i])))
      return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_attr_value val = {.type = GRT_ATTR_LIST_STRING};
  val.u.list.n = (int32_t)a->n_strings;
  val.u.list.v.s = v;
  return grt_graph_set_attr_value(ctx->g, node, name, &val);
}

static grt_status* set_floats(onnx_import* ctx, int32_t node, const char* name,
                              const Onnx__AttributeProto* a) {
  if (!a) return NULL;
  if (a->n_floats > 64)
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' lists %zu values", name, a->n_floats);
  float* v = grt_arena_alloc(ctx->g->arena, (a->n_floats + 1) * sizeof *v);
  if (!v) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  if (a->n_floats) memcpy(v, a->floats, a->n_floats * sizeof *v);
  grt_attr_value val = {.type = GRT_ATTR_LIST_FLOAT};
  val.u.list.n = (int32_t)a->n_floats;
  val.u.list.v.f = v;
  return grt_graph_set_attr_value(ctx->g, node, name, &val);
}

/* An int attribute that ONNX allows only 0 or 1 for, as a bool attr. */
static grt_status* set_flag(onnx_import* ctx, int32_t node, const char* name) {
  int64_t v;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, name, 0, &v));
  if (v != 0 && v != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' is %lld (0 or 1)", name, (long long)v);
  return grt_graph_set_attr_bool(ctx->g, node, name, v == 1);
}

static grt_status* set_attrs(onnx_import* ctx, int32_t node, const char* op) {
  int64_t hidden, layout;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "hidden_size", -1, &hidden));
  if (!onnx_attr(ctx, "hidden_size"))
    return GRT_ERROR(INVALID_ARGUMENT, "attribute 'hidden_size' is required");
  if (hidden < 1 || hidden > ((int64_t)1 << 24))
    return GRT_ERROR(INVALID_ARGUMENT, "attribute 'hidden_size' is %lld (1 to 2^24)",
                     (long long)hidden);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, node, "hidden_size", hidden));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "layout", 0, &layout));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, node, "layout", layout));
  const Onnx__AttributeProto* dir = onnx_attr(ctx, "direction");
  if (dir) {
    const char* d = arena_string(ctx, &dir->s);
    if (!d) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, node, "direction", d));
  }
  if (onnx_attr(ctx, "clip")) { /* ONNX's "no clip" is the attribute left out */
    float clip;
    GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "clip", 0.0f, &clip));
    if (!(clip > 0.0f) || isinf(clip))
      return GRT_ERROR(INVALID_ARGUMENT, "attribute 'clip' is %g (a positive threshold)",
                       (double)clip);
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(ctx->g, node, "clip", clip));
  }
  GRT_RETURN_IF_ERROR(set_strings(ctx, node, "activations", onnx_attr(ctx, "activations")));
  GRT_RETURN_IF_ERROR(
      set_floats(ctx, node, "activation_alpha", onnx_attr(ctx, "activation_alpha")));
  GRT_RETURN_IF_ERROR(set_floats(ctx, node, "activation_beta", onnx_attr(ctx, "activation_beta")));
  if (strcmp(op, "_GRU") == 0) GRT_RETURN_IF_ERROR(set_flag(ctx, node, "linear_before_reset"));
  if (strcmp(op, "_LSTM") == 0) GRT_RETURN_IF_ERROR(set_flag(ctx, node, "input_forget"));
  return NULL;
}

static grt_status* recurrent(onnx_import* ctx, const char* op) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  grt_dtype t = x->dtype;
  if (t != GRT_FLOAT32 && t != GRT_FLOAT16 && t != GRT_FLOAT64)
    return GRT_ERROR(INVALID_ARGUMENT, "X must be float16, float32 or float64, got %s",
                     grt_dtype_name(t));
  int n_in = strcmp(op, "_LSTM") == 0 ? 8 : 6, n_out = n_in == 8 ? 3 : 2;
  const char* in[8];
  for (int k = 0; k < n_in; k++) GRT_RETURN_IF_ERROR(input(ctx, k, &in[k]));
  int32_t node;
  const char* name;
  /* Named as the node's first output (ctx->base) only when that is Y, its
   * output 0: Y_h's name must stay free for the Identity that gives it. */
  const char* suffix = t == GRT_FLOAT32 && onnx_has_output(ctx, 0) ? NULL : "rnn";
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, op, suffix, GRT_FLOAT32, in, n_in, &node, &name));
  GRT_RETURN_IF_ERROR(set_attrs(ctx, node, op));
  for (int k = 0; k < n_out; k++) {
    if (!onnx_has_output(ctx, k)) continue;
    size_t len = strlen(name) + 8;
    char* ref = grt_arena_alloc(ctx->g->arena, len);
    if (!ref) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    if (k == 0)
      snprintf(ref, len, "%s", name);
    else
      snprintf(ref, len, "%s:%d", name, k);
    const char* out;
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast_back", ref, GRT_FLOAT32, t, &out));
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, k, out, t, k == 0 ? 4 : 3));
  }
  return NULL;
}

static grt_status* rnn(onnx_import* ctx, const char* tf) { return recurrent(ctx, tf); }

#define RNN_ATTRS "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout"

const onnx_op_row grt_onnx_ops_rnn[] = {
    {"RNN", rnn, "_RNN", RNN_ATTRS},
    {"GRU", rnn, "_GRU", RNN_ATTRS ",linear_before_reset"},
    {"LSTM", rnn, "_LSTM", RNN_ATTRS ",input_forget"},
    {NULL, NULL, NULL, NULL},
};
