/* The op registry: every family's spec table parsed once, on first use, into
 * defs that live for the rest of the process, with a name -> def hash map.
 *
 * Built under pthread_once so concurrent first lookups are safe, and never
 * changed afterwards, so lookups need no lock. A spec that fails to parse is
 * left out and its error kept for grt_op_registry_status(): the registry test
 * fails on it, while the rest of grt keeps working. */
#include <pthread.h>
#include <string.h>

#include "ops/defs.h"
#include "ops/op_def.h"
#include "base/status.h"
#include "base/strmap.h"

/* Families in registration order (the order grt_op_at walks). */
static const grt_op_table* const kTables[] = {
    &grt_ops_array, &grt_ops_math, &grt_ops_nn, &grt_ops_state, &grt_ops_random, &grt_ops_training,
};

static struct {
  pthread_once_t once;
  grt_arena* arena;
  grt_op_def* defs;
  int32_t n;
  grt_strmap by_name;
  grt_status* status; /* the first failure, or NULL */
} g_reg = {.once = PTHREAD_ONCE_INIT};

static void note_failure(grt_status* s) {
  if (!g_reg.status)
    g_reg.status = s;
  else
    grt_status_free(s);
}

static void build(void) {
  grt_strmap_init(&g_reg.by_name);
  int32_t total = 0;
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++) total += kTables[t]->n;
  g_reg.arena = grt_arena_new();
  if (g_reg.arena) g_reg.defs = grt_arena_calloc(g_reg.arena, (size_t)total, sizeof *g_reg.defs);
  if (!g_reg.defs || !grt_strmap_reserve(&g_reg.by_name, (size_t)total)) {
    g_reg.defs = NULL;
    note_failure(GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the op registry"));
    return;
  }
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++) {
    const grt_op_table* table = kTables[t];
    for (int32_t i = 0; i < table->n; i++) {
      grt_op_def* def = &g_reg.defs[g_reg.n];
      grt_status* s = grt_op_spec_parse(&table->specs[i], g_reg.arena, def);
      if (s) {
        note_failure(grt_status_prefix(s, "%s ops, row %d", table->family, (int)i));
        continue;
      }
      int32_t prev = -1;
      int r = grt_strmap_put(&g_reg.by_name, def->name, g_reg.n, &prev);
      if (r < 0) {
        note_failure(GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the op registry"));
        return;
      }
      if (r == 0) {
        note_failure(GRT_ERROR(ALREADY_EXISTS, "op '%s' is registered twice (%s ops, row %d)",
                               def->name, table->family, (int)i));
        continue;
      }
      g_reg.n++;
    }
  }
}

static void ensure_built(void) { pthread_once(&g_reg.once, build); }

const grt_op_def* grt_op_lookup(const char* name) {
  if (!name) return NULL;
  ensure_built();
  int32_t i = grt_strmap_get(&g_reg.by_name, name);
  return i >= 0 ? &g_reg.defs[i] : NULL;
}

const grt_status* grt_op_registry_status(void) {
  ensure_built();
  return g_reg.status;
}

int32_t grt_op_count(void) {
  ensure_built();
  return g_reg.n;
}

const grt_op_def* grt_op_at(int32_t i) {
  ensure_built();
  return i >= 0 && i < g_reg.n ? &g_reg.defs[i] : NULL;
}

const grt_attr_def* grt_op_find_attr(const grt_op_def* def, const char* name) {
  if (!def || !name) return NULL;
  for (int32_t i = 0; i < def->n_attrs; i++)
    if (strcmp(def->attrs[i].name, name) == 0) return &def->attrs[i];
  return NULL;
}
