/* grt devices [--devices SPEC | --option KEY=VALUE...] [--backends]: the
 * device mapping the runtime sees (docs/cli.md). Without --devices: one
 * logical CPU and every device the loaded backends report, as session
 * options given with --option shape them (cpu.devices, gpu.virtual_devices);
 * with it, the declared set, marking devices this machine lacks. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "grt/backend.h"
#include "grt/placer.h"
#include "grt/session.h"
#include "tools/commands.h"
#include "tools/option_flag.h"
#include "tools/options.h"
#include "tools/report.h"

typedef struct {
  const char* devices;
  grt_cli_list options;
  bool backends;
} devices_args;

static const grt_cli_option kOptions[] = {
    {"--devices", NULL, GRT_CLI_VALUE, offsetof(devices_args, devices), "SPEC",
     "a declared set instead, cpu:N,gpu:N,TYPE:N: devices this machine lacks marked"},
    {"--option", NULL, GRT_CLI_LIST, offsetof(devices_args, options), "KEY=VALUE",
     "a session option that shapes the devices: cpu.devices, gpu.virtual_devices"},
    {"--backends", NULL, GRT_CLI_FLAG, offsetof(devices_args, backends), NULL,
     "the loaded backends, their devices (or why none), and refused plugins"},
};

const grt_cli_syntax grt_devices_syntax = {
    "devices",
    "[options]",
    "  the device mapping the runtime sees, in the placement log's format\n",
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {0},
    0,
    NULL,
};

static int usage(const char* why) {
  return grt_cli_usage_error(&grt_devices_syntax, why ? "%s" : NULL, why);
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
  devices_args a = {0};
  int rc = grt_cli_parse(&grt_devices_syntax, argc, argv, &a);
  grt_session_options* o = NULL;
  grt_status* st = NULL;
  if (rc == 0) st = grt_session_options_new(&o);
  if (rc == 0 && !st) st = grt_cli_set_options(o, &a.options);
  if (rc == 0 && !st && a.devices && a.options.n)
    st = grt_status_new(GRT_INVALID_ARGUMENT,
                        "--option shapes this machine's devices; it does not go with --devices");
  if (st) {
    rc = usage(grt_status_message(st));
    grt_status_free(st);
  } else if (rc == 0) {
    rc = run(a.devices, o, a.backends);
  }
  grt_session_options_free(o);
  grt_cli_free(&grt_devices_syntax, &a);
  return rc < 0 ? 0 : rc;
}
