/* grt place FILE --devices SPEC [--soft-placement] [--log]
 *           [--plan-json OUT.json] [--dot OUT.dot|OUT.svg]
 *           [--ps-devices DEV,DEV,...] [--ps-strategy greedy|round_robin]
 *
 * Plans the graph for the devices named (which this machine need not have)
 * and explains the plan (docs/cli.md, docs/placement.md). Exit 0 placed,
 * 1 the graph cannot be loaded or placed, 2 usage error. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/picture.h"
#include "tools/report.h"

typedef struct args {
  const char* file;
  const char* devices;
  bool soft, log;
  const char* plan_json;
  const char* dot;
  const char* ps_devices;
  const char* ps_strategy;
} args;

static const grt_cli_option kOptions[] = {
    {"--devices", NULL, GRT_CLI_VALUE, offsetof(args, devices), "SPEC",
     "the devices to plan for, which this machine need not have: cpu:1,gpu:2 (required)"},
    {"--soft-placement", NULL, GRT_CLI_FLAG, offsetof(args, soft), NULL,
     "a request that cannot be met falls back to a device that can run the node"},
    {"--log", "--log-device-placement", GRT_CLI_FLAG, offsetof(args, log), NULL,
     "the placement log (TensorFlow's format) on stdout"},
    {"--plan-json", NULL, GRT_CLI_VALUE, offsetof(args, plan_json), "OUT.json",
     "the plan with a reason per node as JSON ('-': stdout)"},
    {"--dot", NULL, GRT_CLI_VALUE, offsetof(args, dot), "OUT.dot|OUT.svg",
     "the placed graph drawn, a node per device colour (.svg through Graphviz)"},
    {"--ps-devices", NULL, GRT_CLI_VALUE, offsetof(args, ps_devices), "DEV,DEV,...",
     "variables without a request spread over these by the ps setter"},
    {"--ps-strategy", NULL, GRT_CLI_VALUE, offsetof(args, ps_strategy), "greedy|round_robin",
     "how the ps setter spreads them (default greedy: least bytes so far)"},
};

const grt_cli_syntax grt_place_syntax = {
    "place",  "FILE --devices SPEC [options]",      NULL,
    kOptions, sizeof kOptions / sizeof kOptions[0], {offsetof(args, file)},
    1,        "more than one input file ('%s')",
};

static int usage(const char* why, const char* what) {
  return grt_cli_usage_error(&grt_place_syntax, why, what);
}

/* 0 parsed, 2 usage error, -1 help printed. */
static int parse(int argc, char** argv, args* a) {
  memset(a, 0, sizeof *a);
  int rc = grt_cli_parse(&grt_place_syntax, argc, argv, a);
  if (rc) return rc;
  if (!a->file) return usage("%s", "no input FILE");
  if (!a->devices) return usage("%s", "--devices SPEC is required (e.g. --devices cpu:1,gpu:2)");
  if (a->ps_strategy && !a->ps_devices) return usage("%s", "--ps-strategy needs --ps-devices");
  return 0;
}

static grt_status* write_json(void* ctx, FILE* f) { return grt_plan_write_json(ctx, f); }

static void summary(const grt_plan* p) {
  const grt_device_set* ds = grt_plan_devices(p);
  int32_t nd = grt_device_set_count(ds);
  int32_t* per = calloc((size_t)nd + 1, sizeof *per);
  if (!per) return;
  for (int32_t v = 0; v < grt_plan_num_nodes(p); v++) per[grt_plan_node_device(p, v)]++;
  printf("placed %d nodes:", (int)grt_plan_num_nodes(p));
  for (int32_t d = 0; d < nd; d++)
    if (per[d])
      printf(" %s:%d %d;", grt_device_set_type(ds, d), (int)grt_device_set_id(ds, d), (int)per[d]);
  printf(" %d cross-device copies\n", (int)grt_plan_num_copies(p));
  free(per);
}

static int fail(grt_status* s) {
  grt_cli_report("place", s);
  grt_status_free(s);
  return 1;
}

int grt_cmd_place(int argc, char** argv) {
  args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  grt_device_set* ds = NULL;
  grt_place_options* opts = NULL;
  grt_status* s = grt_device_set_from_spec(a.devices, &ds);
  if (!s) s = grt_place_options_new(&opts);
  if (!s && a.ps_devices) s = grt_place_options_set_ps_devices(opts, a.ps_devices);
  if (!s && a.ps_strategy) s = grt_place_options_set_ps_strategy(opts, a.ps_strategy);
  if (s) {
    grt_cli_report("place", s);
    grt_status_free(s);
    grt_device_set_free(ds);
    grt_place_options_free(opts);
    return usage(NULL, NULL);
  }
  grt_place_options_set_soft_placement(opts, a.soft);
  grt_graph* g = NULL;
  grt_plan* plan = NULL;
  s = grt_graph_load(a.file, &g);
  if (!s) s = grt_place(g, ds, opts, &plan);
  if (!s && a.log) s = grt_plan_write_log(plan, stdout);
  if (!s && a.plan_json) {
    if (strcmp(a.plan_json, "-") == 0)
      s = grt_plan_write_json(plan, stdout);
    else
      s = grt_write_file_atomic(a.plan_json, write_json, plan);
  }
  if (!s && a.dot) s = grt_tool_save_picture(plan, a.dot);
  /* The summary line only when stdout holds nothing else (no log, no plan). */
  bool plan_on_stdout = a.plan_json && strcmp(a.plan_json, "-") == 0;
  if (!s && !a.log && !plan_on_stdout) summary(plan);
  rc = s ? fail(s) : 0;
  grt_plan_free(plan);
  grt_graph_free(g);
  grt_device_set_free(ds);
  grt_place_options_free(opts);
  return rc;
}
