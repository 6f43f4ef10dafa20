/* A graph's signature (tools/signature.h), found from the public graph
 * queries alone: which nodes are placeholders, and which nothing consumes. */
#include "tools/signature.h"

#include <stdlib.h>
#include <string.h>

const char* grt_cli_shape_str(const grt_graph* g, int32_t node, int32_t k, char* buf, size_t size) {
  int32_t rank;
  int64_t dims[GRT_MAX_RANK];
  grt_status* s = grt_graph_node_output_shape(g, node, k, &rank, dims);
  if (s) {
    grt_status_free(s);
    return "-";
  }
  if (rank < 0) return "?";
  size_t len = (size_t)snprintf(buf, size, "[");
  for (int32_t d = 0; d < rank && len < size; d++) {
    if (dims[d] < 0)
      len += (size_t)snprintf(buf + len, size - len, "%s?", d ? "," : "");
    else
      len += (size_t)snprintf(buf + len, size - len, "%s%lld", d ? "," : "", (long long)dims[d]);
  }
  if (len < size) snprintf(buf + len, size - len, "]");
  return buf;
}

enum { kData = 1, kControl = 2 }; /* how a node is used by others */

/* Ops run for what they do to a variable: an unused one is a target (a
 * graph's `w/Assign` without an init NoOp), though it has an output. */
static const char* const kUpdateOps[] = {
    "Assign", "AssignAdd", "AssignSub", "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam",
};

/* A node of a backward pass: grt_graph_add_gradients names them under a
 * first scope "gradients", "gradients_1", "gradients_tower_0" (train-graph,
 * replicate --mirrored). Its uses of forward tensors do not hide them (the
 * loss stays an output), and its own unused tensors (the gradient of a
 * feed) are not outputs. */
static bool is_gradient(const grt_graph* g, int32_t node) {
  const char* name = grt_graph_node_name(g, node);
  return strncmp(name, "gradients", 9) == 0 && (name[9] == '/' || name[9] == '_') &&
         strchr(name, '/');
}

static bool is_target(const grt_graph* g, int32_t node) {
  if (grt_graph_node_num_outputs(g, node) == 0) return true;
  for (size_t i = 0; i < sizeof kUpdateOps / sizeof kUpdateOps[0]; i++)
    if (strcmp(grt_graph_node_op(g, node), kUpdateOps[i]) == 0) return true;
  return false;
}

static void print_tensor(FILE* f, const grt_graph* g, int32_t node, int32_t k) {
  char name[512], shape[GRT_MAX_RANK * 21 + 4];
  if (k)
    snprintf(name, sizeof name, "%s:%d", grt_graph_node_name(g, node), (int)k);
  else
    snprintf(name, sizeof name, "%s", grt_graph_node_name(g, node));
  fprintf(f, "  %-32s %-10s %s\n", name, grt_dtype_name(grt_graph_node_output_type(g, node, k)),
          grt_cli_shape_str(g, node, k, shape, sizeof shape));
}

bool grt_cli_print_signature(FILE* f, const grt_graph* g) {
  int32_t n = grt_graph_num_nodes(g);
  unsigned char* used = calloc((size_t)n + 1, 1);
  if (!used) return false;
  for (int32_t i = 0; i < n; i++) {
    for (int32_t k = 0; k < grt_graph_node_num_inputs(g, i) && !is_gradient(g, i); k++) {
      int32_t port;
      int32_t src = grt_graph_find_node(g, grt_graph_node_input(g, i, k, &port));
      if (src >= 0) used[src] |= kData;
    }
    for (int32_t k = 0; k < grt_graph_node_num_control_inputs(g, i); k++) {
      int32_t src = grt_graph_find_node(g, grt_graph_node_control_input(g, i, k));
      if (src >= 0) used[src] |= kControl;
    }
  }
  int32_t count = 0;
  fprintf(f, "feeds:\n");
  for (int32_t i = 0; i < n; i++)
    if (strcmp(grt_graph_node_op(g, i), "Placeholder") == 0) print_tensor(f, g, i, 0), count++;
  if (!count) fprintf(f, "  none\n");

  count = 0;
  fprintf(f, "outputs:\n");
  for (int32_t i = 0; i < n; i++) {
    if (used[i] || is_target(g, i) || is_gradient(g, i) ||
        strcmp(grt_graph_node_op(g, i), "Placeholder") == 0)
      continue;
    for (int32_t k = 0; k < grt_graph_node_num_outputs(g, i); k++)
      print_tensor(f, g, i, k), count++;
  }
  if (!count) fprintf(f, "  none\n");

  count = 0;
  fprintf(f, "targets:\n");
  for (int32_t i = 0; i < n; i++) {
    if (used[i] || !is_target(g, i)) continue;
    int32_t runs = grt_graph_node_num_control_inputs(g, i) + grt_graph_node_num_inputs(g, i);
    fprintf(f, "  %-32s %-10s waits for %d node%s\n", grt_graph_node_name(g, i),
            grt_graph_node_op(g, i), (int)runs, runs == 1 ? "" : "s");
    count++;
  }
  if (!count) fprintf(f, "  none\n");
  free(used);
  return true;
}
