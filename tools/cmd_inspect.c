/* grt inspect FILE [--signature | --json]: the graph's signature (feeds,
 * outputs, targets), then its nodes, ops, requested devices and constant
 * bytes. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/report.h"
#include "tools/signature.h"

static size_t node_constant_bytes(const grt_graph* g, int32_t i) {
  const grt_tensor* t;
  grt_status* s = grt_graph_node_attr_tensor(g, i, "value", &t);
  if (s) {
    grt_status_free(s);
    return 0;
  }
  return grt_tensor_byte_size(t);
}

typedef struct {
  const char* file;
  bool no_mmap, verify, signature, json;
} inspect_args;

static const grt_cli_option kOptions[] = {
    {"--no-mmap", NULL, GRT_CLI_FLAG, offsetof(inspect_args, no_mmap), NULL,
     "read a .grt file into memory instead of mapping it"},
    {"--verify", NULL, GRT_CLI_FLAG, offsetof(inspect_args, verify), NULL,
     "check every constant against the CRC-32C grt convert stored"},
    {"--signature", NULL, GRT_CLI_FLAG, offsetof(inspect_args, signature), NULL,
     "the feeds, outputs and targets alone"},
    {"--json", NULL, GRT_CLI_FLAG, offsetof(inspect_args, json), NULL,
     "the signature as one JSON object, for tools"},
};

const grt_cli_syntax grt_inspect_syntax = {
    "inspect",
    "FILE [options]",
    "  the graph's feeds, outputs and targets, then a row per node and the ops used\n",
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {offsetof(inspect_args, file)},
    1,
    "more than one FILE given ('%s')",
};

int grt_cmd_inspect(int argc, char** argv) {
  inspect_args a = {0};
  int rc = grt_cli_parse(&grt_inspect_syntax, argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  if (!a.file) return grt_cli_usage_error(&grt_inspect_syntax, "%s", "no FILE given");
  const char* file = a.file;
  unsigned flags = a.no_mmap ? GRT_LOAD_NO_MMAP : 0;
  bool verify = a.verify, signature_only = a.signature, json = a.json;
  grt_graph* g = NULL;
  grt_status* s = grt_graph_load_flags(file, flags, &g);
  int64_t verified = 0;
  if (!s && verify) {
    s = grt_graph_verify_constants(g, &verified);
    if (s) s = grt_status_prefix(s, "%s", file);
  }
  if (s) {
    grt_cli_report("inspect", s);
    grt_status_free(s);
    grt_graph_free(g);
    return 1;
  }
  if (json) {
    bool ok = grt_cli_print_signature(stdout, g, true);
    if (!ok) fprintf(stderr, "grt inspect: out of memory\n");
    grt_graph_free(g);
    return ok ? 0 : 1;
  }
  int32_t n = grt_graph_num_nodes(g);
  printf("graph: %s\nnodes: %d\nconstant bytes: %zu\nconstants: %s\n\n", file, (int)n,
         grt_graph_constant_bytes(g), grt_graph_storage(g));
  if (verify)
    printf("verified: %lld constants match their CRC-32C%s\n\n", (long long)verified,
           verified ? "" : " (this file has no checksums: JSON, or .grt before 1.1)");
  if (!grt_cli_print_signature(stdout, g, false)) {
    fprintf(stderr, "grt inspect: out of memory\n");
    grt_graph_free(g);
    return 1;
  }
  if (signature_only) {
    grt_graph_free(g);
    return 0;
  }
  printf("\n");
  printf("%-32s %-24s %-28s %-14s %-12s %s\n", "NAME", "OP", "DEVICE", "OUTPUT 0", "CONST BYTES",
         "INPUTS");
  for (int32_t i = 0; i < n; i++) {
    const char* dev = grt_graph_node_device(g, i);
    printf("%-32s %-24s %-28s ", grt_graph_node_name(g, i), grt_graph_node_op(g, i),
           dev[0] ? dev : "-");
    char shape[GRT_MAX_RANK * 21 + 4];
    printf("%-14s ", grt_cli_shape_str(g, i, 0, shape, sizeof shape));
    size_t cb = node_constant_bytes(g, i);
    if (cb)
      printf("%-12zu ", cb);
    else
      printf("%-12s ", "-");
    int32_t ni = grt_graph_node_num_inputs(g, i);
    for (int32_t k = 0; k < ni; k++) {
      int32_t port;
      const char* src = grt_graph_node_input(g, i, k, &port);
      printf("%s%s", k ? ", " : "", src);
      if (port) printf(":%d", (int)port);
    }
    int32_t nc = grt_graph_node_num_control_inputs(g, i);
    for (int32_t k = 0; k < nc; k++)
      printf("%s^%s", (ni || k) ? ", " : "", grt_graph_node_control_input(g, i, k));
    printf("\n");
  }
  /* Op histogram: how much of each op the graph has. */
  printf("\nops:\n");
  char** ops = calloc((size_t)n + 1, sizeof *ops);
  int* counts = calloc((size_t)n + 1, sizeof *counts);
  int distinct = 0;
  for (int32_t i = 0; ops && counts && i < n; i++) {
    const char* op = grt_graph_node_op(g, i);
    int k = 0;
    while (k < distinct && strcmp(ops[k], op) != 0) k++;
    if (k == distinct) ops[distinct++] = (char*)op;
    counts[k]++;
  }
  for (int k = 0; k < distinct; k++) printf("  %-24s %d\n", ops[k], counts[k]);
  free(ops);
  free(counts);
  grt_graph_free(g);
  return 0;
}
