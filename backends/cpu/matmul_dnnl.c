/* float32 products on oneDNN's matmul primitive (see matmul_dnnl.h).
 *
 * Primitives are cached per node and shape (dnnl_util's plan cache); the
 * bias and the activation are the primitive's own (a bias argument and an
 * eltwise post-op), so _FusedMatMul is one call with no pass over the
 * output afterwards. Constant weights are described to oneDNN as "any
 * layout": the primitive picks the blocked layout its kernel reads fastest,
 * and the weights are reordered into it once, on the first run that sees
 * them, and kept in the node's state for later runs; so are a variable's
 * that no run is writing (dnnl_pack.h: grt_dnnl_weights_of). Other weights
 * are passed as they are (no per-call reorder). */
#include "backends/cpu/matmul_dnnl.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "backends/cpu/dnnl_util.h"

enum { kSrc = 0, kWeights = 1, kBias = 2, kDst = 3, kWeightsPlain = 4 };
enum { kKeyLen = 9 };

/* The node's plans and packed constant weights: dnnl_util's cache. */
typedef grt_dnnl_cache mm_state;

int64_t grt_mm_pack_count(void) { return grt_dnnl_pack_count(); }

grt_status* grt_mm_state_new(const grt_node* node, void** out_state) {
  return grt_dnnl_state_new(node, out_state);
}

void grt_mm_state_free(void* state) { grt_dnnl_state_free(state); }

static void make_key(const grt_mm_call* c, int64_t* key) {
  key[0] = c->m;
  key[1] = c->k;
  key[2] = c->n;
  key[3] = c->ta;
  key[4] = c->tb;
  key[5] = c->bias != NULL;
  key[6] = c->act;
  key[7] = c->const_b;
  key[8] = 0; /* the team (grt_mm_dnnl_run) */
}

/* The activation as a oneDNN eltwise post-op: algorithm, alpha, beta. */
typedef struct {
  dnnl_alg_kind_t alg;
  float alpha, beta;
} act_row;

static const act_row kActs[] = {
    [GRT_MM_RELU] = {dnnl_eltwise_relu, 0.0f, 0.0f},
    [GRT_MM_RELU6] = {dnnl_eltwise_clip, 0.0f, 6.0f},
    [GRT_MM_ELU] = {dnnl_eltwise_elu, 1.0f, 0.0f},
    [GRT_MM_GELU_EXACT] = {dnnl_eltwise_gelu_erf, 0.0f, 0.0f},
    [GRT_MM_GELU_APPROX] = {dnnl_eltwise_gelu_tanh, 0.0f, 0.0f},
};

void grt_mm_activation_eltwise(grt_mm_activation act, int* alg, float* alpha, float* beta) {
  *alg = kActs[act].alg;
  *alpha = kActs[act].alpha;
  *beta = kActs[act].beta;
}

static grt_status* md_strided(int64_t rows, int64_t cols, bool transposed,
                              dnnl_memory_desc_t* out) {
  dnnl_dims_t d = {rows, cols};
  dnnl_dims_t s = {transposed ? 1 : cols, transposed ? rows : 1};
  return grt_dnnl_check(dnnl_memory_desc_init_by_strides(out, 2, d, dnnl_f32, s),
                        "oneDNN matmul descriptor");
}

static grt_status* make_attr(const grt_mm_call* c, dnnl_primitive_attr_t* out) {
  GRT_RETURN_IF_ERROR(grt_dnnl_check(dnnl_primitive_attr_create(out), "oneDNN matmul attributes"));
  grt_status* st =
      grt_dnnl_check(dnnl_primitive_attr_set_scratchpad_mode(*out, dnnl_scratchpad_mode_user),
                     "oneDNN matmul attributes");
  if (!st && c->act != GRT_MM_NONE) {
    dnnl_post_ops_t po = NULL;
    const act_row* a = &kActs[c->act];
    st = grt_dnnl_check(dnnl_post_ops_create(&po), "oneDNN matmul post-ops");
    if (!st)
      st = grt_dnnl_check(dnnl_post_ops_append_eltwise(po, 1.0f, a->alg, a->alpha, a->beta),
                          "oneDNN matmul post-ops");
    if (!st)
      st = grt_dnnl_check(dnnl_primitive_attr_set_post_ops(*out, po), "oneDNN matmul post-ops");
    if (po) dnnl_post_ops_destroy(po);
  }
  if (st) dnnl_primitive_attr_destroy(*out);
  return st;
}

static grt_status* build_plan(const grt_mm_call* c, grt_dnnl_plan* p) {
  GRT_RETURN_IF_ERROR(md_strided(c->m, c->k, c->ta, &p->md[kSrc]));
  GRT_RETURN_IF_ERROR(md_strided(c->k, c->n, c->tb, &p->md[kWeightsPlain]));
  dnnl_memory_desc_t want = p->md[kWeightsPlain];
  dnnl_dims_t wd = {c->k, c->n}, bd = {1, c->n}, dd = {c->m, c->n};
  if (c->const_b)
    GRT_RETURN_IF_ERROR(
        grt_dnnl_check(dnnl_memory_desc_init_by_tag(&want, 2, wd, dnnl_f32, dnnl_format_tag_any),
                       "oneDNN matmul descriptor"));
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&p->md[kBias], 2, bd, dnnl_f32, dnnl_ab),
                     "oneDNN matmul descriptor"));
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&p->md[kDst], 2, dd, dnnl_f32, dnnl_ab),
                     "oneDNN matmul descriptor"));
  dnnl_matmul_desc_t d;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_matmul_desc_init(&d, &p->md[kSrc], &want, c->bias ? &p->md[kBias] : NULL, &p->md[kDst]),
      "oneDNN matmul descriptor"));
  dnnl_primitive_attr_t attr;
  GRT_RETURN_IF_ERROR(make_attr(c, &attr));
  dnnl_engine_t e = grt_dnnl_engine();
  dnnl_primitive_desc_t pd = NULL;
  grt_status* st = e ? NULL : GRT_ERROR(INTERNAL, "oneDNN has no CPU engine");
  if (!st) st = grt_dnnl_check(dnnl_primitive_desc_create(&pd, &d, attr, e, NULL), "oneDNN matmul");
  dnnl_primitive_attr_destroy(attr);
  if (st) return st;
  p->md[kWeights] = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  p->scratch[0] =
      dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
  st = grt_dnnl_check(dnnl_primitive_create(&p->prim[0], pd), "oneDNN matmul");
  dnnl_primitive_desc_destroy(pd);
  return st;
}

/* The plan for c: cached, or built now (*owned: free it after the call). */
static grt_status* find_plan(mm_state* s, const grt_mm_call* c, const int64_t* key,
                             grt_dnnl_plan** out, bool* owned) {
  *owned = false;
  grt_dnnl_cache* cache = s;
  if ((*out = grt_dnnl_cache_find(cache, key, kKeyLen))) return NULL;
  grt_dnnl_plan* p = grt_dnnl_plan_new();
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_status* st = build_plan(c, p);
  if (st) {
    grt_dnnl_plan_free(p);
    return st;
  }
  *out = grt_dnnl_cache_offer(cache, key, kKeyLen, p, owned);
  return NULL;
}

void grt_mm_weights(grt_kernel_ctx* ctx, grt_mm_call* c) {
  mm_state* s = ctx->state;
  grt_dnnl_weights w = grt_dnnl_weights_of(ctx, s ? &s->packs : NULL, c->b);
  c->const_b = w.keep;
  c->b_version = w.version;
}

/* The work a product's team is sized by. A product of a few rows streams
 * its weights (each weight is used m times), so it waits on memory as a
 * depthwise convolution does and counts 4 per multiply-add, as that does
 * (grt_cpu_conv_team_work): resnet18's classifier at batch 1 (1 x 512 x
 * 1000, 2 MB of packed weights) ran on one thread in 223 us, its weights
 * coming from memory after the convolutions. The seeds' MLP at batch 1
 * (1 x 784 x 256 and smaller) stays on one thread. */
enum { kStreamingRows = 4 };

double grt_mm_team_work(int64_t m, int64_t k, int64_t n) {
  double macs = (double)m * (double)k * (double)n;
  return m <= kStreamingRows ? 4.0 * macs : macs;
}

grt_status* grt_mm_dnnl_run(grt_kernel_ctx* ctx, void* state, const grt_mm_call* c) {
  mm_state* s = state;
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  int64_t key[kKeyLen];
  make_key(c, key);
  key[8] = call.threads = grt_dnnl_team(ctx, grt_mm_team_work(c->m, c->k, c->n));
  grt_dnnl_plan_threads((int)key[8]);
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(find_plan(s, c, key, &p, &owned));
  const void* w = NULL;
  grt_dnnl_packed* held = NULL;
  grt_dnnl_weights wt = {c->const_b, c->b_version};
  grt_status* st =
      grt_dnnl_packed_weights(s ? &s->packs : NULL, wt, &call, key, kKeyLen, &p->md[kWeightsPlain],
                              c->b, &p->md[kWeights], &w, &held);
  if (!st) st = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[kSrc], (void*)c->a);
  if (!st) st = grt_dnnl_call_arg(&call, DNNL_ARG_WEIGHTS, &p->md[kWeights], (void*)w);
  if (!st && c->bias) st = grt_dnnl_call_arg(&call, DNNL_ARG_BIAS, &p->md[kBias], (void*)c->bias);
  if (!st) st = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[kDst], c->out);
  if (!st) st = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN matmul");
  grt_dnnl_packed_release(s ? &s->packs : NULL, held);
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return st;
}
