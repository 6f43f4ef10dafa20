/* Backend-declared session options: the lookup of a type's declarations
 * and the values a session keeps for them (backend_options.h). */
#include "runtime/device/backend_options.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "backends/cpu/cpu_options.h"
#include "backends/cuda/gpu_options.h"
#include "base/mem.h"
#include "base/status.h"
#include "runtime/device/device.h"

/* The built-in types' declarations, compiled in so the keys work (and the
 * device set splits) without the plugin that implements the type. */
static const struct {
  const char* type;
  const grt_backend_options* options;
} kBuiltIn[] = {
    {"CPU", &grt_options_cpu},
    {"GPU", &grt_options_gpu},
};
enum { kNumBuiltIn = sizeof kBuiltIn / sizeof kBuiltIn[0] };

/* The declarations of `type` and the type's own spelling, or NULL. */
static const grt_backend_options* find(const char* type, const char** name) {
  for (int i = 0; i < kNumBuiltIn; i++)
    if (strcasecmp(type, kBuiltIn[i].type) == 0) {
      *name = kBuiltIn[i].type;
      return kBuiltIn[i].options;
    }
  const grt_backend* b = grt_registry_find(type);
  if (!b || !b->options || b->options->n <= 0) return NULL;
  *name = b->type;
  return b->options;
}

const grt_backend_options* grt_backend_options_of(const char* type) {
  const char* name;
  return type ? find(type, &name) : NULL;
}

static int32_t count(const grt_backend_options* o) {
  return o->n < GRT_MAX_BACKEND_OPTIONS ? o->n : GRT_MAX_BACKEND_OPTIONS;
}

typedef struct {
  const char* type; /* the declaring type's own spelling (static) */
  int32_t index;    /* in its declarations */
  char* value;
} set_value;

struct grt_backend_values {
  set_value* set;
  int32_t n, cap;
};

grt_status* grt_backend_values_new(grt_backend_values** out) {
  *out = grt_calloc(1, sizeof **out);
  return *out ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
}

void grt_backend_values_free(grt_backend_values* v) {
  if (!v) return;
  for (int32_t i = 0; i < v->n; i++) grt_free(v->set[i].value);
  grt_free(v->set);
  grt_free(v);
}

/* Sets (type, index) to a copy of value, replacing an earlier one. */
static grt_status* put(grt_backend_values* v, const char* type, int32_t index, const char* value) {
  char* copy = grt_strdup(value);
  if (!copy) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < v->n; i++)
    if (v->set[i].type == type && v->set[i].index == index) {
      grt_free(v->set[i].value);
      v->set[i].value = copy;
      return NULL;
    }
  if (v->n == v->cap) {
    int32_t cap = v->cap ? 2 * v->cap : 8;
    set_value* grown = grt_realloc(v->set, (size_t)cap * sizeof *grown);
    if (!grown) {
      grt_free(copy);
      return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    }
    v->set = grown;
    v->cap = cap;
  }
  v->set[v->n++] = (set_value){type, index, copy};
  return NULL;
}

grt_status* grt_backend_values_copy(const grt_backend_values* v, grt_backend_values** out) {
  GRT_RETURN_IF_ERROR(grt_backend_values_new(out));
  for (int32_t i = 0; v && i < v->n; i++) {
    grt_status* st = put(*out, v->set[i].type, v->set[i].index, v->set[i].value);
    if (st) {
      grt_backend_values_free(*out);
      *out = NULL;
      return st;
    }
  }
  return NULL;
}

/* "gpu" for "GPU": how session keys spell a type. */
static void lower(const char* type, char* out, size_t size) {
  size_t i = 0;
  for (; type[i] && i + 1 < size; i++) out[i] = (char)tolower((unsigned char)type[i]);
  out[i] = '\0';
}

grt_status* grt_backend_values_set(grt_backend_values* v, const char* key, const char* value) {
  const char* dot = strchr(key, '.');
  char type[24];
  if (!dot || dot == key || (size_t)(dot - key) >= sizeof type)
    return GRT_ERROR(NOT_FOUND, "'%s' names no device type", key);
  memcpy(type, key, (size_t)(dot - key));
  type[dot - key] = '\0';
  const char* name = NULL;
  const grt_backend_options* o = find(type, &name);
  if (!o) return GRT_ERROR(NOT_FOUND, "no device type '%s' declares options", type);
  const char* opt = dot + 1;
  int32_t n = count(o);
  for (int32_t i = 0; i < n; i++) {
    const grt_backend_option* d = &o->options[i];
    if (strcmp(opt, d->key) != 0) continue;
    grt_status* st = d->check ? d->check(value) : NULL;
    if (st) return grt_status_prefix(st, "option %s", key);
    return put(v, name, i, value);
  }
  char lo[24];
  lower(name, lo, sizeof lo);
  grt_strbuf known = {0};
  for (int32_t i = 0; i < n; i++)
    grt_strbuf_printf(&known, "%s%s.%s", i ? ", " : "", lo, o->options[i].key);
  grt_status* st = known.failed ? GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory")
                                : GRT_ERROR(INVALID_ARGUMENT,
                                            "unknown session option '%s' (device type %s has: %s)",
                                            key, name, grt_strbuf_str(&known));
  grt_free(known.s);
  return st;
}

int32_t grt_backend_values_get(const grt_backend_values* v, const char* type, const char** vals) {
  const char* name = NULL;
  const grt_backend_options* o = type ? find(type, &name) : NULL;
  if (!o) return 0;
  int32_t n = count(o);
  for (int32_t i = 0; i < n; i++)
    vals[i] = o->options[i].default_value ? o->options[i].default_value : "";
  for (int32_t i = 0; v && i < v->n; i++)
    if (v->set[i].type == name && v->set[i].index < n) vals[v->set[i].index] = v->set[i].value;
  return n;
}

int32_t grt_backend_values_devices(const grt_backend_values* v, const char* type, int32_t probed) {
  const grt_backend_options* o = grt_backend_options_of(type);
  if (!o || !o->devices) return probed;
  const char* vals[GRT_MAX_BACKEND_OPTIONS];
  grt_backend_values_get(v, type, vals);
  int32_t n = o->devices(probed, vals);
  return n < 0 ? 0 : n;
}

grt_status* grt_backend_options_check(const grt_backend_options* o) {
  if (!o) return NULL;
  if (o->n < 0 || o->n > GRT_MAX_BACKEND_OPTIONS)
    return GRT_ERROR(INVALID_ARGUMENT, "it declares %d options (at most %d)", (int)o->n,
                     GRT_MAX_BACKEND_OPTIONS);
  if (o->n && !o->options)
    return GRT_ERROR(INVALID_ARGUMENT, "it declares %d options but no table of them", (int)o->n);
  for (int32_t i = 0; i < o->n; i++) {
    const char* k = o->options[i].key;
    if (!k || !k[0] || strchr(k, '.') || strchr(k, '=') || strlen(k) > 64)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "its option %d has no key, or one with '.' or '=' or over 64 bytes", (int)i);
  }
  return NULL;
}

static void describe_type(const char* type, const grt_backend_options* o, grt_strbuf* out) {
  char lo[24];
  lower(type, lo, sizeof lo);
  for (int32_t i = 0; i < count(o); i++) {
    const grt_backend_option* d = &o->options[i];
    grt_strbuf_printf(out, "%s.%s\t%s\t%s\t%s\n", lo, d->key, d->value_type ? d->value_type : "",
                      d->default_value ? d->default_value : "", d->doc ? d->doc : "");
  }
}

void grt_backend_options_describe(grt_strbuf* out) {
  for (int i = 0; i < kNumBuiltIn; i++) describe_type(kBuiltIn[i].type, kBuiltIn[i].options, out);
  int32_t n = grt_registry_count();
  for (int32_t i = 0; i < n; i++) {
    const grt_backend* b = grt_registry_at(i);
    const char* name;
    const grt_backend_options* o = find(b->type, &name);
    bool built_in = false;
    for (int k = 0; k < kNumBuiltIn; k++) built_in |= o == kBuiltIn[k].options;
    if (o && !built_in) describe_type(b->type, o, out);
  }
}
