/* A graph's signature node by node (grt_graph_node_roles, grt/graph.h),
 * found from the public graph queries alone: which nodes are placeholders,
 * and which nothing consumes. */
#include <stdbool.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "grt/graph.h"

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

grt_status* grt_graph_node_roles(const grt_graph* g, grt_node_role* roles) {
  if (!g || !roles) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph or roles");
  int32_t n = grt_graph_num_nodes(g);
  unsigned char* used = grt_calloc((size_t)n + 1, 1);
  if (!used) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory finding the graph's signature");
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
  for (int32_t i = 0; i < n; i++) {
    if (strcmp(grt_graph_node_op(g, i), "Placeholder") == 0)
      roles[i] = GRT_ROLE_FEED;
    else if (!used[i] && is_target(g, i))
      roles[i] = GRT_ROLE_TARGET;
    else if (!used[i] && !is_gradient(g, i))
      roles[i] = GRT_ROLE_OUTPUT;
    else
      roles[i] = GRT_ROLE_NONE;
  }
  grt_free(used);
  return NULL;
}
