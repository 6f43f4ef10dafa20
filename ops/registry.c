/* The op registry: every family's spec table parsed on first use into defs
 * that live for the rest of the process, with a name -> def hash map.
 *
 * Built under a lock and published whole, so concurrent first lookups are
 * safe and later lookups need no lock. A build that runs out of memory
 * publishes nothing and is tried again on the next use (until then the
 * registry reports RESOURCE_EXHAUSTED). A spec that fails to parse is left
 * out and its error kept for grt_op_registry_status(): the registry test
 * fails on it, while the rest of grt keeps working. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strmap.h"
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/op_def.h"

/* Families in registration order (the order grt_op_at walks). */
static const grt_op_table* const kTables[] = {
    &grt_ops_array,     &grt_ops_math,       &grt_ops_nn,    &grt_ops_state,
    &grt_ops_random,    &grt_ops_training,   &grt_ops_conv,  &grt_ops_fused,
    &grt_ops_math_more, &grt_ops_array_more, &grt_ops_index, &grt_ops_collective,
    &grt_ops_fused_seq, &grt_ops_rnn,
};

typedef struct registry {
  grt_arena* arena;
  grt_op_def* defs;
  int32_t n;
  grt_strmap by_name;
  grt_status* status; /* the first failure of a spec, or NULL */
} registry;

static registry* g_reg; /* published (atomic); never freed */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static void note_failure(registry* r, grt_status* s) {
  if (!r->status)
    r->status = s;
  else
    grt_status_free(s);
}

static void discard(registry* r) {
  if (!r) return;
  grt_strmap_clear(&r->by_name);
  grt_arena_free(r->arena);
  grt_status_free(r->status);
  grt_free(r);
}

/* A complete registry, or NULL when memory ran out. */
static registry* build(void) {
  registry* r = grt_calloc(1, sizeof *r);
  if (!r) return NULL;
  grt_strmap_init(&r->by_name);
  int32_t total = 0;
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++) total += kTables[t]->n;
  r->arena = grt_arena_new();
  if (r->arena) r->defs = grt_arena_calloc(r->arena, (size_t)total, sizeof *r->defs);
  if (!r->defs || !grt_strmap_reserve(&r->by_name, (size_t)total)) {
    discard(r);
    return NULL;
  }
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++) {
    const grt_op_table* table = kTables[t];
    for (int32_t i = 0; i < table->n; i++) {
      grt_op_def* def = &r->defs[r->n];
      grt_status* s = grt_op_spec_parse(&table->specs[i], r->arena, def);
      if (s && grt_status_code(s) == GRT_RESOURCE_EXHAUSTED) {
        grt_status_free(s);
        discard(r);
        return NULL;
      }
      if (s) {
        note_failure(r, grt_status_prefix(s, "%s ops, row %d", table->family, (int)i));
        continue;
      }
      def->grad = grt_grad_table_find(table->grads, def->name);
      def->spec = &table->specs[i];
      def->family = table->family;
      int32_t prev = -1;
      int put = grt_strmap_put(&r->by_name, def->name, r->n, &prev);
      if (put < 0) {
        discard(r);
        return NULL;
      }
      if (put == 0) {
        note_failure(r, GRT_ERROR(ALREADY_EXISTS, "op '%s' is registered twice (%s ops, row %d)",
                                  def->name, table->family, (int)i));
        continue;
      }
      r->n++;
    }
  }
  if (r->status && grt_status_code(r->status) == GRT_RESOURCE_EXHAUSTED) {
    discard(r); /* a prefix that could not be allocated */
    return NULL;
  }
  return r;
}

static const registry* get(void) {
  registry* r = __atomic_load_n(&g_reg, __ATOMIC_ACQUIRE);
  if (r) return r;
  pthread_mutex_lock(&g_mu);
  r = g_reg;
  if (!r) {
    r = build();
    if (r) __atomic_store_n(&g_reg, r, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_mu);
  return r;
}

const grt_op_def* grt_op_lookup(const char* name) {
  const registry* r = get();
  if (!name || !r) return NULL;
  int32_t i = grt_strmap_get(&r->by_name, name);
  return i >= 0 ? &r->defs[i] : NULL;
}

const grt_status* grt_op_registry_status(void) {
  const registry* r = get();
  return r ? r->status : grt_status_out_of_memory();
}

int32_t grt_op_count(void) {
  const registry* r = get();
  return r ? r->n : 0;
}

const grt_op_def* grt_op_at(int32_t i) {
  const registry* r = get();
  return r && i >= 0 && i < r->n ? &r->defs[i] : NULL;
}

const grt_attr_def* grt_op_find_attr(const grt_op_def* def, const char* name) {
  if (!def || !name) return NULL;
  for (int32_t i = 0; i < def->n_attrs; i++)
    if (strcmp(def->attrs[i].name, name) == 0) return &def->attrs[i];
  return NULL;
}
