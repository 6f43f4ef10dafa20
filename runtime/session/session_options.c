/* Session options: a table of keys, each with its parser and its field. */
#include "runtime/session/session_options.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/status.h"

typedef grt_status* (*parse_fn)(const char* key, const char* value, void* field);

static grt_status* parse_bool(const char* key, const char* v, void* field) {
  bool* out = field;
  if (!strcasecmp(v, "true") || !strcmp(v, "1")) *out = true;
  else if (!strcasecmp(v, "false") || !strcmp(v, "0")) *out = false;
  else return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not a bool (true/false)", key, v);
  return NULL;
}

static grt_status* parse_count(const char* key, const char* v, int64_t min, int64_t* out) {
  char* end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || errno || n < min || n > 4096)
    return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not an integer in [%lld, 4096]", key, v,
                     (long long)min);
  *out = n;
  return NULL;
}

static grt_status* parse_count0(const char* key, const char* v, void* f) {
  return parse_count(key, v, 0, f);
}
static grt_status* parse_count1(const char* key, const char* v, void* f) {
  return parse_count(key, v, 1, f);
}

static grt_status* parse_fraction(const char* key, const char* v, void* field) {
  char* end;
  errno = 0;
  double d = strtod(v, &end);
  if (!*v || *end || errno || !(d > 0.0 && d <= 1.0) || isnan(d))
    return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not a fraction in (0, 1]", key, v);
  *(double*)field = d;
  return NULL;
}

static grt_status* parse_virtual(const char* key, const char* v, void* field) {
  grt_session_options* o = (grt_session_options*)((char*)field - offsetof(grt_session_options, gpu_virtual_mib));
  int32_t n = 0;
  const char* p = v;
  while (*p) {
    char* end;
    errno = 0;
    long long mib = strtoll(p, &end, 10);
    if (end == p || errno || mib <= 0 || mib > (1LL << 30) || (*end && *end != ','))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "option %s: '%s' must be a comma-separated list of positive MiB sizes", key, v);
    if (n == GRT_MAX_VIRTUAL_GPUS)
      return GRT_ERROR(INVALID_ARGUMENT, "option %s: more than %d virtual devices", key,
                       GRT_MAX_VIRTUAL_GPUS);
    o->gpu_virtual_mib[n++] = mib;
    p = *end ? end + 1 : end;
    if (*end == ',' && !*p)
      return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' ends with a comma", key, v);
  }
  o->gpu_virtual_count = n;
  return NULL;
}

static grt_status* parse_string(const char* key, const char* v, void* field) {
  char* copy = grt_strdup(v);
  if (!copy) return GRT_ERROR(RESOURCE_EXHAUSTED, "option %s: out of memory", key);
  grt_free(*(char**)field);
  *(char**)field = copy;
  return NULL;
}

static grt_status* parse_strategy(const char* key, const char* v, void* field) {
  if (strcmp(v, "greedy") && strcmp(v, "round_robin"))
    return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not greedy or round_robin", key, v);
  return parse_string(key, v, field);
}

/* A byte count with an optional K, M or G suffix (powers of 1024): "512M".
 * 0 means no limit. */
static grt_status* parse_bytes(const char* key, const char* v, void* field) {
  char* end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  int64_t unit = 1;
  if (end != v && (*end == 'K' || *end == 'k')) unit = (int64_t)1 << 10, end++;
  else if (end != v && (*end == 'M' || *end == 'm')) unit = (int64_t)1 << 20, end++;
  else if (end != v && (*end == 'G' || *end == 'g')) unit = (int64_t)1 << 30, end++;
  int64_t bytes;
  if (!*v || end == v || *end || errno || n < 0 || __builtin_mul_overflow((int64_t)n, unit, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "option %s: '%s' is not a byte count (a non-negative integer with an "
                     "optional K, M or G suffix)",
                     key, v);
  *(int64_t*)field = bytes;
  return NULL;
}

typedef struct {
  const char* key;
  parse_fn parse;
  size_t offset;
} option_row;

#define ROW(k, fn, field) {k, fn, offsetof(grt_session_options, field)}
static const option_row kOptions[] = {
    ROW("allow_soft_placement", parse_bool, allow_soft_placement),
    ROW("log_device_placement", parse_bool, log_device_placement),
    ROW("cpu.devices", parse_count1, cpu_devices),
    ROW("gpu.allow_growth", parse_bool, gpu_allow_growth),
    ROW("gpu.memory_fraction", parse_fraction, gpu_memory_fraction),
    ROW("gpu.virtual_devices", parse_virtual, gpu_virtual_mib),
    ROW("inter_op_threads", parse_count0, inter_op_threads),
    ROW("intra_op_threads", parse_count0, intra_op_threads),
    ROW("ps.devices", parse_string, ps_devices),
    ROW("ps.strategy", parse_strategy, ps_strategy),
    ROW("memory_limit", parse_bytes, memory_limit),
    ROW("verify_constants", parse_bool, verify_constants),
    ROW("rewrite", parse_bool, rewrite),
    ROW("graph_capture", parse_bool, graph_capture),
};
#undef ROW

grt_status* grt_session_options_new(grt_session_options** out) {
  *out = NULL;
  grt_session_options* o = grt_calloc(1, sizeof *o);
  if (!o) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  o->cpu_devices = 1;
  o->gpu_memory_fraction = 1.0;
  o->rewrite = true;
  o->ps_devices = grt_strdup("");
  o->ps_strategy = grt_strdup("greedy");
  if (!o->ps_devices || !o->ps_strategy) {
    grt_session_options_free(o);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  *out = o;
  return NULL;
}

void grt_session_options_free(grt_session_options* o) {
  if (!o) return;
  grt_free(o->ps_devices);
  grt_free(o->ps_strategy);
  grt_free(o);
}

grt_status* grt_session_options_set(grt_session_options* o, const char* key, const char* value) {
  if (!o || !key || !value) return GRT_ERROR(INVALID_ARGUMENT, "NULL session option argument");
  for (size_t i = 0; i < sizeof kOptions / sizeof kOptions[0]; i++) {
    if (strcmp(key, kOptions[i].key) == 0)
      return kOptions[i].parse(key, value, (char*)o + kOptions[i].offset);
  }
  char known[512];
  size_t len = 0;
  for (size_t i = 0; i < sizeof kOptions / sizeof kOptions[0] && len < sizeof known; i++)
    len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", kOptions[i].key);
  return GRT_ERROR(INVALID_ARGUMENT, "unknown session option '%s' (known: %s)", key, known);
}
