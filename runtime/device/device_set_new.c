/* Device sets: from per-type counts (grt_device_set_new), and the text
 * syntax for them (grt_device_spec_parse); copies and accessors. Which
 * devices the machine has is for the caller to say: device_set.c asks the
 * backends. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "runtime/device/device_set.h"

/* The registered types for messages: "CPU, GPU, TEST" (upper-case) or, in
 * the spec syntax, "cpu, gpu or test". */
static void known_types(grt_strbuf* b, bool spec_style) {
  int32_t n = grt_device_type_count();
  for (grt_device_type t = 0; t < n; t++) {
    const char* sep = t == 0 ? "" : !spec_style ? ", " : t == n - 1 ? " or " : ", ";
    grt_strbuf_printf(b, "%s", sep);
    for (const char* c = grt_device_type_name(t); *c; c++)
      grt_strbuf_printf(b, "%c", spec_style ? tolower((unsigned char)*c) : *c);
  }
}

grt_status* grt_device_set_new(const grt_device_count* counts, int32_t n, grt_device_set** out) {
  if (!out) return GRT_ERROR(INVALID_ARGUMENT, "grt_device_set_new needs somewhere to put the set");
  *out = NULL;
  if (n < 0 || (n > 0 && !counts))
    return GRT_ERROR(INVALID_ARGUMENT, "grt_device_set_new: %d counts at %p", (int)n,
                     (const void*)counts);
  int32_t declared[GRT_MAX_DEVICE_TYPES] = {0}, present[GRT_MAX_DEVICE_TYPES] = {0};
  bool seen[GRT_MAX_DEVICE_TYPES] = {false};
  for (int32_t i = 0; i < n; i++) {
    const grt_device_count* c = &counts[i];
    grt_device_type t;
    if (!c->type || !grt_device_type_from_name(c->type, &t)) {
      grt_strbuf b = {0};
      known_types(&b, false);
      grt_status* s = GRT_ERROR(INVALID_ARGUMENT, "unknown device type '%s' (known types: %s)",
                                c->type ? c->type : "(null)", grt_strbuf_str(&b));
      grt_free(b.s);
      return s;
    }
    const char* name = grt_device_type_name(t);
    if (seen[t]) return GRT_ERROR(INVALID_ARGUMENT, "device type %s is given twice", name);
    seen[t] = true;
    if (c->declared < 0 || c->declared > GRT_MAX_DEVICES_PER_TYPE)
      return GRT_ERROR(INVALID_ARGUMENT, "%d %s devices declared: the count must be from 0 to %d",
                       (int)c->declared, name, GRT_MAX_DEVICES_PER_TYPE);
    if (c->present < 0 || c->present > c->declared)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "%d %s devices present of %d declared: must be from 0 to the declared count",
                       (int)c->present, name, (int)c->declared);
    declared[t] = c->declared;
    present[t] = c->present;
  }
  /* The host is always there: ops without a kernel elsewhere need it. */
  if (!seen[GRT_DEVICE_CPU]) declared[GRT_DEVICE_CPU] = present[GRT_DEVICE_CPU] = 1;
  if (declared[GRT_DEVICE_CPU] < 1)
    return GRT_ERROR(INVALID_ARGUMENT, "at least one CPU device is needed");
  int32_t total = 0;
  for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++) total += declared[t];
  grt_device_set* ds = grt_calloc(1, sizeof *ds);
  grt_device_entry* devs = grt_calloc((size_t)total + 1, sizeof *devs);
  if (!ds || !devs) {
    grt_free(ds);
    grt_free(devs);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a device set");
  }
  int32_t at = 0;
  for (grt_device_type t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
    ds->first[t] = at;
    ds->count[t] = declared[t];
    for (int32_t id = 0; id < declared[t]; id++, at++) {
      grt_device_entry* d = &devs[at];
      d->type = t;
      d->id = id;
      d->present = id < present[t];
      grt_device_name_full(grt_device_type_name(t), id, d->name, sizeof d->name);
      grt_status* s = grt_device_name_parse(d->name, &d->parsed);
      if (s) { /* cannot happen: the name is ours */
        grt_free(ds);
        grt_free(devs);
        return s;
      }
    }
  }
  ds->n = total;
  ds->devs = devs;
  *out = ds;
  return NULL;
}

grt_status* grt_device_spec_parse(const char* spec, grt_device_count* out, int32_t max,
                                  int32_t* out_n) {
  if (!out_n) return GRT_ERROR(INVALID_ARGUMENT, "grt_device_spec_parse needs out_n");
  *out_n = 0;
  if (!spec) return GRT_ERROR(INVALID_ARGUMENT, "no device spec given");
  if (max < 0 || (max > 0 && !out))
    return GRT_ERROR(INVALID_ARGUMENT, "grt_device_spec_parse: room for %d counts at %p", (int)max,
                     (void*)out);
  bool seen[GRT_MAX_DEVICE_TYPES] = {false};
  int32_t n_out = 0;
  const char* p = spec;
  if (!*p) return GRT_ERROR(INVALID_ARGUMENT, "empty device spec (expected e.g. 'cpu:1,gpu:2')");
  while (*p) {
    const char* comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    while (n && isspace((unsigned char)*p)) p++, n--;
    while (n && isspace((unsigned char)p[n - 1])) n--;
    const char* colon = memchr(p, ':', n);
    char type[GRT_DEVICE_TYPE_NAME_MAX];
    size_t tn = colon ? (size_t)(colon - p) : n;
    grt_device_type t;
    if (tn == 0 || tn >= sizeof type)
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': cannot parse '%.*s' (expected TYPE:N)",
                       spec, (int)n, p);
    memcpy(type, p, tn);
    type[tn] = '\0';
    if (!grt_device_type_from_name(type, &t)) {
      grt_strbuf b = {0};
      known_types(&b, true);
      grt_status* s = GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': unknown device type '%s' (%s)",
                                spec, type, grt_strbuf_str(&b));
      grt_free(b.s);
      return s;
    }
    if (!colon)
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': '%s' needs a count, e.g. '%s:1'", spec,
                       type, type);
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
    if (n_out == max)
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': more than %d device types", spec,
                       (int)max);
    out[n_out].type = grt_device_type_name(t);
    out[n_out].declared = (int32_t)v;
    /* Logical CPUs always exist; for the rest the caller asks the machine. */
    out[n_out].present = t == GRT_DEVICE_CPU ? (int32_t)v : 0;
    n_out++;
    if (!comma) break;
    p = comma + 1;
    if (!*p) return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s' ends with ','", spec);
  }
  /* Without a CPU entry grt_device_set_new adds the one CPU. */
  for (int32_t i = 0; i < n_out; i++)
    if (strcmp(out[i].type, grt_device_type_name(GRT_DEVICE_CPU)) == 0 && out[i].declared < 1)
      return GRT_ERROR(INVALID_ARGUMENT, "device spec '%s': at least one CPU device is needed",
                       spec);
  *out_n = n_out;
  return NULL;
}

grt_status* grt_device_set_copy(const grt_device_set* ds, grt_device_set** out) {
  *out = NULL;
  if (!ds) return GRT_ERROR(INVALID_ARGUMENT, "NULL device set");
  grt_device_set* c = grt_calloc(1, sizeof *c);
  grt_device_entry* devs = grt_calloc((size_t)ds->n + 1, sizeof *devs);
  if (!c || !devs) {
    grt_free(c);
    grt_free(devs);
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
  grt_free(ds->devs);
  grt_free(ds);
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

int32_t grt_device_set_type_id(const grt_device_set* ds, int32_t i) {
  const grt_device_entry* d = at(ds, i);
  return d ? d->type : -1;
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
  for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++)
    if (ds->count[t] > 0) mask |= 1u << t;
  return mask;
}

char* grt_device_set_list(const grt_device_set* ds, const char* open, const char* close) {
  grt_strbuf b = {0};
  grt_strbuf_printf(&b, "%s", open);
  for (int32_t i = 0; i < ds->n; i++)
    grt_strbuf_printf(&b, "%s%s", i ? ", " : "", ds->devs[i].name);
  grt_strbuf_printf(&b, "%s", close);
  return b.s;
}
