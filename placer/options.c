/* Placement options: soft placement and the ps variable setter. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

grt_status* grt_place_options_new(grt_place_options** out) {
  *out = grt_calloc(1, sizeof **out);
  if (!*out) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  (*out)->strategy = GRT_PS_GREEDY;
  return NULL;
}

static void clear_ps(grt_place_options* o) {
  for (int32_t i = 0; i < o->n_ps; i++) grt_free(o->ps[i]);
  grt_free(o->ps);
  grt_free(o->ps_parsed);
  o->ps = NULL;
  o->ps_parsed = NULL;
  o->n_ps = 0;
}

void grt_place_options_free(grt_place_options* o) {
  if (!o) return;
  clear_ps(o);
  grt_free(o);
}

void grt_place_options_set_soft_placement(grt_place_options* o, bool on) { o->soft = on; }

grt_status* grt_place_options_set_ps_devices(grt_place_options* o, const char* list) {
  clear_ps(o);
  if (!list || !*list) return NULL;
  int32_t n = 1;
  for (const char* p = list; *p; p++) n += *p == ',';
  char** ps = grt_calloc((size_t)n, sizeof *ps);
  grt_device_name* parsed = grt_calloc((size_t)n, sizeof *parsed);
  if (!ps || !parsed) {
    grt_free(ps);
    grt_free(parsed);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  grt_status* s = NULL;
  const char* p = list;
  int32_t k = 0;
  for (; k < n && !s; k++) {
    const char* comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    ps[k] = grt_strndup(p, len);
    if (!ps[k]) {
      s = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    } else if (!len) {
      s = GRT_ERROR(INVALID_ARGUMENT, "ps device list '%s' has an empty entry", list);
    } else {
      s = grt_device_name_parse(ps[k], &parsed[k]);
      if (s)
        s = grt_status_prefix(s, "ps device %d", (int)k);
      else if (!parsed[k].has_type && !parsed[k].has_id && !parsed[k].has_job &&
               !parsed[k].has_replica && !parsed[k].has_task)
        s = GRT_ERROR(INVALID_ARGUMENT, "ps device %d '%s' names no device", (int)k, ps[k]);
    }
    p = comma ? comma + 1 : p + len;
  }
  if (s) {
    for (int32_t i = 0; i < n; i++) grt_free(ps[i]);
    grt_free(ps);
    grt_free(parsed);
    return s;
  }
  o->ps = ps;
  o->ps_parsed = parsed;
  o->n_ps = n;
  return NULL;
}

grt_status* grt_place_options_set_ps_strategy(grt_place_options* o, const char* name) {
  if (name && strcmp(name, "greedy") == 0) {
    o->strategy = GRT_PS_GREEDY;
  } else if (name && strcmp(name, "round_robin") == 0) {
    o->strategy = GRT_PS_ROUND_ROBIN;
  } else {
    return GRT_ERROR(INVALID_ARGUMENT, "unknown ps strategy '%s' (greedy or round_robin)",
                     name ? name : "");
  }
  return NULL;
}
