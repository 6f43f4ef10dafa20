/* ONNX's older op forms (opsets 1 to 9) rewritten into the forms grt's
 * converters read, as ONNX's version converter would, so that old models
 * import with their old meaning:
 *   consumed_inputs (opsets 1-5, many ops): a memory hint; dropped
 *   broadcast, axis on Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal,
 *     Greater, Less (1-6): broadcast=1 lays B's dims over A's from `axis`
 *     (by default over A's last dims), which is numpy broadcasting once B
 *     has trailing 1-dims up to A's rank; broadcast=0 wants equal shapes,
 *     which numpy broadcasting also takes
 *   Gemm broadcast (1-6): C broadcasts from opset 7 on anyway; dropped
 *   PRelu (1-6): a 1-D slope of more than one value is per channel (axis
 *     1), so it gets trailing 1-dims
 *   BatchNormalization is_test (1-6), spatial (1-8); Dropout is_test (1-6):
 *     inference (is_test=1) and spatial=1 are the newer forms' meaning and
 *     import; training mode and per-activation statistics are refused
 *   Slice (1-9): the starts, ends, axes attributes become constant inputs
 *   Reshape (1-4): the shape attribute becomes a constant input
 *   Cast (1-5): `to` names the type ("FLOAT"); it becomes the number
 *   Concat (1-3): axis was optional, default 1
 *   Pad (1): paddings is pads
 *   TopK (1-9): the k attribute becomes the K input
 *   Upsample (7-8): the scales attribute becomes an input
 * Refused, naming the opsets: Upsample 1-6 (experimental), Tile 1-5. */
#include "interchange/onnx_legacy.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_tensor.h"
#include "ops/graph.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory importing an ONNX model")

/* Room for the inputs and attributes an upgrade adds. */
enum { kExtraInputs = 4, kExtraAttrs = 2 };

static const Onnx__AttributeProto* find_attr(const Onnx__NodeProto* n, const char* name) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0) return n->attribute[i];
  return NULL;
}

static void drop_attr(Onnx__NodeProto* n, const char* name) {
  size_t k = 0;
  for (size_t i = 0; i < n->n_attribute; i++)
    if (!n->attribute[i]->name || strcmp(n->attribute[i]->name, name) != 0)
      n->attribute[k++] = n->attribute[i];
  n->n_attribute = k;
}

static grt_status* add_int_attr(onnx_import* ctx, Onnx__NodeProto* n, const char* name, int64_t v) {
  Onnx__AttributeProto* a = grt_arena_alloc(ctx->g->arena, sizeof *a);
  char* copy = grt_arena_strdup(ctx->g->arena, name);
  if (!a || !copy) return OOM();
  *a = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
  a->name = copy;
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  a->has_i = 1;
  a->i = v;
  n->attribute[n->n_attribute++] = a;
  return NULL;
}

/* An int attribute's value, or dflt when it is absent. */
static grt_status* int_attr(const Onnx__NodeProto* n, const char* name, int64_t dflt,
                            int64_t* out) {
  const Onnx__AttributeProto* a = find_attr(n, name);
  *out = dflt;
  if (!a) return NULL;
  if (!a->has_i) return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be an int", name);
  *out = a->i;
  return NULL;
}

/* Input k of the node becomes the value `ref` (defined under a new ONNX
 * name); inputs skipped on the way are absent (""). */
static grt_status* set_input(onnx_import* ctx, Onnx__NodeProto* n, size_t k, const char* what,
                             const onnx_value* v) {
  char name[512];
  snprintf(name, sizeof name, "%s/legacy_%s", ctx->base, what);
  GRT_RETURN_IF_ERROR(onnx_define(ctx, name, v));
  char* copy = grt_arena_strdup(ctx->g->arena, name);
  if (!copy) return OOM();
  while (n->n_input < k) n->input[n->n_input++] = "";
  n->input[k] = copy;
  if (n->n_input <= k) n->n_input = k + 1;
  return NULL;
}

/* Input k becomes the constant tensor t (not taken). */
static grt_status* set_const_input(onnx_import* ctx, Onnx__NodeProto* n, size_t k, const char* what,
                                   grt_tensor* t) {
  const char* ref;
  GRT_RETURN_IF_ERROR(onnx_const(ctx, what, t, &ref));
  const grt_node* node = &ctx->g->nodes[grt_graph_find_node(ctx->g, ref)];
  onnx_value v = {ref, t->dtype, t->shape.rank, grt_node_find_attr(node, "value")->u.tensor};
  return set_input(ctx, n, k, what, &v);
}

static grt_status* set_ints_input(onnx_import* ctx, Onnx__NodeProto* n, size_t k, const char* what,
                                  const int64_t* v, size_t count) {
  int64_t dims[1] = {(int64_t)count};
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_INT64, 1, dims, &t));
  if (count) memcpy(grt_tensor_data(t), v, count * sizeof *v);
  grt_status* s = set_const_input(ctx, n, k, what, t);
  grt_tensor_free(t);
  return s;
}

/* An ints attribute moved to constant input k (when present). */
static grt_status* attr_to_input(onnx_import* ctx, Onnx__NodeProto* n, const char* attr, size_t k) {
  const Onnx__AttributeProto* a = find_attr(n, attr);
  if (!a) return NULL;
  GRT_RETURN_IF_ERROR(set_ints_input(ctx, n, k, attr, a->ints, a->n_ints));
  drop_attr(n, attr);
  return NULL;
}

/* Input k gains `count` trailing 1-dims (ExpandDims at -1, repeated). */
static grt_status* trailing_ones(onnx_import* ctx, Onnx__NodeProto* n, size_t k, int32_t count) {
  const onnx_value* v;
  const Onnx__NodeProto* saved = ctx->node;
  ctx->node = n;
  grt_status* s = onnx_input(ctx, (int)k, &v);
  ctx->node = saved;
  GRT_RETURN_IF_ERROR(s);
  onnx_value out = *v;
  out.constant = NULL;
  const char* minus_one;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, -1, &minus_one));
  for (int32_t i = 0; i < count; i++) {
    const char* in[2] = {out.ref, minus_one};
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "ExpandDims", "legacy_ones", v->dtype, in, 2, NULL, &out.ref));
  }
  if (out.rank >= 0) out.rank += count;
  return set_input(ctx, n, k, k == 1 ? "b" : "in", &out);
}

static int32_t input_rank(onnx_import* ctx, const Onnx__NodeProto* n, int k) {
  if ((size_t)k >= n->n_input) return -1;
  int32_t i = grt_strmap_get(&ctx->by_name, n->input[k]);
  return i < 0 ? -1 : ctx->values[i].rank;
}

/* ---- the upgrades -------------------------------------------------------- */

static grt_status* legacy_broadcast(onnx_import* ctx, Onnx__NodeProto* n) {
  int64_t broadcast, axis;
  GRT_RETURN_IF_ERROR(int_attr(n, "broadcast", 0, &broadcast));
  bool has_axis = find_attr(n, "axis") != NULL;
  GRT_RETURN_IF_ERROR(int_attr(n, "axis", 0, &axis));
  drop_attr(n, "broadcast");
  drop_attr(n, "axis");
  if (!broadcast || !has_axis) return NULL;
  int32_t ra = input_rank(ctx, n, 0), rb = input_rank(ctx, n, 1);
  if (ra < 0 || rb < 0)
    return GRT_ERROR(UNIMPLEMENTED,
                     "broadcasting along axis %lld (opsets 1-6) needs the ranks of both inputs",
                     (long long)axis);
  if (axis < 0) axis += ra;
  if (axis < 0 || axis + rb > ra)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "broadcast axis %lld does not fit B (rank %d) into A (rank %d)",
                     (long long)axis, rb, ra);
  int32_t pad = ra - (int32_t)axis - rb;
  return pad ? trailing_ones(ctx, n, 1, pad) : NULL;
}

static grt_status* drop_broadcast(onnx_import* ctx, Onnx__NodeProto* n) {
  (void)ctx;
  drop_attr(n, "broadcast");
  return NULL;
}

static grt_status* legacy_prelu(onnx_import* ctx, Onnx__NodeProto* n) {
  int32_t rx = input_rank(ctx, n, 0), rs = input_rank(ctx, n, 1);
  if (rs != 1 || rx < 3) return NULL;
  int32_t i = grt_strmap_get(&ctx->by_name, n->input[1]);
  const grt_tensor* c = ctx->values[i].constant;
  if (c && grt_tensor_num_elements(c) == 1) return NULL;
  return trailing_ones(ctx, n, 1, rx - 2);
}

/* is_test must be 1 (inference), spatial 1 (per-channel statistics). */
static grt_status* inference_only(onnx_import* ctx, Onnx__NodeProto* n) {
  int64_t is_test, spatial;
  GRT_RETURN_IF_ERROR(int_attr(n, "is_test", ctx->opset < 7 ? 0 : 1, &is_test));
  GRT_RETURN_IF_ERROR(int_attr(n, "spatial", 1, &spatial));
  if (!is_test)
    return GRT_ERROR(UNIMPLEMENTED,
                     "training mode (is_test = 0, the default before opset 7) is not supported "
                     "for opset %lld models: grt imports them for inference",
                     (long long)ctx->opset);
  if (!spatial)
    return GRT_ERROR(UNIMPLEMENTED,
                     "per-activation statistics (spatial = 0, opsets 1-8) are not supported");
  drop_attr(n, "is_test");
  drop_attr(n, "spatial");
  return NULL;
}

static grt_status* slice_attrs(onnx_import* ctx, Onnx__NodeProto* n) {
  if (!find_attr(n, "starts") || !find_attr(n, "ends"))
    return GRT_ERROR(INVALID_ARGUMENT, "Slice of opsets 1-9 needs the starts and ends attributes");
  n->n_input = n->n_input ? 1 : 0;
  GRT_RETURN_IF_ERROR(attr_to_input(ctx, n, "starts", 1));
  GRT_RETURN_IF_ERROR(attr_to_input(ctx, n, "ends", 2));
  return attr_to_input(ctx, n, "axes", 3);
}

static grt_status* reshape_attr(onnx_import* ctx, Onnx__NodeProto* n) {
  if (!find_attr(n, "shape"))
    return GRT_ERROR(INVALID_ARGUMENT, "Reshape of opsets 1-4 needs the shape attribute");
  n->n_input = n->n_input ? 1 : 0;
  return attr_to_input(ctx, n, "shape", 1);
}

static grt_status* cast_name(onnx_import* ctx, Onnx__NodeProto* n) {
  const Onnx__AttributeProto* a = find_attr(n, "to");
  if (!a || !a->has_s) return NULL; /* an int already, or missing: the converter says */
  char name[32];
  size_t len = a->s.len < sizeof name - 1 ? a->s.len : sizeof name - 1;
  memcpy(name, a->s.data, len);
  name[len] = '\0';
  const ProtobufCEnumValue* e = protobuf_c_enum_descriptor_get_value_by_name(
      &onnx__tensor_proto__data_type__descriptor, name);
  if (!e) return GRT_ERROR(INVALID_ARGUMENT, "Cast to '%s': not an ONNX type name", name);
  drop_attr(n, "to");
  return add_int_attr(ctx, n, "to", e->value);
}

static grt_status* concat_axis(onnx_import* ctx, Onnx__NodeProto* n) {
  return find_attr(n, "axis") ? NULL : add_int_attr(ctx, n, "axis", 1);
}

static grt_status* pad_paddings(onnx_import* ctx, Onnx__NodeProto* n) {
  (void)ctx;
  for (size_t i = 0; i < n->n_attribute; i++) {
    const Onnx__AttributeProto* a = n->attribute[i];
    if (!a->name || strcmp(a->name, "paddings") != 0) continue;
    Onnx__AttributeProto* renamed = grt_arena_alloc(ctx->g->arena, sizeof *renamed);
    if (!renamed) return OOM();
    *renamed = *a;
    renamed->name = "pads";
    n->attribute[i] = renamed;
  }
  return NULL;
}

static grt_status* top_k_attr(onnx_import* ctx, Onnx__NodeProto* n) {
  int64_t k;
  if (!find_attr(n, "k"))
    return GRT_ERROR(INVALID_ARGUMENT, "TopK of opsets 1-9 needs the k attribute");
  GRT_RETURN_IF_ERROR(int_attr(n, "k", 0, &k));
  drop_attr(n, "k");
  n->n_input = n->n_input ? 1 : 0;
  return set_ints_input(ctx, n, 1, "k", &k, 1);
}

static grt_status* upsample_scales(onnx_import* ctx, Onnx__NodeProto* n) {
  if (ctx->opset < 7)
    return GRT_ERROR(UNIMPLEMENTED,
                     "Upsample of opsets 1-6 (experimental) is not supported; grt imports it from "
                     "opset 7");
  const Onnx__AttributeProto* a = find_attr(n, "scales");
  if (!a) return GRT_ERROR(INVALID_ARGUMENT, "Upsample of opsets 7-8 needs the scales attribute");
  int64_t dims[1] = {(int64_t)a->n_floats};
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_FLOAT32, 1, dims, &t));
  if (a->n_floats) memcpy(grt_tensor_data(t), a->floats, a->n_floats * sizeof(float));
  drop_attr(n, "scales");
  n->n_input = n->n_input ? 1 : 0;
  grt_status* s = set_const_input(ctx, n, 1, "scales", t);
  grt_tensor_free(t);
  return s;
}

static grt_status* refuse_tile(onnx_import* ctx, Onnx__NodeProto* n) {
  (void)n;
  return GRT_ERROR(UNIMPLEMENTED,
                   "Tile of opsets 1-5 (tiles and axis inputs) is not supported in this opset %lld "
                   "model; grt imports Tile from opset 6",
                   (long long)ctx->opset);
}

typedef grt_status* (*upgrade_fn)(onnx_import* ctx, Onnx__NodeProto* n);

/* op, the first opset of the form the converters read, the rewrite. */
static const struct {
  const char* op;
  int64_t form;
  upgrade_fn fn;
} kUpgrades[] = {
    {"Add", 7, legacy_broadcast},   {"Sub", 7, legacy_broadcast},
    {"Mul", 7, legacy_broadcast},   {"Div", 7, legacy_broadcast},
    {"Pow", 7, legacy_broadcast},   {"And", 7, legacy_broadcast},
    {"Or", 7, legacy_broadcast},    {"Xor", 7, legacy_broadcast},
    {"Equal", 7, legacy_broadcast}, {"Greater", 7, legacy_broadcast},
    {"Less", 7, legacy_broadcast},  {"Gemm", 7, drop_broadcast},
    {"PRelu", 7, legacy_prelu},     {"BatchNormalization", 9, inference_only},
    {"Dropout", 7, inference_only}, {"Slice", 10, slice_attrs},
    {"Reshape", 5, reshape_attr},   {"Cast", 6, cast_name},
    {"Concat", 4, concat_axis},     {"Pad", 2, pad_paddings},
    {"TopK", 10, top_k_attr},       {"Upsample", 9, upsample_scales},
    {"Tile", 6, refuse_tile},
};

/* The newest form above is opset 10's. */
enum { kNewestForm = 10 };

grt_status* grt_onnx_legacy_upgrade(onnx_import* ctx, onnx_legacy_node* up) {
  if (ctx->opset >= kNewestForm) return NULL;
  const Onnx__NodeProto* n = ctx->node;
  const char* op = n->op_type ? n->op_type : "";
  size_t row = sizeof kUpgrades / sizeof kUpgrades[0];
  for (size_t i = 0; i < sizeof kUpgrades / sizeof kUpgrades[0]; i++)
    if (strcmp(kUpgrades[i].op, op) == 0 && ctx->opset < kUpgrades[i].form) row = i;
  bool found = row < sizeof kUpgrades / sizeof kUpgrades[0];
  if (!found && !find_attr(n, "consumed_inputs")) return NULL;
  up->node = *n;
  up->opset = found ? kUpgrades[row].form : ctx->opset;
  up->node.input = grt_arena_alloc(ctx->g->arena, (n->n_input + kExtraInputs) * sizeof(char*));
  up->node.attribute = grt_arena_alloc(
      ctx->g->arena, (n->n_attribute + kExtraAttrs) * sizeof(Onnx__AttributeProto*));
  if (!up->node.input || !up->node.attribute) return OOM();
  for (size_t i = 0; i < n->n_input; i++) up->node.input[i] = n->input[i];
  for (size_t i = 0; i < n->n_attribute; i++) up->node.attribute[i] = n->attribute[i];
  drop_attr(&up->node, "consumed_inputs");
  if (found) GRT_RETURN_IF_ERROR(kUpgrades[row].fn(ctx, &up->node));
  ctx->node = &up->node;
  ctx->opset = up->opset;
  return NULL;
}
