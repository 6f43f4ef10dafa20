/* grt devices [--devices SPEC]: the device mapping the runtime sees
 * (docs/cli.md). Without --devices: one logical CPU and every GPU
 * the CUDA backend reports; with it, the declared set, marking devices this
 * machine lacks. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "grt/backend.h"
#include "grt/placer.h"
#include "tools/commands.h"
#include "tools/report.h"

static int usage(const char* why) {
  if (why) fprintf(stderr, "grt devices: %s\n", why);
  fprintf(stderr, "usage: grt devices [--devices SPEC] [--backends]   (SPEC: cpu:N,gpu:N,TYPE:N)\n");
  return 2;
}

int grt_cmd_devices(int argc, char** argv) {
  const char* spec = NULL;
  bool backends = false;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (strcmp(a, "--backends") == 0) {
      backends = true;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fprintf(stdout, "usage: grt devices [--devices SPEC] [--backends]   (SPEC: cpu:N,gpu:N,TYPE:N)\n");
      return 0;
    }
    if (strncmp(a, "--devices=", 10) == 0) {
      if (spec) return usage("--devices given twice");
      spec = a + 10;
    } else if (strcmp(a, "--devices") == 0) {
      if (spec) return usage("--devices given twice");
      if (i + 1 >= argc) return usage("--devices needs a value");
      spec = argv[++i];
    } else {
      fprintf(stderr, "grt devices: unexpected argument '%s'\n", a);
      return usage(NULL);
    }
  }
  grt_device_set* ds = NULL;
  grt_status* s = spec ? grt_device_set_from_spec(spec, &ds) : grt_device_set_from_machine(1, &ds);
  if (s) {
    grt_cli_report("devices", s);
    grt_status_free(s);
    return usage(NULL);
  }
  s = grt_device_set_write(ds, stdout);
  grt_device_set_free(ds);
  if (!s && backends) {
    /* Which backends are loaded, how many devices each found (or why none),
     * and any plugin that was refused. */
    char report[4096];
    grt_backends_report(report, sizeof report);
    printf("Backends:\n%s", report);
  }
  if (s) {
    grt_cli_report("devices", s);
    grt_status_free(s);
    return 1;
  }
  return 0;
}
