/* cpu.devices: how many logical CPU devices a session has. The CPU's probe
 * says 1 (the machine); the option, not the probe, decides the count, so
 * the declarations' devices() returns it. */
#include "backends/cpu/cpu_options.h"

#include <errno.h>
#include <stdlib.h>

static grt_status* parse_devices(const char* v, int32_t* out) {
  char* end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || errno || n < 1 || n > 4096)
    return grt_status_new(GRT_INVALID_ARGUMENT, "'%s' is not an integer in [1, 4096]", v);
  *out = (int32_t)n;
  return NULL;
}

static grt_status* check_devices(const char* v) {
  int32_t n;
  return parse_devices(v, &n);
}

static const grt_backend_option kOptions[GRT_CPU_NUM_OPTS] = {
    [GRT_CPU_OPT_DEVICES] = {"devices", "integer 1 to 4096", "1",
                             "the number of logical CPU devices, "
                             "/job:localhost/replica:0/task:0/device:CPU:0 up",
                             check_devices},
};

static int32_t devices(int32_t probed, const char* const* values) {
  int32_t n = 1;
  grt_status* st = parse_devices(values[GRT_CPU_OPT_DEVICES], &n);
  grt_status_free(st); /* checked when set: cannot fail */
  return n;
}

const grt_backend_options grt_options_cpu = {kOptions, GRT_CPU_NUM_OPTS, devices};
