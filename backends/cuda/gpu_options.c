/* The GPU's session options: one table of declarations, and the parsers
 * that both check a value when the session is given it and read it when the
 * backend makes a device, so the two can never disagree.
 *
 * The memory options are per process, as TensorFlow's GPU options: the
 * first session that needs a logical GPU makes its allocator with its
 * gpu.allow_growth and gpu.memory_fraction (gpu.virtual_devices names the
 * logical GPU and its size), and later sessions share it. A session asking
 * for other values is refused (FAILED_PRECONDITION naming both) while
 * another session holds that allocator, and gets it made again with its
 * values once none does (gpu_memory.h). */
#include "gpu_options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static grt_status* parse_bool(const char* v, bool* out) {
  if (!strcasecmp(v, "true") || !strcmp(v, "1"))
    *out = true;
  else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
    *out = false;
  else
    return grt_status_new(GRT_INVALID_ARGUMENT, "'%s' is not a bool (true/false)", v);
  return NULL;
}

static grt_status* parse_fraction(const char* v, double* out) {
  char* end;
  errno = 0;
  double d = strtod(v, &end);
  if (!*v || *end || errno || isnan(d) || !(d > 0.0 && d <= 1.0))
    return grt_status_new(GRT_INVALID_ARGUMENT, "'%s' is not a fraction in (0, 1]", v);
  *out = d;
  return NULL;
}

/* "1024,1024": MiB per logical GPU; "" is none. */
static grt_status* parse_virtual(const char* v, int64_t* mib, int32_t* count) {
  int32_t n = 0;
  const char* p = v;
  while (*p) {
    char* end;
    errno = 0;
    long long m = strtoll(p, &end, 10);
    if (end == p || errno || m <= 0 || m > (1LL << 30) || (*end && *end != ','))
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "'%s' must be a comma-separated list of positive MiB sizes", v);
    if (n == GRT_MAX_VIRTUAL_GPUS)
      return grt_status_new(GRT_INVALID_ARGUMENT, "more than %d virtual devices",
                            GRT_MAX_VIRTUAL_GPUS);
    mib[n++] = m;
    p = *end ? end + 1 : end;
    if (*end == ',' && !*p)
      return grt_status_new(GRT_INVALID_ARGUMENT, "'%s' ends with a comma", v);
  }
  *count = n;
  return NULL;
}

static grt_status* check_bool(const char* v) {
  bool b;
  return parse_bool(v, &b);
}
static grt_status* check_fraction(const char* v) {
  double d;
  return parse_fraction(v, &d);
}
static grt_status* check_virtual(const char* v) {
  int64_t mib[GRT_MAX_VIRTUAL_GPUS];
  int32_t n;
  return parse_virtual(v, mib, &n);
}

static const grt_backend_option kOptions[GRT_GPU_NUM_OPTS] = {
    [GRT_GPU_OPT_ALLOW_GROWTH] = {"allow_growth", "bool", "false",
                                  "GPU memory is taken from the card in growing regions as "
                                  "needed, instead of all up front; per process, as "
                                  "gpu.memory_fraction",
                                  check_bool},
    [GRT_GPU_OPT_MEMORY_FRACTION] = {"memory_fraction", "number, 0 < f <= 1", "1",
                                     "the share of each card's memory the process's allocator of "
                                     "a GPU may hold (reserved up front unless gpu.allow_growth), "
                                     "shared by every session; a session asking for other values "
                                     "while another holds the GPU fails",
                                     check_fraction},
    [GRT_GPU_OPT_VIRTUAL_DEVICES] = {"virtual_devices",
                                     "comma-separated MiB sizes, each 1 to 2^30, at most 64", "",
                                     "each physical GPU becomes that many logical GPUs "
                                     "(1024,1024: two of 1 GiB), GPU:k on card k / n",
                                     check_virtual},
};

/* Each card is as many GPUs as gpu.virtual_devices names (0 or 1: one). */
static int32_t devices(int32_t probed, const char* const* values) {
  int64_t mib[GRT_MAX_VIRTUAL_GPUS];
  int32_t n = 0;
  grt_status* st = parse_virtual(values[GRT_GPU_OPT_VIRTUAL_DEVICES], mib, &n);
  if (st) { /* checked when set: cannot happen */
    grt_status_free(st);
    return probed;
  }
  return n > 1 && probed <= INT32_MAX / n ? probed * n : probed;
}

const grt_backend_options grt_options_gpu = {kOptions, GRT_GPU_NUM_OPTS, devices};

grt_status* grt_gpu_options_parse(const char* const* values, int32_t n, grt_gpu_options* out) {
  memset(out, 0, sizeof *out);
  const char* v[GRT_GPU_NUM_OPTS];
  for (int32_t i = 0; i < GRT_GPU_NUM_OPTS; i++)
    v[i] = values && i < n && values[i] ? values[i] : kOptions[i].default_value;
  grt_status* st = parse_bool(v[GRT_GPU_OPT_ALLOW_GROWTH], &out->allow_growth);
  if (st) return grt_status_prefix(st, "option gpu.allow_growth");
  st = parse_fraction(v[GRT_GPU_OPT_MEMORY_FRACTION], &out->memory_fraction);
  if (st) return grt_status_prefix(st, "option gpu.memory_fraction");
  st = parse_virtual(v[GRT_GPU_OPT_VIRTUAL_DEVICES], out->virtual_mib, &out->virtual_count);
  if (st) return grt_status_prefix(st, "option gpu.virtual_devices");
  return NULL;
}
