/* grt train-graph IN OUT --loss NAME [--vars A,B,...] --optimizer sgd|momentum|adam
 *                 --learning-rate R [--momentum M] [--colocate-gradients-with-ops]
 *
 * Writes OUT: IN with the loss's gradients, the optimizer's slots and
 * updates, a NoOp `train` that runs one step and a NoOp `init` that
 * initialises every variable (docs/cli.md). Exit 0 written, 1 the graph
 * cannot be loaded, trained or saved, 2 usage error. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/report.h"
#include "tools/options.h"

typedef struct args {
  const char* in;
  const char* out;
  const char* loss;
  const char* vars;
  const char* optimizer;
  const char* learning_rate;
  const char* momentum;
  bool colocate;
} args;

static const grt_cli_option kOptions[] = {
    {"--loss", NULL, GRT_CLI_VALUE, offsetof(args, loss), "NAME",
     "the loss tensor, node or node:k; not a scalar: reduced by its mean (required)"},
    {"--vars", NULL, GRT_CLI_VALUE, offsetof(args, vars), "A,B,...",
     "the variables to train (default: every one the loss's gradient reaches)"},
    {"--optimizer", NULL, GRT_CLI_VALUE, offsetof(args, optimizer), "sgd|momentum|adam",
     "the update rule (required)"},
    {"--learning-rate", NULL, GRT_CLI_VALUE, offsetof(args, learning_rate), "R",
     "a positive number (required)"},
    {"--momentum", NULL, GRT_CLI_VALUE, offsetof(args, momentum), "M",
     "momentum's momentum (default 0.9)"},
    {"--colocate-gradients-with-ops", NULL, GRT_CLI_FLAG, offsetof(args, colocate), NULL,
     "each gradient node placed with its forward node"},
};

const grt_cli_syntax grt_train_graph_syntax = {
    "train-graph",
    "IN OUT --loss NAME --optimizer sgd|momentum|adam --learning-rate R [options]",
    "  OUT gains the gradients, the optimizer's slots and updates, a NoOp `train`\n"
    "  (one step) and a NoOp `init` (every variable's initialiser)\n",
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {offsetof(args, in), offsetof(args, out)},
    2,
    NULL,
};

static int usage(const char* why, const char* what) {
  return grt_cli_usage_error(&grt_train_graph_syntax, why, what);
}

/* 0 parsed, 2 usage error, -1 help printed. */
static int parse(int argc, char** argv, args* a) {
  memset(a, 0, sizeof *a);
  int rc = grt_cli_parse(&grt_train_graph_syntax, argc, argv, a);
  if (rc) return rc;
  if (!a->in || !a->out) return usage("needs IN and OUT%s", "");
  if (!a->loss) return usage("--loss is required%s", "");
  if (!a->optimizer) return usage("--optimizer is required%s", "");
  if (!a->learning_rate) return usage("--learning-rate is required%s", "");
  return 0;
}

static bool parse_double(const char* s, double* out) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end) return false;
  *out = v;
  return true;
}

/* Splits "a,b,c" in place into names (at most n); returns how many. */
static int split_names(char* list, const char** names, int n) {
  int k = 0;
  for (char* p = strtok(list, ","); p && k < n; p = strtok(NULL, ",")) names[k++] = p;
  return k;
}

int grt_cmd_train_graph(int argc, char** argv) {
  args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  grt_train_options o = {0};
  o.loss = a.loss;
  o.colocate_gradients_with_ops = a.colocate;
  double lr;
  if (!parse_double(a.learning_rate, &lr) || !(lr > 0))
    return usage("--learning-rate '%s' is not a positive number", a.learning_rate);
  const char* kinds[] = {"sgd", "momentum", "adam"};
  bool known = false;
  for (int i = 0; i < 3; i++) known = known || strcmp(a.optimizer, kinds[i]) == 0;
  if (!known) return usage("unknown optimizer '%s' (sgd, momentum or adam)", a.optimizer);
  grt_optimizer_defaults(&o.optimizer, a.optimizer, lr);
  if (a.momentum && (!parse_double(a.momentum, &o.optimizer.momentum) || o.optimizer.momentum < 0))
    return usage("--momentum '%s' is not a non-negative number", a.momentum);

  char* vars_copy = NULL;
  const char** names = NULL;
  if (a.vars) {
    size_t commas = 1;
    for (const char* p = a.vars; *p; p++) commas += *p == ',';
    vars_copy = strdup(a.vars);
    names = calloc(commas, sizeof *names);
    if (!vars_copy || !names) {
      free(vars_copy);
      free(names);
      fprintf(stderr, "grt train-graph: out of memory\n");
      return 1;
    }
    o.n_vars = split_names(vars_copy, names, (int)commas);
    o.vars = names;
    if (o.n_vars == 0) {
      free(vars_copy);
      free(names);
      return usage("--vars '%s' names no variable", a.vars);
    }
  }
  grt_graph* g = NULL;
  grt_status* s = grt_graph_load(a.in, &g);
  if (!s) s = grt_graph_add_train_step(g, &o);
  if (!s) s = grt_graph_save(g, a.out);
  grt_graph_free(g);
  free(vars_copy);
  free(names);
  if (s) {
    grt_cli_report("train-graph", s);
    grt_status_free(s);
    return 1;
  }
  return 0;
}
