/* grt devices [--devices SPEC | --option KEY=VALUE...] [--backends]: the
 * device mapping the runtime sees (docs/cli.md). Without --devices: one
 * logical CPU and every device the loaded backends report, as session
 * options given with --option shape them (cpu.devices, gpu.virtual_devices);
 * with it, the declared set, marking devices this machine lacks. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "grt/backend.h"
#include "grt/placer.h"
#include "grt/session.h"
#include "tools/commands.h"
#include "tools/report.h"

static const char kUsage[] =
    "usage: grt devices [--devices SPEC | --option KEY=VALUE...] [--backends]"
    "   (SPEC: cpu:N,gpu:N,TYPE:N)\n";

static int usage(const char* why) {
  if (why) fprintf(stderr, "grt devices: %s\n", why);
  fprintf(stderr, "%s", kUsage);
  return 2;
}

/* --option KEY=VALUE: one session option; an error names it. */
static grt_status* set_option(grt_session_options* o, const char* kv) {
  const char* eq = strchr(kv, '=');
  if (!eq || eq == kv) return grt_status_new(GRT_INVALID_ARGUMENT, "--option needs KEY=VALUE");
  char key[128];
  snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
  grt_status* st = grt_session_options_set(o, key, eq + 1);
  return st ? grt_status_prefix(st, "--option %s", kv) : NULL;
}

static int run(const char* spec, grt_session_options* o, bool backends) {
  grt_device_set* ds = NULL;
  grt_status* s =
      spec ? grt_device_set_from_spec(spec, &ds) : grt_session_options_device_set(o, &ds);
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

int grt_cmd_devices(int argc, char** argv) {
  const char* spec = NULL;
  bool backends = false, options = false;
  grt_session_options* o = NULL;
  grt_status* st = grt_session_options_new(&o);
  for (int i = 1; !st && i < argc; i++) {
    const char* a = argv[i];
    if (strcmp(a, "--backends") == 0) {
      backends = true;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fprintf(stdout, "%s", kUsage);
      grt_session_options_free(o);
      return 0;
    } else if (strncmp(a, "--option=", 9) == 0 || strcmp(a, "--option") == 0) {
      const char* kv = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : "";
      st = set_option(o, kv);
      options = true;
    } else if (strncmp(a, "--devices=", 10) == 0 || strcmp(a, "--devices") == 0) {
      if (spec)
        st = grt_status_new(GRT_INVALID_ARGUMENT, "--devices given twice");
      else if (a[9] == '=')
        spec = a + 10;
      else if (i + 1 < argc)
        spec = argv[++i];
      else
        st = grt_status_new(GRT_INVALID_ARGUMENT, "--devices needs a value");
    } else {
      st = grt_status_new(GRT_INVALID_ARGUMENT, "unexpected argument '%s'", a);
    }
  }
  if (!st && spec && options)
    st = grt_status_new(GRT_INVALID_ARGUMENT,
                        "--option shapes this machine's devices; it does not go with --devices");
  int rc;
  if (st) {
    rc = usage(grt_status_message(st));
    grt_status_free(st);
  } else {
    rc = run(spec, o, backends);
  }
  grt_session_options_free(o);
  return rc;
}
