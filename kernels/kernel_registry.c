/* The kernel registry: support_*.c rows parsed once into grt_kernel_defs,
 * grouped by op, and checked against the op registry. */
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
#include "base/strmap.h"
#include "ops/op_def.h"

/* ---- device types ------------------------------------------------------ */

static const struct {
  const char* name;
  int32_t priority;
} kDeviceTypes[GRT_NUM_DEVICE_TYPES] = {
    [GRT_DEVICE_CPU] = {"CPU", 70},
    [GRT_DEVICE_GPU] = {"GPU", 210},
};

const char* grt_device_type_name(grt_device_type t) {
  return (unsigned)t < GRT_NUM_DEVICE_TYPES ? kDeviceTypes[t].name : "?";
}

bool grt_device_type_from_name(const char* name, grt_device_type* out) {
  for (int t = 0; t < GRT_NUM_DEVICE_TYPES; t++) {
    if (strcasecmp(name, kDeviceTypes[t].name) == 0) {
      *out = (grt_device_type)t;
      return true;
    }
  }
  return false;
}

int32_t grt_device_type_priority(grt_device_type t) {
  return (unsigned)t < GRT_NUM_DEVICE_TYPES ? kDeviceTypes[t].priority : 0;
}

/* ---- the registry ------------------------------------------------------ */

/* Rows of one op occupy [first, first + count) of `defs`. Ops are found by
 * their op_def pointer (the hot path: one hash probe per node) or by name. */
typedef struct op_range {
  const grt_op_def* def;
  int32_t first, count;
} op_range;

static struct {
  pthread_once_t once;
  grt_status* status;
  grt_arena* arena;
  grt_kernel_def* defs;
  int32_t n;
  grt_strmap by_name; /* op name -> index into ranges */
  op_range* ranges;
  int32_t n_ranges;
  op_range* by_def; /* open addressing on the def pointer; cap is a power of 2 */
  size_t by_def_cap;
} R = {.once = PTHREAD_ONCE_INIT};

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

/* "{float32, int32}" -> bitmask. */
static grt_status* parse_dtype_set(const char* s, size_t n, uint32_t* out) {
  *out = 0;
  while (n && (s[n - 1] == ' ')) n--;
  if (n < 2 || s[0] != '{' || s[n - 1] != '}')
    return GRT_ERROR(INTERNAL, "dtype set '%.*s' is not of the form {a, b}", (int)n, s);
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
      return GRT_ERROR(INTERNAL, "empty or overlong dtype in '%.*s'", (int)n, s);
    memcpy(name, p, (size_t)(e - p));
    name[e - p] = '\0';
    grt_dtype t;
    if (!grt_dtype_from_name(name, &t))
      return GRT_ERROR(INTERNAL, "unknown dtype '%s' in '%.*s'", name, (int)n, s);
    *out |= grt_dtype_bit(t);
    p = q < end ? q + 1 : q;
  }
  if (!*out) return GRT_ERROR(INTERNAL, "empty dtype set '%.*s'", (int)n, s);
  return NULL;
}

static grt_status* parse_constraints(const grt_kernel_spec* spec, const grt_op_def* def,
                                     grt_kernel_def* k) {
  const char* p = spec->constraints ? spec->constraints : "";
  while (*(p = skip_space(p))) {
    const char* semi = strchr(p, ';');
    size_t n = semi ? (size_t)(semi - p) : strlen(p);
    const char* colon = memchr(p, ':', n);
    if (!colon) return GRT_ERROR(INTERNAL, "constraint '%.*s' has no ':'", (int)n, p);
    if (k->n_constraints == GRT_KERNEL_MAX_CONSTRAINTS)
      return GRT_ERROR(INTERNAL, "more than %d constraints", GRT_KERNEL_MAX_CONSTRAINTS);
    const char* attr_end = colon;
    while (attr_end > p && attr_end[-1] == ' ') attr_end--;
    char* attr = grt_arena_strndup(R.arena, p, (size_t)(attr_end - p));
    if (!attr) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    const grt_attr_def* ad = grt_op_find_attr(def, attr);
    if (!ad || ad->type != GRT_ATTR_TYPE)
      return GRT_ERROR(INTERNAL, "'%s' is not a type attr of %s", attr, def->name);
    grt_kernel_constraint* c = &k->constraints[k->n_constraints++];
    c->attr = attr;
    const char* set = skip_space(colon + 1);
    GRT_RETURN_IF_ERROR(parse_dtype_set(set, (size_t)(p + n - set), &c->allowed));
    if (ad->allowed_types && (c->allowed & ~ad->allowed_types))
      return GRT_ERROR(INTERNAL, "constraint on '%s' allows dtypes %s does not", attr, def->name);
    p = semi ? semi + 1 : p + n;
  }
  return NULL;
}

static grt_status* parse_host_memory(const grt_kernel_spec* spec, const grt_op_def* def,
                                     grt_kernel_def* k) {
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
    if (!found) return GRT_ERROR(INTERNAL, "'%.*s' is not an argument of %s", (int)n, p, def->name);
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

static grt_status* parse_row(const grt_kernel_spec* spec, grt_kernel_def* k) {
  memset(k, 0, sizeof *k);
  k->op = spec->op;
  k->spec = spec;
  k->priority = spec->priority;
  if (!grt_device_type_from_name(spec->device, &k->device))
    return GRT_ERROR(INTERNAL, "unknown device type '%s'", spec->device);
  const grt_op_def* def = grt_op_lookup(spec->op);
  if (!def) return GRT_ERROR(INTERNAL, "no op '%s' is registered", spec->op);
  GRT_RETURN_IF_ERROR(parse_constraints(spec, def, k));
  return parse_host_memory(spec, def, k);
}

static grt_status* build(void) {
  const grt_kernel_table* tables[] = {&grt_kernels_cpu, &grt_kernels_gpu};
  int32_t total = 0;
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) total += tables[t]->n;
  R.arena = grt_arena_new();
  grt_kernel_def* parsed = grt_calloc((size_t)total + 1, sizeof *parsed);
  R.defs = grt_calloc((size_t)total + 1, sizeof *R.defs);
  R.ranges = grt_calloc((size_t)total + 1, sizeof *R.ranges);
  int32_t* group = grt_calloc((size_t)total + 1, sizeof *group);
  grt_strmap_init(&R.by_name);
  if (!R.arena || !parsed || !R.defs || !R.ranges || !group) {
    free(parsed);
    free(group);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the kernel registry");
  }
  grt_status* s = NULL;
  int32_t n = 0;
  for (size_t t = 0; t < sizeof tables / sizeof tables[0] && !s; t++) {
    for (int32_t i = 0; i < tables[t]->n && !s; i++) {
      const grt_kernel_spec* spec = &tables[t]->rows[i];
      s = parse_row(spec, &parsed[n]);
      if (s) {
        s = grt_status_prefix(s, "kernel row %s on %s", spec->op, spec->device);
        break;
      }
      if (strcmp(spec->device, tables[t]->device) != 0) {
        s = GRT_ERROR(INTERNAL, "kernel row %s on %s sits in the %s table", spec->op,
                      spec->device, tables[t]->device);
        break;
      }
      int32_t existing;
      int put = grt_strmap_put(&R.by_name, spec->op, R.n_ranges, &existing);
      if (put < 0) {
        s = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the kernel registry");
        break;
      }
      if (put == 1) {
        R.ranges[R.n_ranges].def = grt_op_lookup(spec->op);
        group[n] = R.n_ranges++;
      } else {
        group[n] = existing;
      }
      R.ranges[group[n]].count++;
      n++;
    }
  }
  if (!s) {
    /* Counting sort by group keeps each op's rows in table order. */
    int32_t at = 0;
    for (int32_t g = 0; g < R.n_ranges; g++) {
      R.ranges[g].first = at;
      at += R.ranges[g].count;
      R.ranges[g].count = 0;
    }
    for (int32_t i = 0; i < n; i++) {
      op_range* r = &R.ranges[group[i]];
      R.defs[r->first + r->count++] = parsed[i];
    }
    R.n = n;
    for (int32_t g = 0; g < R.n_ranges && !s; g++) {
      const op_range* r = &R.ranges[g];
      for (int32_t i = r->first; i < r->first + r->count && !s; i++)
        for (int32_t j = i + 1; j < r->first + r->count && !s; j++)
          if (R.defs[i].device == R.defs[j].device && rows_overlap(&R.defs[i], &R.defs[j]))
            s = GRT_ERROR(INTERNAL, "kernel rows %d and %d of %s on %s can match the same node",
                          (int)(i - r->first), (int)(j - r->first), R.defs[i].op,
                          grt_device_type_name(R.defs[i].device));
    }
  }
  if (!s) {
    size_t cap = 16;
    while (cap < (size_t)R.n_ranges * 2) cap *= 2;
    R.by_def = grt_calloc(cap, sizeof *R.by_def);
    if (!R.by_def) {
      s = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the kernel registry");
    } else {
      R.by_def_cap = cap;
      for (int32_t g = 0; g < R.n_ranges; g++) {
        size_t j = ptr_hash(R.ranges[g].def) & (cap - 1);
        while (R.by_def[j].def) j = (j + 1) & (cap - 1);
        R.by_def[j] = R.ranges[g];
      }
    }
  }
  free(parsed);
  free(group);
  return s;
}

static void init_once(void) {
  const grt_status* ops = grt_op_registry_status();
  if (ops) {
    R.status = GRT_ERROR(INTERNAL, "the op registry failed to build: %s", grt_status_message(ops));
    return;
  }
  R.status = build();
  if (R.status) R.n = 0; /* a broken registry supports nothing */
}

static void ensure(void) { pthread_once(&R.once, init_once); }

const grt_status* grt_kernel_registry_status(void) {
  ensure();
  return R.status;
}

int32_t grt_kernel_count(void) {
  ensure();
  return R.n;
}

const grt_kernel_def* grt_kernel_at(int32_t i) {
  ensure();
  return i >= 0 && i < R.n ? &R.defs[i] : NULL;
}

int32_t grt_kernel_find_op(const char* op, int32_t* out_n) {
  ensure();
  *out_n = 0;
  if (R.status || !op) return 0;
  int32_t g = grt_strmap_get(&R.by_name, op);
  if (g < 0) return 0;
  *out_n = R.ranges[g].count;
  return R.ranges[g].first;
}

static const op_range* range_of(const grt_node* node) {
  if (R.status) return NULL;
  if (node->def && R.by_def_cap) {
    for (size_t j = ptr_hash(node->def) & (R.by_def_cap - 1);; j = (j + 1) & (R.by_def_cap - 1)) {
      if (!R.by_def[j].def) return NULL;
      if (R.by_def[j].def == node->def) return &R.by_def[j];
    }
  }
  int32_t g = node->op ? grt_strmap_get(&R.by_name, node->op) : -1;
  return g < 0 ? NULL : &R.ranges[g];
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
  ensure();
  const op_range* r = range_of(node);
  if (!r) return -1;
  for (int32_t i = r->first; i < r->first + r->count; i++)
    if (R.defs[i].device == t && row_matches(&R.defs[i], node)) return i;
  return -1;
}

uint32_t grt_kernel_supported(const grt_node* node, int32_t out_kernel[GRT_NUM_DEVICE_TYPES]) {
  ensure();
  for (int t = 0; t < GRT_NUM_DEVICE_TYPES; t++) out_kernel[t] = -1;
  const op_range* r = range_of(node);
  if (!r) return 0;
  uint32_t mask = 0;
  for (int32_t i = r->first; i < r->first + r->count; i++) {
    const grt_kernel_def* k = &R.defs[i];
    if (mask & (1u << k->device)) continue;
    if (row_matches(k, node)) {
      out_kernel[k->device] = i;
      mask |= 1u << k->device;
    }
  }
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

bool grt_kernel_input_in_host_memory(const grt_kernel_def* k, const grt_node* node,
                                     int32_t input) {
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
  int32_t n;
  int32_t first = grt_kernel_find_op(op, &n);
  if (n == 0) APPEND("  <no registered kernels>\n");
  for (int32_t i = first; i < first + n; i++) {
    const grt_kernel_def* k = &R.defs[i];
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
    if (k->spec->host_memory && k->spec->host_memory[0])
      APPEND("; host memory: %s", k->spec->host_memory);
    APPEND("\n");
  }
#undef APPEND
  return len;
}
