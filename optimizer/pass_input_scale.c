/* Pass "input_scale": a squeeze-excitation block's channel scale taken into
 * the convolution after it.
 *
 * EfficientNet's and MobileNetV3's blocks end with Mul(x, s), x [N,H,W,C]
 * and s [N,1,1,C] (the sigmoid of the block's squeeze), then a convolution
 * (the 1x1 projection). conv(x * s) equals x convolved with the filter
 * whose input channels are scaled by s, so the _FusedConv2D takes s as an
 * extra first arg (fused_ops starting "_InputScale", ops/defs_fused.c) and
 * the CPU kernel scales its filter per batch element
 * (backends/cpu/conv_fused.c): the scaled copy of x, a pass over the
 * block's widest tensor, is never written.
 *
 * Taken when scaling the filter costs less than scaling the input: the
 * input's positions H*W at least kMinPositionsPerFilterRow times the
 * filter's KH*KW*OC entries per input channel (the early, wide blocks; the
 * late ones have small H*W and large filters). Float32, NHWC, one group,
 * no input_data_format, fused_ops starting with BiasAdd, on device types
 * whose kernel takes it (kTypes), the Mul read by this convolution alone
 * and waiting on no control input, its shapes known but for the batch. */
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "optimizer/passes.h"

static const char* const kTypes[] = {"CPU"};

/* A filter entry scaled and reordered per run against an input element
 * multiplied: the filter is small and its copy stays in cache. */
enum { kMinPositionsPerFilterRow = 2 };

static bool type_takes(const char* type) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (type && strcmp(kTypes[i], type) == 0) return true;
  return false;
}

/* Whether fused_ops starts with BiasAdd (so "_InputScale" can go first). */
static bool starts_with_bias(const grt_node* n) {
  const grt_attr_value* v = grt_node_attr(n, "fused_ops");
  return v && v->type == GRT_ATTR_LIST_STRING && v->u.list.n >= 1 &&
         strcmp(v->u.list.v.s[0], "BiasAdd") == 0;
}

/* Whether shapes x [N,H,W,C] and s [N,1,1,C] are the block's (N may be
 * unknown, the same on both). */
static bool scale_of(const grt_shape* x, const grt_shape* s, int64_t c) {
  return x && s && x->rank == 4 && s->rank == 4 && x->dims[0] == s->dims[0] && s->dims[1] == 1 &&
         s->dims[2] == 1 && x->dims[1] > 0 && x->dims[2] > 0 && x->dims[3] == c && s->dims[3] == c;
}

/* The Mul node i reads and which of its inputs is the scale, when node i
 * is a convolution this pass rewrites. */
static bool match(grt_opt_ctx* c, int32_t i, int32_t* mul, int32_t* x_in) {
  const grt_node* n = grt_opt_node(c, i);
  if (strcmp(n->op, "_FusedConv2D") != 0 || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) ||
      !type_takes(grt_opt_device_type(c, i)) || grt_opt_output_type(c, i, 0) != GRT_FLOAT32 ||
      strcmp(grt_opt_attr_string(n, "data_format", "NHWC"), "NHWC") != 0 ||
      grt_opt_attr_string(n, "input_data_format", "")[0] != 0 || !starts_with_bias(n))
    return false;
  int32_t mport, fport;
  *mul = grt_opt_input_node(c, i, 0, &mport);
  int32_t f = grt_opt_input_node(c, i, 1, &fport);
  if (*mul < 0 || f < 0 || mport != 0 || grt_opt_is_dead(c, *mul)) return false;
  const grt_node* m = grt_opt_node(c, *mul);
  if (strcmp(m->op, "Mul") != 0 || m->n_inputs != 2 || m->n_controls != 0 ||
      grt_opt_num_data_uses(c, *mul) != 1 || grt_opt_output_type(c, *mul, 0) != GRT_FLOAT32 ||
      strcmp(grt_opt_device_type(c, *mul), grt_opt_device_type(c, i)) != 0)
    return false;
  const grt_shape* w = grt_opt_output_shape(c, f, fport);
  if (!w || w->rank != 4 || w->dims[2] <= 0 || w->dims[3] <= 0 || w->dims[0] <= 0 ||
      w->dims[1] <= 0)
    return false;
  int32_t p0, p1;
  int32_t a = grt_opt_input_node(c, *mul, 0, &p0), b = grt_opt_input_node(c, *mul, 1, &p1);
  if (a < 0 || b < 0) return false;
  const grt_shape* sa = grt_opt_output_shape(c, a, p0);
  const grt_shape* sb = grt_opt_output_shape(c, b, p1);
  if (scale_of(sa, sb, w->dims[2]))
    *x_in = 0;
  else if (scale_of(sb, sa, w->dims[2]))
    *x_in = 1;
  else
    return false;
  const grt_shape* x = *x_in == 0 ? sa : sb;
  return x->dims[1] * x->dims[2] >=
         kMinPositionsPerFilterRow * w->dims[0] * w->dims[1] * w->dims[3];
}

/* Node i reads x and takes the scale as its first arg. */
static grt_status* rewrite(grt_opt_ctx* c, int32_t i, int32_t mul, int32_t x_in) {
  int32_t s, xp, sp;
  int32_t x = grt_opt_input_node(c, mul, x_in, &xp);
  int32_t sc = grt_opt_input_node(c, mul, 1 - x_in, &sp);
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "input_scale", "_FusedConv2D", &s));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, x, xp));
  int32_t fp, f = grt_opt_input_node(c, i, 1, &fp);
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, f, fp));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, sc, sp));
  /* Node i is looked up again after each addition: the array may move. */
  for (int32_t k = 2; k < grt_opt_node(c, i)->n_inputs; k++) {
    int32_t p, from = grt_opt_input_node(c, i, k, &p);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, from, p));
  }
  GRT_RETURN_IF_ERROR(grt_opt_copy_controls(c, s, i));
  static const char* const kSkip[] = {"fused_ops", "num_args", NULL};
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, s, i, kSkip));
  const grt_attr_value* v = grt_node_attr(grt_opt_node(c, i), "fused_ops");
  grt_graph* g = grt_opt_graph(c);
  int32_t n = v->u.list.n + 1;
  const char** ops = grt_arena_alloc(g->arena, (size_t)n * sizeof *ops);
  if (!ops) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for fused_ops");
  ops[0] = "_InputScale";
  memcpy(ops + 1, v->u.list.v.s, (size_t)v->u.list.n * sizeof *ops);
  grt_attr_value fo = {.type = GRT_ATTR_LIST_STRING};
  fo.u.list.n = n;
  fo.u.list.v.s = ops;
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(g, s, "fused_ops", &fo));
  const grt_attr_value* na = grt_node_attr(grt_opt_node(c, i), "num_args");
  int64_t num_args = na && na->type == GRT_ATTR_INT ? na->u.i : 1;
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, s, "num_args", num_args + 1));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, s, 0, true, true));
  grt_opt_kill(c, i);
  grt_opt_kill(c, mul);
  grt_opt_take_name(c, s, i);
  /* A value fed for the Mul would no longer reach the convolution. */
  grt_opt_mark_feed_unsafe(c, mul);
  return NULL;
}

grt_status* grt_opt_pass_input_scale(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), done = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t mul, x_in;
    if (!match(c, i, &mul, &x_in)) continue;
    GRT_RETURN_IF_ERROR(rewrite(c, i, mul, x_in));
    done++;
  }
  grt_opt_count(c, done);
  if (done) grt_opt_detail(c, "%d convolutions take their input's channel scale", (int)done);
  return NULL;
}
