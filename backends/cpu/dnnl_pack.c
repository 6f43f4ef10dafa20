/* Constant weights packed once (see dnnl_pack.h). */
#include "backends/cpu/dnnl_pack.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "ops/graph.h"
#include "backends/cpu/dnnl_util.h"

static int64_t g_packs; /* atomic: grt_dnnl_pack_count */

int64_t grt_dnnl_pack_count(void) { return __atomic_load_n(&g_packs, __ATOMIC_RELAXED); }

void grt_dnnl_packs_init(grt_dnnl_packs* p) {
  memset(p, 0, sizeof *p);
  pthread_mutex_init(&p->mu, NULL);
}

void grt_dnnl_packs_free(grt_dnnl_packs* p) {
  for (int32_t i = 0; i < p->n; i++) grt_free(p->items[i].raw);
  p->n = 0;
  pthread_mutex_destroy(&p->mu);
}

static bool attr_true(const grt_kernel_ctx* ctx, const char* name) {
  const grt_attr_value* v = ctx->node ? grt_node_find_attr(ctx->node, name) : NULL;
  return v && v->type == GRT_ATTR_BOOL && v->u.b;
}

grt_dnnl_weights grt_dnnl_weights_of(const grt_kernel_ctx* ctx, grt_dnnl_packs* p,
                                     const void* src) {
  grt_dnnl_weights w = {false, 0};
  if (!p) return w;
  if (attr_true(ctx, "_grt_const_b")) {
    w.keep = true;
    return w;
  }
  grt_var* v = ctx->input_refs && ctx->n_inputs > 1 ? ctx->input_refs[1] : NULL;
  if (!v || !attr_true(ctx, "_grt_var_b") || !grt_var_stable_version(v, &w.version)) return w;
  pthread_mutex_lock(&p->mu);
  w.keep = p->seen && p->seen_src == src && p->seen_version == w.version;
  p->seen = true;
  p->seen_src = src;
  p->seen_version = w.version;
  pthread_mutex_unlock(&p->mu);
  return w;
}

static grt_status* per_call(grt_dnnl_call* call, const dnnl_memory_desc_t* plain, const void* src,
                            const dnnl_memory_desc_t* packed, const void** out) {
  void* tmp;
  GRT_RETURN_IF_ERROR(grt_dnnl_call_temp(call, dnnl_memory_desc_get_size(packed), &tmp));
  GRT_RETURN_IF_ERROR(grt_dnnl_call_reorder(call, plain, (void*)src, packed, tmp));
  *out = tmp;
  return NULL;
}

/* Under p->mu: the copy made under key, whatever its address and version:
 * a node's copies under one key are all of its one weights input, so one
 * of another address or version is out of date (a variable assigned). */
static grt_dnnl_packed* lookup(grt_dnnl_packs* p, const int64_t* key, int32_t n) {
  for (int32_t i = 0; i < p->n; i++) {
    grt_dnnl_packed* w = &p->items[i];
    if (w->key_n == n && memcmp(w->key, key, (size_t)n * sizeof *key) == 0) return w;
  }
  return NULL;
}

/* Under p->mu: a slot to pack into (a new one, or one that no call reads
 * now and that holds another version of these weights), or NULL. */
static grt_dnnl_packed* slot_for(grt_dnnl_packs* p, grt_dnnl_packed* old) {
  if (old) return old->users == 0 ? old : NULL;
  if (p->n == GRT_DNNL_PACKS) return NULL; /* a node seeing many shapes: pack per call */
  grt_dnnl_packed* w = &p->items[p->n];
  memset(w, 0, sizeof *w);
  return w;
}

grt_status* grt_dnnl_packed_weights(grt_dnnl_packs* p, grt_dnnl_weights wt, grt_dnnl_call* call,
                                    const int64_t* key, int32_t n, const dnnl_memory_desc_t* plain,
                                    const void* src, const dnnl_memory_desc_t* packed,
                                    const void** out, grt_dnnl_packed** held) {
  *out = src;
  *held = NULL;
  if (dnnl_memory_desc_equal(plain, packed)) return NULL;
  if (!p || !wt.keep || n > GRT_DNNL_PACK_KEY_MAX) return per_call(call, plain, src, packed, out);
  pthread_mutex_lock(&p->mu);
  grt_dnnl_packed* have = lookup(p, key, n);
  if (have && have->src == src && have->version == wt.version) {
    have->users++;
    *out = have->data;
    *held = have;
    pthread_mutex_unlock(&p->mu);
    return NULL;
  }
  grt_dnnl_packed* w = slot_for(p, have);
  if (!w) {
    pthread_mutex_unlock(&p->mu);
    return per_call(call, plain, src, packed, out);
  }
  size_t bytes = dnnl_memory_desc_get_size(packed);
  grt_status* st = NULL;
  if (!w->raw)
    w->raw = grt_malloc(bytes + 63); /* a slot reused keeps its buffer: same key, same size */
  if (!w->raw) {
    st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory packing %zu bytes of weights", bytes);
  } else {
    w->data = (void*)(((uintptr_t)w->raw + 63) & ~(uintptr_t)63);
    /* The reorder runs now (grt_dnnl_call_reorder executes and waits), so
     * the copy is complete before another thread can find it. */
    st = grt_dnnl_call_reorder(call, plain, (void*)src, packed, w->data);
  }
  if (st) {
    /* A reused slot no longer holds a valid copy: no source matches it
     * (its buffer goes with the state). */
    if (w == have)
      w->src = NULL;
    else {
      grt_free(w->raw);
      w->raw = NULL;
    }
  } else {
    w->src = src;
    memcpy(w->key, key, (size_t)n * sizeof *key);
    w->key_n = n;
    w->version = wt.version;
    w->users = 1;
    if (w != have) p->n++;
    __atomic_add_fetch(&g_packs, 1, __ATOMIC_RELAXED);
    *out = w->data;
    *held = w;
  }
  pthread_mutex_unlock(&p->mu);
  return st;
}

void grt_dnnl_packed_release(grt_dnnl_packs* p, grt_dnnl_packed* held) {
  if (!p || !held) return;
  pthread_mutex_lock(&p->mu);
  held->users--;
  pthread_mutex_unlock(&p->mu);
}
