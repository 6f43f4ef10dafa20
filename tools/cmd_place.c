/* grt place FILE --devices SPEC [--soft-placement] [--log]
 *           [--plan-json OUT.json] [--dot OUT.dot|OUT.svg]
 *           [--ps-devices DEV,DEV,...] [--ps-strategy greedy|round_robin]
 *
 * Plans the graph for the devices named (which this machine need not have)
 * and explains the plan (docs/cli.md, docs/placement.md). Exit 0 placed,
 * 1 the graph cannot be loaded or placed, 2 usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/picture.h"

#define USAGE                                                                   \
  "usage: grt place FILE --devices SPEC [--soft-placement] [--log]\n"           \
  "              [--plan-json OUT.json] [--dot OUT.dot|OUT.svg]\n"              \
  "              [--ps-devices DEV,DEV,...] [--ps-strategy greedy|round_robin]\n"

typedef struct args {
  const char* file;
  const char* devices;
  bool soft, log;
  const char* plan_json;
  const char* dot;
  const char* ps_devices;
  const char* ps_strategy;
} args;

static int usage(const char* fmt, const char* what) {
  if (fmt) {
    fprintf(stderr, "grt place: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
  }
  fprintf(stderr, USAGE);
  return 2;
}

/* The options that take a value, and where each goes. */
static const char** value_slot(args* a, const char* name) {
  if (strcmp(name, "--devices") == 0) return &a->devices;
  if (strcmp(name, "--plan-json") == 0) return &a->plan_json;
  if (strcmp(name, "--dot") == 0) return &a->dot;
  if (strcmp(name, "--ps-devices") == 0) return &a->ps_devices;
  if (strcmp(name, "--ps-strategy") == 0) return &a->ps_strategy;
  return NULL;
}

/* 0 parsed, 2 usage error, -1 help printed. */
static int parse(int argc, char** argv, args* a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    char* arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(USAGE, stdout);
      return -1;
    }
    if (strcmp(arg, "--soft-placement") == 0) {
      a->soft = true;
    } else if (strcmp(arg, "--log") == 0 || strcmp(arg, "--log-device-placement") == 0) {
      a->log = true;
    } else if (strncmp(arg, "--", 2) == 0) {
      char name[32];
      const char* eq = strchr(arg, '=');
      size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
      if (n >= sizeof name) return usage("unknown option '%s'", arg);
      memcpy(name, arg, n);
      name[n] = '\0';
      const char** slot = value_slot(a, name);
      if (!slot) return usage("unknown option '%s'", arg);
      if (*slot) return usage("%s given twice", name);
      if (eq) {
        *slot = eq + 1;
      } else {
        if (i + 1 >= argc) return usage("%s needs a value", name);
        *slot = argv[++i];
      }
      if (!**slot) return usage("%s needs a non-empty value", name);
    } else if (arg[0] == '-' && arg[1]) {
      return usage("unknown option '%s'", arg);
    } else {
      if (a->file) return usage("more than one input file ('%s')", arg);
      a->file = arg;
    }
  }
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
    if (per[d]) printf(" %s:%d %d;", grt_device_set_type(ds, d), (int)grt_device_set_id(ds, d), (int)per[d]);
  printf(" %d cross-device copies\n", (int)grt_plan_num_copies(p));
  free(per);
}

static int fail(grt_status* s) {
  fprintf(stderr, "grt place: %s\n", grt_status_message(s));
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
    fprintf(stderr, "grt place: %s\n", grt_status_message(s));
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
    if (strcmp(a.plan_json, "-") == 0) s = grt_plan_write_json(plan, stdout);
    else s = grt_write_file_atomic(a.plan_json, write_json, plan);
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
