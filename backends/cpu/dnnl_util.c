#include "backends/cpu/dnnl_util.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/threadpool.h"

/* ---- engine and streams ---------------------------------------------------- */

static dnnl_engine_t g_engine;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_stream_key;

static void destroy_stream(void* s) { dnnl_stream_destroy((dnnl_stream_t)s); }

static void make_engine(void) {
  if (pthread_key_create(&g_stream_key, destroy_stream) != 0) return;
  dnnl_engine_t e = NULL;
  if (dnnl_engine_create(&e, dnnl_cpu, 0) == dnnl_success) g_engine = e;
}

dnnl_engine_t grt_dnnl_engine(void) {
  pthread_once(&g_engine_once, make_engine);
  return g_engine;
}

grt_status* grt_dnnl_stream(dnnl_stream_t* out) {
  dnnl_engine_t e = grt_dnnl_engine();
  if (!e) return GRT_ERROR(INTERNAL, "oneDNN has no CPU engine");
  dnnl_stream_t s = pthread_getspecific(g_stream_key);
  if (!s) {
    GRT_RETURN_IF_ERROR(
        grt_dnnl_check(dnnl_stream_create(&s, e, dnnl_stream_default_flags), "oneDNN stream"));
    if (pthread_setspecific(g_stream_key, s) != 0) {
      dnnl_stream_destroy(s);
      return GRT_ERROR(RESOURCE_EXHAUSTED, "oneDNN stream: no thread-specific slot");
    }
  }
  *out = s;
  return NULL;
}

/* ---- statuses ---------------------------------------------------------------- */

typedef struct {
  dnnl_status_t status;
  grt_code code;
  const char* text;
} status_row;

static const status_row kStatuses[] = {
    {dnnl_out_of_memory, GRT_RESOURCE_EXHAUSTED, "out of memory"},
    {dnnl_invalid_arguments, GRT_INVALID_ARGUMENT, "invalid arguments"},
    {dnnl_unimplemented, GRT_UNIMPLEMENTED, "unimplemented for these shapes and attributes"},
    {dnnl_iterator_ends, GRT_INTERNAL, "no implementation left to try"},
    {dnnl_runtime_error, GRT_INTERNAL, "runtime error"},
    {dnnl_not_required, GRT_INTERNAL, "not required"},
};

grt_status* grt_dnnl_check(dnnl_status_t st, const char* what) {
  if (st == dnnl_success) return NULL;
  for (size_t i = 0; i < sizeof kStatuses / sizeof kStatuses[0]; i++)
    if (kStatuses[i].status == st)
      return grt_status_new(kStatuses[i].code, "%s: %s", what, kStatuses[i].text);
  return GRT_ERROR(INTERNAL, "%s: oneDNN status %d", what, (int)st);
}

/* ---- descriptors -------------------------------------------------------------- */

grt_status* grt_dnnl_md_plain(int32_t rank, const int64_t* dims, dnnl_memory_desc_t* out) {
  static const dnnl_format_tag_t kTags[] = {dnnl_a,   dnnl_a,    dnnl_ab,
                                            dnnl_abc, dnnl_abcd, dnnl_abcde};
  if (rank < 1 || rank > 5) return GRT_ERROR(INTERNAL, "oneDNN descriptor of rank %d", (int)rank);
  dnnl_dims_t d;
  for (int32_t i = 0; i < rank; i++) d[i] = dims[i];
  return grt_dnnl_check(dnnl_memory_desc_init_by_tag(out, rank, d, dnnl_f32, kTags[rank]),
                        "oneDNN memory descriptor");
}

grt_status* grt_dnnl_md_activation(bool nchw, int64_t n, int64_t c, int64_t h, int64_t w,
                                   dnnl_memory_desc_t* out) {
  dnnl_dims_t d = {n, c, h, w};
  return grt_dnnl_check(
      dnnl_memory_desc_init_by_tag(out, 4, d, dnnl_f32, nchw ? dnnl_nchw : dnnl_nhwc),
      "oneDNN memory descriptor");
}

/* ---- calls -------------------------------------------------------------------- */

void grt_dnnl_call_init(grt_dnnl_call* c, grt_kernel_ctx* ctx) {
  memset(c, 0, sizeof *c);
  c->allocator = ctx->allocator;
  c->threads = ctx->intra_op ? grt_threadpool_size(ctx->intra_op) : 1;
}

int grt_dnnl_team(const grt_kernel_ctx* ctx, double macs) {
  return grt_dnnl_team_in(ctx->intra_op, macs);
}

int grt_dnnl_team_in(const grt_threadpool* pool, double macs) {
  int budget = pool ? grt_threadpool_size(pool) : 1;
  double fit = macs / (double)GRT_DNNL_MACS_PER_THREAD;
  if (fit >= (double)budget) return budget;
  return fit < 1.0 ? 1 : (int)fit;
}

void grt_dnnl_plan_threads(int team) {
  if (omp_get_max_threads() != team) omp_set_num_threads(team);
}

static int g_running; /* atomic: parallel executions in progress */

int grt_dnnl_team_enter(int budget) {
  int running = __atomic_add_fetch(&g_running, 1, __ATOMIC_RELAXED);
  int threads = budget / running;
  return threads < 1 ? 1 : threads;
}

void grt_dnnl_team_leave(void) { __atomic_sub_fetch(&g_running, 1, __ATOMIC_RELAXED); }

/* Sizes the calling thread's OpenMP team for one execution (see the
 * header); the caller ends it with grt_dnnl_team_leave. */
static void enter(const grt_dnnl_call* c) {
  int threads = grt_dnnl_team_enter(c->threads);
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
}

grt_status* grt_dnnl_call_temp(grt_dnnl_call* c, size_t bytes, void** out) {
  *out = NULL;
  if (bytes == 0) return NULL;
  if (c->n_blocks == GRT_DNNL_CALL_BLOCKS)
    return GRT_ERROR(INTERNAL, "too many oneDNN temporaries");
  void* p = c->allocator->alloc(c->allocator, bytes, 64);
  if (!p)
    return GRT_ERROR(RESOURCE_EXHAUSTED,
                     "out of memory allocating %zu bytes of oneDNN scratch on %s", bytes,
                     c->allocator->name);
  c->blocks[c->n_blocks++] = p;
  *out = p;
  return NULL;
}

static grt_status* new_memory(grt_dnnl_call* c, const dnnl_memory_desc_t* md, void* data,
                              dnnl_memory_t* out) {
  if (c->n_mems == GRT_DNNL_CALL_MEMS) return GRT_ERROR(INTERNAL, "too many oneDNN memories");
  dnnl_engine_t e = grt_dnnl_engine();
  if (!e) return GRT_ERROR(INTERNAL, "oneDNN has no CPU engine");
  GRT_RETURN_IF_ERROR(grt_dnnl_check(dnnl_memory_create(out, md, e, data), "oneDNN memory"));
  c->mems[c->n_mems++] = *out;
  return NULL;
}

grt_status* grt_dnnl_call_arg(grt_dnnl_call* c, int arg, const dnnl_memory_desc_t* md, void* data) {
  if (c->n_args == GRT_DNNL_CALL_ARGS) return GRT_ERROR(INTERNAL, "too many oneDNN arguments");
  dnnl_memory_t m;
  GRT_RETURN_IF_ERROR(new_memory(c, md, data, &m));
  c->args[c->n_args].arg = arg;
  c->args[c->n_args].memory = m;
  c->n_args++;
  return NULL;
}

grt_status* grt_dnnl_call_run(grt_dnnl_call* c, dnnl_primitive_t prim, size_t scratch,
                              const char* what) {
  if (scratch > 0) {
    void* p;
    GRT_RETURN_IF_ERROR(grt_dnnl_call_temp(c, scratch, &p));
    dnnl_memory_desc_t md;
    dnnl_dims_t d = {(dnnl_dim_t)scratch};
    GRT_RETURN_IF_ERROR(grt_dnnl_check(dnnl_memory_desc_init_by_tag(&md, 1, d, dnnl_u8, dnnl_a),
                                       "oneDNN scratchpad descriptor"));
    GRT_RETURN_IF_ERROR(grt_dnnl_call_arg(c, DNNL_ARG_SCRATCHPAD, &md, p));
  }
  dnnl_stream_t s;
  GRT_RETURN_IF_ERROR(grt_dnnl_stream(&s));
  int n = c->n_args;
  c->n_args = 0;
  enter(c);
  grt_status* st = grt_dnnl_check(dnnl_primitive_execute(prim, s, n, c->args), what);
  if (!st) st = grt_dnnl_check(dnnl_stream_wait(s), what);
  grt_dnnl_team_leave();
  return st;
}

grt_status* grt_dnnl_call_reorder(grt_dnnl_call* c, const dnnl_memory_desc_t* src_md, void* src,
                                  const dnnl_memory_desc_t* dst_md, void* dst) {
  dnnl_engine_t e = grt_dnnl_engine();
  if (!e) return GRT_ERROR(INTERNAL, "oneDNN has no CPU engine");
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t prim = NULL;
  dnnl_stream_t stream;
  GRT_RETURN_IF_ERROR(grt_dnnl_stream(&stream));
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_reorder_primitive_desc_create(&pd, src_md, e, dst_md, e, NULL), "oneDNN reorder"));
  grt_status* s = grt_dnnl_check(dnnl_primitive_create(&prim, pd), "oneDNN reorder");
  dnnl_primitive_desc_destroy(pd);
  /* Its own arguments: the call's pending ones belong to the next run. */
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, NULL}, {DNNL_ARG_TO, NULL}};
  if (!s) s = new_memory(c, src_md, src, &args[0].memory);
  if (!s) s = new_memory(c, dst_md, dst, &args[1].memory);
  if (!s) {
    enter(c);
    s = grt_dnnl_check(dnnl_primitive_execute(prim, stream, 2, args), "oneDNN reorder");
    if (!s) s = grt_dnnl_check(dnnl_stream_wait(stream), "oneDNN reorder");
    grt_dnnl_team_leave();
  }
  if (prim) dnnl_primitive_destroy(prim);
  return s;
}

void grt_dnnl_call_end(grt_dnnl_call* c) {
  for (int32_t i = 0; i < c->n_mems; i++) dnnl_memory_destroy(c->mems[i]);
  for (int32_t i = 0; i < c->n_blocks; i++) c->allocator->free(c->allocator, c->blocks[i]);
  c->n_mems = c->n_blocks = c->n_args = 0;
}

/* ---- plans ---------------------------------------------------------------------- */

grt_dnnl_plan* grt_dnnl_plan_new(void) { return grt_calloc(1, sizeof(grt_dnnl_plan)); }

void grt_dnnl_plan_free(grt_dnnl_plan* p) {
  if (!p) return;
  for (int32_t i = 0; i < GRT_DNNL_PRIMS; i++)
    if (p->prim[i]) dnnl_primitive_destroy(p->prim[i]);
  grt_free(p);
}

grt_status* grt_dnnl_plan_make(grt_dnnl_plan* p, int32_t i, const void* desc,
                               const_dnnl_primitive_desc_t hint, const char* what,
                               dnnl_primitive_desc_t* out_pd) {
  return grt_dnnl_plan_make_avoiding(p, i, desc, hint, NULL, what, out_pd);
}

/* The first implementation oneDNN offers whose name does not start with
 * `avoid` (NULL: the first). */
static grt_status* pick(const void* desc, const_dnnl_primitive_attr_t attr,
                        const_dnnl_primitive_desc_t hint, const char* avoid, const char* what,
                        dnnl_primitive_desc_t* out) {
  dnnl_engine_t e = grt_dnnl_engine();
  if (!e) return GRT_ERROR(INTERNAL, "oneDNN has no CPU engine");
  if (!avoid) return grt_dnnl_check(dnnl_primitive_desc_create(out, desc, attr, e, hint), what);
  dnnl_primitive_desc_iterator_t it = NULL;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_primitive_desc_iterator_create(&it, desc, attr, e, hint), what));
  grt_status* s = NULL;
  *out = NULL;
  for (;;) {
    dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
    if (!pd) {
      s = GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", what);
      break;
    }
    const char* impl = "";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    if (strncmp(impl, avoid, strlen(avoid)) != 0) {
      *out = pd;
      break;
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_status_t st = dnnl_primitive_desc_iterator_next(it);
    if (st != dnnl_success) {
      s = st == dnnl_iterator_ends
              ? GRT_ERROR(UNIMPLEMENTED, "%s: no implementation but %s*", what, avoid)
              : grt_dnnl_check(st, what);
      break;
    }
  }
  dnnl_primitive_desc_iterator_destroy(it);
  return s;
}

grt_status* grt_dnnl_plan_make_avoiding(grt_dnnl_plan* p, int32_t i, const void* desc,
                                        const_dnnl_primitive_desc_t hint, const char* avoid,
                                        const char* what, dnnl_primitive_desc_t* out_pd) {
  dnnl_primitive_attr_t attr = NULL;
  dnnl_primitive_desc_t pd = NULL;
  grt_status* s = grt_dnnl_check(dnnl_primitive_attr_create(&attr), what);
  if (!s)
    s = grt_dnnl_check(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user),
                       what);
  if (!s) s = pick(desc, attr, hint, avoid, what, &pd);
  if (!s) {
    const dnnl_memory_desc_t* smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    p->scratch[i] = smd ? dnnl_memory_desc_get_size(smd) : 0;
    s = grt_dnnl_check(dnnl_primitive_create(&p->prim[i], pd), what);
  }
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (!s && out_pd) {
    *out_pd = pd;
  } else if (pd) {
    dnnl_primitive_desc_destroy(pd);
  }
  return s;
}

/* ---- the cache ------------------------------------------------------------------ */

grt_status* grt_dnnl_state_new(const grt_node* node, void** out_state) {
  (void)node;
  grt_dnnl_cache* c = grt_calloc(1, sizeof *c);
  if (!c) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN primitive cache");
  pthread_mutex_init(&c->mu, NULL);
  grt_dnnl_packs_init(&c->packs);
  *out_state = c;
  return NULL;
}

void grt_dnnl_state_free(void* state) {
  grt_dnnl_cache* c = state;
  if (!c) return;
  for (int32_t i = 0; i < c->n; i++) grt_dnnl_plan_free(c->entries[i].plan);
  grt_dnnl_packs_free(&c->packs);
  pthread_mutex_destroy(&c->mu);
  grt_free(c);
}

/* Under c->mu. */
static grt_dnnl_plan* lookup(const grt_dnnl_cache* c, const int64_t* key, int32_t n) {
  for (int32_t i = 0; i < c->n; i++) {
    const grt_dnnl_entry* e = &c->entries[i];
    if (e->key_n == n && memcmp(e->key, key, (size_t)n * sizeof *key) == 0) return e->plan;
  }
  return NULL;
}

grt_dnnl_plan* grt_dnnl_cache_find(grt_dnnl_cache* c, const int64_t* key, int32_t n) {
  if (!c) return NULL;
  pthread_mutex_lock(&c->mu);
  grt_dnnl_plan* p = lookup(c, key, n);
  pthread_mutex_unlock(&c->mu);
  return p;
}

grt_dnnl_plan* grt_dnnl_cache_offer(grt_dnnl_cache* c, const int64_t* key, int32_t n,
                                    grt_dnnl_plan* plan, bool* out_owned) {
  *out_owned = true;
  if (!c || n > GRT_DNNL_KEY_MAX) return plan;
  pthread_mutex_lock(&c->mu);
  grt_dnnl_plan* have = lookup(c, key, n);
  if (have) {
    pthread_mutex_unlock(&c->mu);
    grt_dnnl_plan_free(plan);
    *out_owned = false;
    return have;
  }
  if (c->n < GRT_DNNL_CACHE_SIZE) {
    grt_dnnl_entry* e = &c->entries[c->n++];
    memcpy(e->key, key, (size_t)n * sizeof *key);
    e->key_n = n;
    e->plan = plan;
    *out_owned = false;
  }
  pthread_mutex_unlock(&c->mu);
  return plan;
}
