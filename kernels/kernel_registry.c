/* The kernel registry: registered device types, their rows parsed into
 * grt_kernel_defs and checked against the op registry, and a table from op
 * to its rows on every type. Registration takes a lock and publishes new
 * immutable tables; lookups take none. */
#include "kernels/kernel_registry.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "ops/op_def.h"

/* ---- the registry ------------------------------------------------------ */

/* One registered device type and its parsed rows. Filled in before it is
 * published (R.n_types), never changed afterwards. */
typedef struct type_entry {
  char name[GRT_DEVICE_TYPE_NAME_MAX]; /* upper-case */
  int32_t priority;
  const grt_kernel_spec* rows; /* as registered */
  int32_t n_rows;
  grt_kernel_def* defs;       /* parsed, in table order (none when the built-in tables failed) */
  const grt_op_def** op_defs; /* per parsed row */
  int32_t n;
  int32_t base; /* grt_kernel_at() index of defs[0] */
  grt_arena* arena;
} type_entry;

/* The rows of one op, every type, by type id then table order. */
typedef struct op_entry {
  const grt_op_def* def;
  int32_t n;
  const grt_kernel_def** rows;
} op_entry;

/* Ops by their op_def pointer (open addressing; the hot path is one probe
 * per node). Immutable once published; a registration publishes a new one
 * and keeps the old ones, so a reader never sees one change. */
typedef struct snapshot {
  op_entry* slots;
  size_t cap; /* a power of 2 */
  const grt_kernel_def** row_ptrs;
  const grt_kernel_def** all; /* by index (grt_kernel_at) */
  int32_t n_all;
  struct snapshot* prev;
} snapshot;

static struct {
  pthread_mutex_t mu; /* serialises building the built-in types and registrations */
  grt_status* status; /* the built-in tables' fault, set once */
  type_entry types[GRT_MAX_DEVICE_TYPES];
  int32_t n_types; /* published types (atomic) */
  snapshot* snap;  /* published ops (atomic); NULL when the built-in tables failed */
} R = {.mu = PTHREAD_MUTEX_INITIALIZER};

static size_t ptr_hash(const void* p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

static const char* skip_space(const char* p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* Faults in a row are reported with `bad`: INTERNAL for grt's own tables
 * (a bug), INVALID_ARGUMENT for a plugin's. Out of memory is always
 * RESOURCE_EXHAUSTED. */
#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing kernel rows")

/* "{float32, int32}" -> bitmask. */
static grt_status* parse_dtype_set(grt_code bad, const char* s, size_t n, uint32_t* out) {
  *out = 0;
  while (n && (s[n - 1] == ' ')) n--;
  if (n < 2 || s[0] != '{' || s[n - 1] != '}')
    return grt_status_new(bad, "dtype set '%.*s' is not of the form {a, b}", (int)n, s);
  const char* p = s + 1;
  const char* end = s + n - 1;
  while (p < end) {
    p = skip_space(p);
    const char* q = p;
    while (q < end && *q != ',') q++;
    const char* e = q;
    while (e > p && e[-1] == ' ') e--;
    char name[32];
    if (e - p <= 0 || (size_t)(e - p) >= sizeof name)
      return grt_status_new(bad, "empty or overlong dtype in '%.*s'", (int)n, s);
    memcpy(name, p, (size_t)(e - p));
    name[e - p] = '\0';
    grt_dtype t;
    if (!grt_dtype_from_name(name, &t))
      return grt_status_new(bad, "unknown dtype '%s' in '%.*s'", name, (int)n, s);
    *out |= grt_dtype_bit(t);
    p = q < end ? q + 1 : q;
  }
  if (!*out) return grt_status_new(bad, "empty dtype set '%.*s'", (int)n, s);
  return NULL;
}

/* The int32-on-host rule's marker after an attr's dtype set (kernel_registry.h). */
static const char kInt32OnHost[] = "int32 on host";

/* Sets *int32_on_host to the index of the constraint that carries the
 * int32-on-host marker, -1 when none does. */
static grt_status* parse_constraints(grt_code bad, grt_arena* arena, const grt_kernel_spec* spec,
                                     const grt_op_def* def, grt_kernel_def* k,
                                     int32_t* int32_on_host) {
  *int32_on_host = -1;
  const char* p = spec->constraints ? spec->constraints : "";
  while (*(p = skip_space(p))) {
    const char* semi = strchr(p, ';');
    size_t n = semi ? (size_t)(semi - p) : strlen(p);
    const char* colon = memchr(p, ':', n);
    if (!colon) return grt_status_new(bad, "constraint '%.*s' has no ':'", (int)n, p);
    if (k->n_constraints == GRT_KERNEL_MAX_CONSTRAINTS)
      return grt_status_new(bad, "more than %d constraints", GRT_KERNEL_MAX_CONSTRAINTS);
    const char* attr_end = colon;
    while (attr_end > p && attr_end[-1] == ' ') attr_end--;
    char* attr = grt_arena_strndup(arena, p, (size_t)(attr_end - p));
    if (!attr) return OOM();
    const grt_attr_def* ad = grt_op_find_attr(def, attr);
    if (!ad || ad->type != GRT_ATTR_TYPE)
      return grt_status_new(bad, "'%s' is not a type attr of %s", attr, def->name);
    grt_kernel_constraint* c = &k->constraints[k->n_constraints++];
    c->attr = attr;
    const char* set = skip_space(colon + 1);
    /* The set ends at its '}'; only the int32-on-host marker may follow. */
    const char* close = memchr(set, '}', (size_t)(p + n - set));
    const char* set_end = close ? close + 1 : p + n;
    GRT_RETURN_IF_ERROR(parse_dtype_set(bad, set, (size_t)(set_end - set), &c->allowed));
    const char* rest = skip_space(set_end);
    size_t rest_n = (size_t)(p + n - rest);
    while (rest_n && rest[rest_n - 1] == ' ') rest_n--;
    if (rest_n) {
      const char* m = rest[0] == '+' ? skip_space(rest + 1) : NULL;
      if (!m || (size_t)(rest + rest_n - m) != sizeof kInt32OnHost - 1 ||
          strncmp(m, kInt32OnHost, sizeof kInt32OnHost - 1) != 0)
        return grt_status_new(bad, "'%.*s' after the dtypes of '%s': only '+ %s' may follow",
                              (int)rest_n, rest, attr, kInt32OnHost);
      if (*int32_on_host >= 0)
        return grt_status_new(bad, "'+ %s' on more than one attr", kInt32OnHost);
      uint32_t i32 = grt_dtype_bit(GRT_INT32);
      if (c->allowed & i32)
        return grt_status_new(bad, "'%s' lists int32 and '+ %s': the int32 row is the second", attr,
                              kInt32OnHost);
      if (ad->allowed_types && !(ad->allowed_types & i32))
        return grt_status_new(bad, "'+ %s' on '%s', which %s does not allow to be int32",
                              kInt32OnHost, attr, def->name);
      *int32_on_host = k->n_constraints - 1;
    }
    if (ad->allowed_types && (c->allowed & ~ad->allowed_types))
      return grt_status_new(bad, "constraint on '%s' allows dtypes %s does not", attr, def->name);
    p = semi ? semi + 1 : p + n;
  }
  return NULL;
}

static grt_status* parse_host_memory(grt_code bad, const grt_kernel_spec* spec,
                                     const grt_op_def* def, grt_kernel_def* k) {
  const char* p = spec->host_memory ? spec->host_memory : "";
  while (*(p = skip_space(p))) {
    const char* comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    while (n && p[n - 1] == ' ') n--;
    bool found = false;
    for (int32_t a = 0; a < def->n_inputs && a < 32; a++) {
      if (strlen(def->inputs[a].name) == n && strncmp(def->inputs[a].name, p, n) == 0) {
        k->host_inputs |= 1u << a;
        found = true;
      }
    }
    for (int32_t a = 0; a < def->n_outputs && a < 32; a++) {
      if (strlen(def->outputs[a].name) == n && strncmp(def->outputs[a].name, p, n) == 0) {
        k->host_outputs |= 1u << a;
        found = true;
      }
    }
    if (!found) return grt_status_new(bad, "'%.*s' is not an argument of %s", (int)n, p, def->name);
    p = comma ? comma + 1 : p + n;
  }
  return NULL;
}

/* Two rows of one op and device type that could both match a node make the
 * choice ambiguous (TensorFlow fails such a node at run time). */
static bool rows_overlap(const grt_kernel_def* a, const grt_kernel_def* b) {
  for (int32_t i = 0; i < a->n_constraints; i++)
    for (int32_t j = 0; j < b->n_constraints; j++)
      if (strcmp(a->constraints[i].attr, b->constraints[j].attr) == 0 &&
          !(a->constraints[i].allowed & b->constraints[j].allowed))
        return false;
  return true;
}

static grt_status* parse_row(grt_code bad, const type_entry* te, const grt_kernel_spec* spec,
                             grt_kernel_def* k, const grt_op_def** out_def,
                             int32_t* int32_on_host) {
  *int32_on_host = -1;
  if (!spec->op) return grt_status_new(bad, "no op named");
  if (!spec->device || strcasecmp(spec->device, te->name) != 0)
    return grt_status_new(bad, "the row is for device type '%s' but sits in the %s table",
                          spec->device ? spec->device : "(null)", te->name);
  const grt_op_def* def = grt_op_lookup(spec->op);
  if (!def) return grt_status_new(bad, "no op '%s' is registered", spec->op);
  *out_def = def;
  GRT_RETURN_IF_ERROR(parse_constraints(bad, te->arena, spec, def, k, int32_on_host));
  return parse_host_memory(bad, spec, def, k);
}

/* The int32 row a marked row stands for besides itself: the same row with
 * the marked attr int32 and every argument in host memory. */
static void int32_on_host_row(const grt_op_def* def, int32_t constraint, grt_kernel_def* k) {
  k->constraints[constraint].allowed = grt_dtype_bit(GRT_INT32);
  for (int32_t a = 0; a < def->n_inputs && a < 32; a++) k->host_inputs |= 1u << a;
  for (int32_t a = 0; a < def->n_outputs && a < 32; a++) k->host_outputs |= 1u << a;
}

static void type_entry_free(type_entry* te) {
  grt_free(te->defs);
  grt_free(te->op_defs);
  grt_arena_free(te->arena);
  te->defs = NULL;
  te->op_defs = NULL;
  te->arena = NULL;
  te->n = 0;
}

/* The table row (index into te->rows) a parsed row came from. */
static int32_t row_of(const type_entry* te, const grt_kernel_def* k) {
  return (int32_t)(k->spec - te->rows);
}

/* Parses te->rows into te->defs as type `id`: one def per row, two for a
 * row with the int32-on-host marker. On failure te holds no rows. */
static grt_status* parse_type(grt_code bad, grt_device_type id, type_entry* te) {
  te->arena = grt_arena_new();
  te->defs = grt_calloc(2 * (size_t)te->n_rows + 1, sizeof *te->defs);
  te->op_defs = grt_calloc(2 * (size_t)te->n_rows + 1, sizeof *te->op_defs);
  grt_status* s = NULL;
  if (!te->arena || !te->defs || !te->op_defs) s = OOM();
  int32_t n = 0;
  for (int32_t i = 0; i < te->n_rows && !s; i++) {
    const grt_kernel_spec* spec = &te->rows[i];
    grt_kernel_def* k = &te->defs[n];
    k->op = spec->op;
    k->index = te->base + n;
    k->device = id;
    k->priority = spec->priority;
    k->spec = spec;
    int32_t marked;
    s = parse_row(bad, te, spec, k, &te->op_defs[n], &marked);
    if (s) {
      s = grt_status_prefix(s, "kernel row %d (%s on %s)", (int)i, spec->op ? spec->op : "(null)",
                            te->name);
      break;
    }
    n++;
    if (marked >= 0) {
      te->defs[n] = *k;
      te->defs[n].index = te->base + n;
      te->op_defs[n] = te->op_defs[n - 1];
      int32_on_host_row(te->op_defs[n], marked, &te->defs[n]);
      n++;
    }
  }
  for (int32_t i = 0; i < n && !s; i++)
    for (int32_t j = i + 1; j < n && !s; j++)
      if (te->op_defs[i] == te->op_defs[j] && rows_overlap(&te->defs[i], &te->defs[j]))
        s = grt_status_new(bad, "kernel rows %d and %d (%s on %s) can match the same node",
                           (int)row_of(te, &te->defs[i]), (int)row_of(te, &te->defs[j]),
                           te->defs[i].op, te->name);
  if (s) {
    type_entry_free(te);
    return s;
  }
  te->n = n;
  return NULL;
}

static op_entry* slot_of(op_entry* slots, size_t cap, const grt_op_def* def) {
  size_t j = ptr_hash(def) & (cap - 1);
  while (slots[j].def && slots[j].def != def) j = (j + 1) & (cap - 1);
  return &slots[j];
}

/* The op table over types[0..n). */
static grt_status* snapshot_build(const type_entry* types, int32_t n, snapshot** out) {
  *out = NULL;
  size_t total = 0;
  for (int32_t t = 0; t < n; t++) total += (size_t)types[t].n;
  size_t cap = 16;
  while (cap < total * 2) cap *= 2;
  snapshot* sn = grt_calloc(1, sizeof *sn);
  op_entry* slots = grt_calloc(cap, sizeof *slots);
  const grt_kernel_def** rows = grt_calloc(total + 1, sizeof *rows);
  const grt_kernel_def** all = grt_calloc(total + 1, sizeof *all);
  if (!sn || !slots || !rows || !all) {
    grt_free(sn);
    grt_free(slots);
    grt_free(rows);
    grt_free(all);
    return OOM();
  }
  for (int32_t t = 0; t < n; t++)
    for (int32_t i = 0; i < types[t].n; i++) {
      op_entry* e = slot_of(slots, cap, types[t].op_defs[i]);
      e->def = types[t].op_defs[i];
      e->n++;
    }
  size_t at = 0;
  for (size_t j = 0; j < cap; j++) {
    if (!slots[j].def) continue;
    slots[j].rows = rows + at;
    at += (size_t)slots[j].n;
    slots[j].n = 0;
  }
  for (int32_t t = 0; t < n; t++)
    for (int32_t i = 0; i < types[t].n; i++) {
      op_entry* e = slot_of(slots, cap, types[t].op_defs[i]);
      e->rows[e->n++] = &types[t].defs[i];
      all[types[t].defs[i].index] = &types[t].defs[i];
    }
  sn->slots = slots;
  sn->cap = cap;
  sn->row_ptrs = rows;
  sn->all = all;
  sn->n_all = (int32_t)total;
  *out = sn;
  return NULL;
}

static void set_name(type_entry* te, const char* name) {
  size_t i = 0;
  for (; name[i] && i + 1 < sizeof te->name; i++)
    te->name[i] = (char)toupper((unsigned char)name[i]);
  te->name[i] = '\0';
}

/* Under R.mu. */
static void init_built_in(void) {
  const grt_kernel_table* tables[] = {&grt_kernels_cpu, &grt_kernels_gpu};
  const int32_t priorities[] = {70, 210};
  for (int32_t t = 0; t < 2; t++) {
    type_entry* te = &R.types[t];
    set_name(te, tables[t]->device);
    te->priority = priorities[t];
    te->rows = tables[t]->rows;
    te->n_rows = tables[t]->n;
  }
  /* The types exist whatever happens below; a broken registry has no rows. */
  const grt_status* ops = grt_op_registry_status();
  grt_status* s = NULL;
  snapshot* sn = NULL;
  if (ops) /* out of memory stays RESOURCE_EXHAUSTED; anything else is a bug */
    s = grt_status_new(
        grt_status_code(ops) == GRT_RESOURCE_EXHAUSTED ? GRT_RESOURCE_EXHAUSTED : GRT_INTERNAL,
        "the op registry failed to build: %s", grt_status_message(ops));
  for (int32_t t = 0; t < 2 && !s; t++) {
    R.types[t].base = t ? R.types[t - 1].base + R.types[t - 1].n : 0;
    s = parse_type(GRT_INTERNAL, t, &R.types[t]);
  }
  if (!s) s = snapshot_build(R.types, 2, &sn);
  if (s) {
    for (int32_t t = 0; t < 2; t++) {
      type_entry_free(&R.types[t]);
      R.types[t].base = 0;
    }
    if (grt_status_code(s) == GRT_RESOURCE_EXHAUSTED) {
      /* Out of memory: publish nothing; the next use builds again. */
      grt_status_free(s);
      return;
    }
    R.status = s;
  }
  __atomic_store_n(&R.snap, sn, __ATOMIC_RELEASE);
  /* Published last: whoever sees the types sees everything above. */
  __atomic_store_n(&R.n_types, 2, __ATOMIC_RELEASE);
}

static void ensure(void) {
  if (__atomic_load_n(&R.n_types, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&R.mu);
  if (!R.n_types) init_built_in();
  pthread_mutex_unlock(&R.mu);
}

/* The published types, building the registry on first use (0 while a
 * build keeps running out of memory). Once it is not zero the built-in
 * types are complete, so lookups take no lock. */
static int32_t n_types(void) {
  int32_t n = __atomic_load_n(&R.n_types, __ATOMIC_ACQUIRE);
  if (n) return n;
  ensure();
  return __atomic_load_n(&R.n_types, __ATOMIC_ACQUIRE);
}

/* The op table (NULL when the built-in tables failed). The first is
 * published before the built-in types, so n_types() != 0 implies it is
 * there; a registration publishes its type first and then the table, so a
 * row found here always has its type published. */
static const snapshot* snap(void) {
  n_types();
  return __atomic_load_n(&R.snap, __ATOMIC_ACQUIRE);
}

/* ---- device types ------------------------------------------------------ */

static bool valid_type_name(const char* name) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n >= GRT_DEVICE_TYPE_NAME_MAX || !isalpha((unsigned char)name[0])) return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)name[i]) && name[i] != '_') return false;
  return true;
}

static int32_t find_type(const char* name) {
  int32_t n = n_types();
  for (int32_t t = 0; name && t < n; t++)
    if (strcasecmp(name, R.types[t].name) == 0) return t;
  return -1;
}

/* Under R.mu. */
static grt_status* register_locked(const char* name, int32_t priority, const grt_kernel_spec* rows,
                                   int32_t n_rows, grt_device_type* out) {
  int32_t t = find_type(name);
  if (t >= 0) {
    if (rows && rows == R.types[t].rows && n_rows == R.types[t].n_rows) {
      *out = t;
      return NULL;
    }
    return GRT_ERROR(ALREADY_EXISTS, "device type %s is already registered", R.types[t].name);
  }
  if (R.status) /* its code: out of memory stays RESOURCE_EXHAUSTED */
    return grt_status_new(grt_status_code(R.status),
                          "cannot register device type %s: the kernel registry failed to build: %s",
                          name, grt_status_message(R.status));
  int32_t id = R.n_types;
  if (id == GRT_MAX_DEVICE_TYPES)
    return GRT_ERROR(RESOURCE_EXHAUSTED, "cannot register device type %s: at most %d device types",
                     name, GRT_MAX_DEVICE_TYPES);
  type_entry te;
  memset(&te, 0, sizeof te);
  set_name(&te, name);
  te.priority = priority;
  te.rows = rows;
  te.n_rows = n_rows;
  te.base = R.types[id - 1].base + R.types[id - 1].n;
  grt_status* s = parse_type(GRT_INVALID_ARGUMENT, id, &te);
  if (s) return grt_status_prefix(s, "device type %s", te.name);
  /* The new table sees the new type; it is published only once both exist. */
  R.types[id] = te;
  snapshot* sn;
  s = snapshot_build(R.types, id + 1, &sn);
  if (s) {
    type_entry_free(&R.types[id]);
    memset(&R.types[id], 0, sizeof R.types[id]);
    return grt_status_prefix(s, "device type %s", te.name);
  }
  sn->prev = R.snap;
  __atomic_store_n(&R.n_types, id + 1, __ATOMIC_RELEASE);
  __atomic_store_n(&R.snap, sn, __ATOMIC_RELEASE);
  *out = id;
  return NULL;
}

grt_status* grt_device_type_register(const char* name, int32_t priority,
                                     const grt_kernel_spec* rows, int32_t n_rows,
                                     grt_device_type* out) {
  if (!out)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_device_type_register needs somewhere to put the id");
  *out = -1;
  if (!valid_type_name(name))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "invalid device type name '%s': letters, digits and '_', starting with a "
                     "letter, at most %d characters",
                     name ? name : "(null)", GRT_DEVICE_TYPE_NAME_MAX - 1);
  if (n_rows < 0 || (n_rows > 0 && !rows))
    return GRT_ERROR(INVALID_ARGUMENT, "device type %s: %d kernel rows at %p", name, (int)n_rows,
                     (const void*)rows);
  ensure();
  /* Built-in types not built (out of memory): nothing to register beside. */
  if (!__atomic_load_n(&R.n_types, __ATOMIC_ACQUIRE))
    return GRT_ERROR(RESOURCE_EXHAUSTED,
                     "cannot register device type %s: out of memory building the kernel registry",
                     name);
  pthread_mutex_lock(&R.mu);
  grt_status* s = register_locked(name, priority, rows, n_rows, out);
  pthread_mutex_unlock(&R.mu);
  return s;
}

int32_t grt_device_type_count(void) { return n_types(); }

const char* grt_device_type_name(grt_device_type t) {
  return t >= 0 && t < n_types() ? R.types[t].name : "?";
}

bool grt_device_type_from_name(const char* name, grt_device_type* out) {
  int32_t t = find_type(name);
  if (t < 0) return false;
  *out = t;
  return true;
}

int32_t grt_device_type_priority(grt_device_type t) {
  return t >= 0 && t < n_types() ? R.types[t].priority : 0;
}

/* ---- rows -------------------------------------------------------------- */

const grt_status* grt_kernel_registry_status(void) {
  ensure();
  if (!__atomic_load_n(&R.n_types, __ATOMIC_ACQUIRE)) return grt_status_out_of_memory();
  return R.status;
}

int32_t grt_kernel_count(void) {
  const snapshot* sn = snap();
  return sn ? sn->n_all : 0;
}

const grt_kernel_def* grt_kernel_at(int32_t i) {
  const snapshot* sn = snap();
  return sn && i >= 0 && i < sn->n_all ? sn->all[i] : NULL;
}

static const op_entry* entry_of_def(const grt_op_def* def) {
  const snapshot* sn = snap();
  if (!sn || !def) return NULL;
  for (size_t j = ptr_hash(def) & (sn->cap - 1);; j = (j + 1) & (sn->cap - 1)) {
    if (!sn->slots[j].def) return NULL;
    if (sn->slots[j].def == def) return &sn->slots[j];
  }
}

static const op_entry* entry_of(const grt_node* node) {
  return entry_of_def(node->def ? node->def : node->op ? grt_op_lookup(node->op) : NULL);
}

int32_t grt_kernel_find_op(const char* op, const grt_kernel_def* const** out_rows) {
  const op_entry* e = op ? entry_of_def(grt_op_lookup(op)) : NULL;
  if (out_rows) *out_rows = e ? (const grt_kernel_def* const*)e->rows : NULL;
  return e ? e->n : 0;
}

static bool row_matches(const grt_kernel_def* k, const grt_node* node) {
  for (int32_t c = 0; c < k->n_constraints; c++) {
    const grt_attr_value* v = grt_node_attr(node, k->constraints[c].attr);
    if (!v || v->type != GRT_ATTR_TYPE || !grt_dtype_valid(v->u.t)) return false;
    if (!(k->constraints[c].allowed & grt_dtype_bit(v->u.t))) return false;
  }
  return true;
}

int32_t grt_kernel_find(const grt_node* node, grt_device_type t) {
  const op_entry* e = entry_of(node);
  if (!e) return -1;
  for (int32_t i = 0; i < e->n; i++)
    if (e->rows[i]->device == t && row_matches(e->rows[i], node)) return e->rows[i]->index;
  return -1;
}

uint32_t grt_kernel_supported_rows(const grt_node* node,
                                   const grt_kernel_def* out_rows[GRT_MAX_DEVICE_TYPES]) {
  for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++) out_rows[t] = NULL;
  const op_entry* e = entry_of(node);
  if (!e) return 0;
  uint32_t mask = 0;
  for (int32_t i = 0; i < e->n; i++) {
    const grt_kernel_def* k = e->rows[i];
    if (mask & (1u << k->device)) continue;
    if (row_matches(k, node)) {
      out_rows[k->device] = k;
      mask |= 1u << k->device;
    }
  }
  return mask;
}

uint32_t grt_kernel_supported(const grt_node* node, int32_t out_kernel[GRT_MAX_DEVICE_TYPES]) {
  const grt_kernel_def* rows[GRT_MAX_DEVICE_TYPES];
  uint32_t mask = grt_kernel_supported_rows(node, rows);
  for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++) out_kernel[t] = rows[t] ? rows[t]->index : -1;
  return mask;
}

/* The argument that tensor `index` of the node belongs to: list arguments
 * ("N * T") cover as many tensors as their number attr says. */
static int32_t arg_of(const grt_arg_def* args, int32_t n_args, const grt_node* node,
                      int32_t index) {
  int32_t at = 0;
  for (int32_t a = 0; a < n_args; a++) {
    int64_t count = 1;
    if (args[a].number_attr) {
      const grt_attr_value* v = grt_node_attr(node, args[a].number_attr);
      count = v && v->type == GRT_ATTR_INT ? v->u.i : 0;
    }
    if (index < at + count) return a;
    at += (int32_t)count;
  }
  return -1;
}

static const grt_op_def* def_of(const grt_kernel_def* k, const grt_node* node) {
  return node->def ? node->def : grt_op_lookup(k->op);
}

bool grt_kernel_input_in_host_memory(const grt_kernel_def* k, const grt_node* node, int32_t input) {
  if (!k || !k->host_inputs) return false;
  const grt_op_def* def = def_of(k, node);
  int32_t a = def ? arg_of(def->inputs, def->n_inputs, node, input) : -1;
  return a >= 0 && a < 32 && (k->host_inputs & (1u << a));
}

bool grt_kernel_output_in_host_memory(const grt_kernel_def* k, const grt_node* node,
                                      int32_t output) {
  if (!k || !k->host_outputs) return false;
  const grt_op_def* def = def_of(k, node);
  int32_t a = def ? arg_of(def->outputs, def->n_outputs, node, output) : -1;
  return a >= 0 && a < 32 && (k->host_outputs & (1u << a));
}

size_t grt_kernel_describe_op(const char* op, char* buf, size_t size) {
  size_t len = 0;
#define APPEND(...) len += (size_t)snprintf(buf + len, len < size ? size - len : 0, __VA_ARGS__)
  if (size) buf[0] = '\0';
  const grt_kernel_def* const* rows;
  int32_t n = grt_kernel_find_op(op, &rows);
  if (n == 0) APPEND("  <no registered kernels>\n");
  for (int32_t i = 0; i < n; i++) {
    const grt_kernel_def* k = rows[i];
    APPEND("  device='%s'", grt_device_type_name(k->device));
    for (int32_t c = 0; c < k->n_constraints; c++) {
      APPEND("; %s in [", k->constraints[c].attr);
      bool first_type = true;
      for (int t = 1; t < GRT_NUM_DTYPES; t++) {
        if (!(k->constraints[c].allowed & grt_dtype_bit((grt_dtype)t))) continue;
        APPEND("%s%s", first_type ? "" : ", ", grt_dtype_name((grt_dtype)t));
        first_type = false;
      }
      APPEND("]");
    }
    /* From the parsed row: an int32-on-host row has no string of its own. */
    const grt_op_def* def = grt_op_lookup(k->op);
    const char* sep = "; host memory: ";
    for (int32_t a = 0; def && a < def->n_inputs && a < 32; a++)
      if (k->host_inputs & (1u << a)) {
        APPEND("%s%s", sep, def->inputs[a].name);
        sep = ", ";
      }
    for (int32_t a = 0; def && a < def->n_outputs && a < 32; a++)
      if (k->host_outputs & (1u << a)) {
        APPEND("%s%s", sep, def->outputs[a].name);
        sep = ", ";
      }
    APPEND("\n");
  }
#undef APPEND
  return len;
}
