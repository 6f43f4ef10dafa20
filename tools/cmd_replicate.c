/* grt replicate IN OUT --towers N [--tower-devices D0,D1,...] --inputs X,Y,...
 *                --outputs A,B,... [--variables-on DEVICE |
 *                --ps-devices D,D,... [--ps-strategy greedy|round_robin]]
 *                [--mirrored --loss NAME --optimizer sgd|momentum|adam --learning-rate R
 *                 [--all-reduce add_n|collective]]
 *
 * With --mirrored each tower keeps a copy of the variables and OUT also
 * trains: the towers' gradients all-reduced, the same update on every copy
 * (`train` and `init` NoOps, as grt train-graph adds). --all-reduce picks
 * how: an AddN per tower device (add_n, the default) or one NcclAllReduce
 * group per variable (collective: NCCL on GPUs).
 *
 * Writes OUT: IN with its model in N towers over a split batch, variables
 * shared (grt_graph_replicate, include/grt/parallel.h; docs/parallel.md).
 * Exit 0 written, 1 the graph cannot be loaded, replicated or saved, 2
 * usage error. */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/report.h"

typedef struct {
  const char *in, *out, *towers, *tower_devices, *inputs, *outputs, *variables_on, *ps_devices,
      *ps_strategy, *loss, *optimizer, *learning_rate, *all_reduce;
  bool mirrored;
} args;

static const grt_cli_option kOptions[] = {
    {"--towers", NULL, GRT_CLI_VALUE, offsetof(args, towers), "N",
     "the number of towers (required)"},
    {"--tower-devices", NULL, GRT_CLI_VALUE, offsetof(args, tower_devices), "D0,D1,...",
     "tower K on device DK (default: the originals' devices)"},
    {"--inputs", NULL, GRT_CLI_VALUE, offsetof(args, inputs), "X,Y,...",
     "tensors split along axis 0 among the towers (required)"},
    {"--outputs", NULL, GRT_CLI_VALUE, offsetof(args, outputs), "A,B,...",
     "nodes concatenated along axis 0 under their old names (required)"},
    {"--variables-on", NULL, GRT_CLI_VALUE, offsetof(args, variables_on), "DEVICE",
     "every variable on DEVICE"},
    {"--ps-devices", NULL, GRT_CLI_VALUE, offsetof(args, ps_devices), "D,D,...",
     "variables spread over these by the ps setter"},
    {"--ps-strategy", NULL, GRT_CLI_VALUE, offsetof(args, ps_strategy), "greedy|round_robin",
     "how the ps setter spreads them (default greedy)"},
    {"--mirrored", NULL, GRT_CLI_FLAG, offsetof(args, mirrored), NULL,
     "a copy of the variables per tower, gradients all-reduced; adds train, init"},
    {"--loss", NULL, GRT_CLI_VALUE, offsetof(args, loss), "NAME",
     "with --mirrored: the loss, an output, per example"},
    {"--optimizer", NULL, GRT_CLI_VALUE, offsetof(args, optimizer), "sgd|momentum|adam",
     "with --mirrored: the update rule"},
    {"--learning-rate", NULL, GRT_CLI_VALUE, offsetof(args, learning_rate), "R",
     "with --mirrored: a positive number"},
    {"--all-reduce", NULL, GRT_CLI_VALUE, offsetof(args, all_reduce), "add_n|collective",
     "with --mirrored: an AddN per tower (default) or NcclAllReduce groups"},
};

const grt_cli_syntax grt_replicate_syntax = {
    "replicate",
    "IN OUT --towers N --inputs X,... --outputs A,... [options]",
    NULL,
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {offsetof(args, in), offsetof(args, out)},
    2,
    NULL,
};

static int usage(const char* why, const char* what) {
  return grt_cli_usage_error(&grt_replicate_syntax, why, what);
}

/* 0 parsed, 2 usage error, -1 help printed. */
static int parse(int argc, char** argv, args* a) {
  memset(a, 0, sizeof *a);
  int rc = grt_cli_parse(&grt_replicate_syntax, argc, argv, a);
  if (rc) return rc;
  if (!a->in || !a->out) return usage("needs IN and OUT%s", "");
  if (!a->towers || !a->inputs || !a->outputs)
    return usage("needs --towers, --inputs and --outputs%s", "");
  if (a->variables_on && a->ps_devices)
    return usage("give --variables-on or --ps-devices, not both%s", "");
  if (a->mirrored && (!a->loss || !a->optimizer || !a->learning_rate || !a->tower_devices))
    return usage("--mirrored needs --tower-devices, --loss, --optimizer and --learning-rate%s", "");
  if (!a->mirrored && (a->loss || a->optimizer || a->learning_rate || a->all_reduce))
    return usage(
        "--loss, --optimizer, --learning-rate and --all-reduce go with --mirrored (else use grt "
        "train-graph)%s",
        "");
  if (a->all_reduce && strcmp(a->all_reduce, "add_n") && strcmp(a->all_reduce, "collective"))
    return usage("--all-reduce is add_n or collective, not '%s'", a->all_reduce);
  return 0;
}

/* Splits a comma-separated list in place (`text` is a copy). */
static int32_t split_list(char* text, const char** out, int32_t max) {
  int32_t n = 0;
  for (char* tok = strtok(text, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
  return n;
}

typedef struct {
  char* text;
  const char** items;
  int32_t n;
} list;

static bool make_list(const char* s, list* l) {
  memset(l, 0, sizeof *l);
  if (!s) return true;
  size_t len = strlen(s);
  l->text = malloc(len + 1);
  l->items = calloc(len + 1, sizeof *l->items);
  if (!l->text || !l->items) return false;
  memcpy(l->text, s, len + 1);
  l->n = split_list(l->text, l->items, (int32_t)len + 1);
  return true;
}

static void free_list(list* l) {
  free(l->text);
  free(l->items);
}

/* A comma-separated list of device names given by `flag`: malformed names
 * are usage errors (2), found with the placer's own parser of such lists. */
static int check_devices(const char* flag, const char* list) {
  if (!list) return 0;
  grt_place_options* o = NULL;
  grt_status* st = grt_place_options_new(&o);
  if (!st) st = grt_place_options_set_ps_devices(o, list);
  grt_place_options_free(o);
  if (!st) return 0;
  fprintf(stderr, "grt replicate: %s '%s': %s\n", flag, list, grt_status_message(st));
  grt_status_free(st);
  return usage(NULL, NULL);
}

/* The entries of a comma-separated list (0 for none). */
static long count_items(const char* s) {
  long n = 0;
  for (const char* p = s; p && *p; p++) n += *p != ',' && (p == s || p[-1] == ',');
  return n;
}

int grt_cmd_replicate(int argc, char** argv) {
  args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  char* end;
  errno = 0;
  long towers = strtol(a.towers, &end, 10);
  if (*end || errno || towers < 1 || towers > 4096)
    return usage("--towers needs a positive integer, not '%s'", a.towers);
  if (check_devices("--tower-devices", a.tower_devices) ||
      check_devices("--ps-devices", a.ps_devices) ||
      check_devices("--variables-on", a.variables_on))
    return 2;
  if (a.tower_devices && count_items(a.tower_devices) != towers)
    return usage("--tower-devices needs one device per tower, not '%s'", a.tower_devices);
  grt_ps_strategy strategy = GRT_PS_GREEDY;
  if (a.ps_strategy && strcmp(a.ps_strategy, "round_robin") == 0)
    strategy = GRT_PS_ROUND_ROBIN;
  else if (a.ps_strategy && strcmp(a.ps_strategy, "greedy") != 0)
    return usage("--ps-strategy is greedy or round_robin, not '%s'", a.ps_strategy);
  double lr = 0;
  if (a.mirrored) {
    errno = 0;
    lr = strtod(a.learning_rate, &end);
    if (*end || errno || !(lr > 0))
      return usage("--learning-rate needs a positive number, not '%s'", a.learning_rate);
    if (strcmp(a.optimizer, "sgd") && strcmp(a.optimizer, "momentum") &&
        strcmp(a.optimizer, "adam"))
      return usage("--optimizer is sgd, momentum or adam, not '%s'", a.optimizer);
  }
  list devs, ins, outs, ps;
  bool ok = make_list(a.tower_devices, &devs) & make_list(a.inputs, &ins) &
            make_list(a.outputs, &outs) & make_list(a.ps_devices, &ps);
  grt_graph* g = NULL;
  grt_graph* r = NULL;
  grt_status* st = ok ? NULL : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  if (!st) st = grt_graph_load(a.in, &g);
  if (!st) {
    grt_replicate_options o = {
        .towers = (int32_t)towers,
        .tower_devices = devs.items,
        .n_tower_devices = devs.n,
        .inputs = ins.items,
        .n_inputs = ins.n,
        .outputs = outs.items,
        .n_outputs = outs.n,
        .variables_on = a.variables_on,
        .ps_devices = ps.items,
        .n_ps_devices = ps.n,
        .ps_strategy = strategy,
        .mirrored = a.mirrored,
    };
    st = grt_graph_replicate(g, &o, &r);
  }
  if (!st && a.mirrored) {
    grt_mirrored_train_options t = {
        .loss = a.loss,
        .towers = (int32_t)towers,
        .tower_devices = devs.items,
        .all_reduce = a.all_reduce && !strcmp(a.all_reduce, "collective")
                          ? GRT_ALL_REDUCE_COLLECTIVE
                          : GRT_ALL_REDUCE_ADD_N,
    };
    grt_optimizer_defaults(&t.optimizer, a.optimizer, lr);
    st = grt_graph_add_mirrored_train_step(r, &t);
  }
  if (!st) st = grt_graph_save(r, a.out);
  rc = 0;
  if (st) {
    grt_cli_report("replicate", st);
    grt_status_free(st);
    rc = 1;
  }
  grt_graph_free(r);
  grt_graph_free(g);
  free_list(&devs);
  free_list(&ins);
  free_list(&outs);
  free_list(&ps);
  return rc;
}
