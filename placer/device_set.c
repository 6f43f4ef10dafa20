/* Device sets: declared ("cpu:1,gpu:8") or from this machine. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

/* The CUDA backend installs its probe when it loads; until then, and on a
 * machine without a driver, there are no GPUs and soft placement takes over. */
static int32_t (*g_gpu_probe)(void);

void grt_machine_set_gpu_probe(int32_t (*probe)(void)) { g_gpu_probe = probe; }

int32_t grt_machine_gpu_count(void) {
  int32_t n = g_gpu_probe ? g_gpu_probe() : 0;
  return n < 0 ? 0 : n;
}

static grt_status* make(const int32_t count[GRT_NUM_DEVICE_TYPES],
                        const int32_t present[GRT_NUM_DEVICE_TYPES], grt_device_set** out) {
  *out = NULL;
  int32_t total = 0;
  for (int t = 0; t < GRT_NUM_DEVICE_TYPES; t++) total += count[t];
  grt_device_set* ds = grt_calloc(1, sizeof *ds);
  grt_device_entry* devs = grt_calloc((size_t)total + 1, sizeof *devs);
  if (!ds || !devs) {
    free(ds);
    free(devs);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a device set");
  }
  int32_t at = 0;
  for (int t = 0; t < GRT_NUM_DEVICE_TYPES; t++) {
    ds->first[t] = at;
    ds->count[t] = count[t];
    for (int32_t id = 0; id < count[t]; id++, at++) {
      grt_device_entry* d = &devs[at];
      d->type = (grt_device_type)t;
      d->id = id;
      d->present = id < present[t];
      grt_device_name_full(grt_device_type_name(d->type), id, d->name, sizeof d->name);
      grt_status* s = grt_device_name_parse(d->name, &d->parsed);
      if (s) { /* cannot happen: the name is ours */
        free(ds);
        free(devs);
        return s;
      }
    }
  }
  ds->n = total;
  ds->devs = devs;
  *out = ds;
  return NULL;
}

grt_status* grt_device_set_from_spec(const char* spec, grt_device_set** out) {
  *out = NULL;
  if (!spec) return GRT_ERROR(INVALID_ARGUMENT, "no device spec given");
  int32_t count[GRT_NUM_DEVICE_TYPES] = {0};
  bool seen[GRT_NUM_DEVICE_TYPES] = {false};
  const char* p = spec;
  if (!*p) return GRT_ERROR(INVALID_ARGUMENT, "empty device spec (expected e.g. 'cpu:1,gpu:2')");
  while (*p) {
    const char* comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    while (n && isspace((unsigned char)*p)) p++, n--;
    while (n && isspace((unsigned char)p[n - 1])) n--;
    const char* colon = memchr(p, ':', n);
    char type[16];
    size_t tn = colon ? (size_t)(colon - p) : n;
    grt_device_type t;
    if (tn == 0 || tn >= sizeof type)
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': cannot parse '%.*s' (expected TYPE:N)",
                       spec, (int)n, p);
    memcpy(type, p, tn);
    type[tn] = '\0';
    if (!grt_device_type_from_name(type, &t))
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': unknown device type '%s' (cpu or gpu)",
                       spec, type);
    if (!colon)
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': '%s' needs a count, e.g. '%s:1'",
                       spec, type, type);
    const char* num = colon + 1;
    size_t nn = n - tn - 1;
    int64_t v = 0;
    if (nn == 0 || nn > 6) v = -1;
    for (size_t i = 0; i < nn && v >= 0; i++)
      v = isdigit((unsigned char)num[i]) ? v * 10 + (num[i] - '0') : -1;
    if (v < 0 || v > GRT_MAX_DEVICES_PER_TYPE)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "device spec '%s': count '%.*s' for %s must be a number from 0 to %d", spec,
                       (int)nn, num, grt_device_type_name(t), GRT_MAX_DEVICES_PER_TYPE);
    if (seen[t])
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': %s is given twice", spec,
                       grt_device_type_name(t));
    seen[t] = true;
    count[t] = (int32_t)v;
    if (!comma) break;
    p = comma + 1;
    if (!*p) return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s' ends with ','", spec);
  }
  /* The host is always there: ops without a GPU kernel need it. */
  if (!seen[GRT_DEVICE_CPU]) count[GRT_DEVICE_CPU] = 1;
  if (count[GRT_DEVICE_CPU] < 1)
    return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': at least one CPU device is needed", spec);
  int32_t present[GRT_NUM_DEVICE_TYPES];
  present[GRT_DEVICE_CPU] = count[GRT_DEVICE_CPU]; /* logical CPUs always exist */
  present[GRT_DEVICE_GPU] = grt_machine_gpu_count();
  return make(count, present, out);
}

grt_status* grt_device_set_from_machine(int32_t n_cpus, grt_device_set** out) {
  *out = NULL;
  if (n_cpus < 1 || n_cpus > GRT_MAX_DEVICES_PER_TYPE)
    return GRT_ERROR(INVALID_ARGUMENT, "number of CPU devices must be 1 to %d, got %d",
                     GRT_MAX_DEVICES_PER_TYPE, (int)n_cpus);
  int32_t gpus = grt_machine_gpu_count();
  if (gpus > GRT_MAX_DEVICES_PER_TYPE) gpus = GRT_MAX_DEVICES_PER_TYPE;
  int32_t count[GRT_NUM_DEVICE_TYPES] = {[GRT_DEVICE_CPU] = n_cpus, [GRT_DEVICE_GPU] = gpus};
  return make(count, count, out);
}

grt_status* grt_device_set_copy(const grt_device_set* ds, grt_device_set** out) {
  *out = NULL;
  if (!ds) return GRT_ERROR(INVALID_ARGUMENT, "NULL device set");
  grt_device_set* c = grt_calloc(1, sizeof *c);
  grt_device_entry* devs = grt_calloc((size_t)ds->n + 1, sizeof *devs);
  if (!c || !devs) {
    free(c);
    free(devs);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory copying a device set");
  }
  *c = *ds;
  memcpy(devs, ds->devs, (size_t)ds->n * sizeof *devs);
  c->devs = devs;
  *out = c;
  return NULL;
}

void grt_device_set_free(grt_device_set* ds) {
  if (!ds) return;
  free(ds->devs);
  free(ds);
}

int32_t grt_device_set_count(const grt_device_set* ds) { return ds ? ds->n : 0; }

static const grt_device_entry* at(const grt_device_set* ds, int32_t i) {
  return ds && i >= 0 && i < ds->n ? &ds->devs[i] : NULL;
}

const char* grt_device_set_name(const grt_device_set* ds, int32_t i) {
  const grt_device_entry* d = at(ds, i);
  return d ? d->name : "";
}

const char* grt_device_set_type(const grt_device_set* ds, int32_t i) {
  const grt_device_entry* d = at(ds, i);
  return d ? grt_device_type_name(d->type) : "";
}

int32_t grt_device_set_id(const grt_device_set* ds, int32_t i) {
  const grt_device_entry* d = at(ds, i);
  return d ? d->id : -1;
}

bool grt_device_set_present(const grt_device_set* ds, int32_t i) {
  const grt_device_entry* d = at(ds, i);
  return d && d->present;
}

int32_t grt_device_set_count_type(const grt_device_set* ds, const char* type) {
  grt_device_type t;
  if (!ds || !type || !grt_device_type_from_name(type, &t)) return 0;
  return ds->count[t];
}

int32_t grt_device_set_find(const grt_device_set* ds, const char* name) {
  grt_device_name want;
  if (!ds || !name) return -1;
  grt_status* s = grt_device_name_parse(name, &want);
  if (s) {
    grt_status_free(s);
    return -1;
  }
  /* A short name denotes a device only when it pins the type and id. */
  if (!want.has_type || !want.has_id) return -1;
  int32_t found = -1;
  for (int32_t i = 0; i < ds->n; i++) {
    if (grt_device_name_matches(&want, &ds->devs[i].parsed)) {
      if (found >= 0) return -1;
      found = i;
    }
  }
  return found;
}

uint32_t grt_device_set_types(const grt_device_set* ds) {
  uint32_t mask = 0;
  for (int t = 0; t < GRT_NUM_DEVICE_TYPES; t++)
    if (ds->count[t] > 0) mask |= 1u << t;
  return mask;
}

char* grt_device_set_list(const grt_device_set* ds, const char* open, const char* close) {
  grt_strbuf b = {0};
  grt_strbuf_printf(&b, "%s", open);
  for (int32_t i = 0; i < ds->n; i++) grt_strbuf_printf(&b, "%s%s", i ? ", " : "", ds->devs[i].name);
  grt_strbuf_printf(&b, "%s", close);
  return b.s;
}
