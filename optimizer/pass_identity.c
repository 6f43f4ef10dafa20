/* Pass "identity": an Identity whose input is on its own device is a name
 * for that value and nothing more (TensorFlow's `w/read`, the ONNX
 * importer's output names); its consumers read the input directly.
 *
 * Left alone: an Identity that crosses devices (it is the copy), one with
 * control inputs (it orders something), a reference Identity, and one
 * nothing reads (a graph output: fetched by its name). */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"

static bool removable(grt_opt_ctx* c, int32_t i) {
  const grt_node* n = grt_opt_node(c, i);
  if (strcmp(n->op, "Identity") != 0 || n->n_inputs != 1 || n->n_controls > 0) return false;
  if (grt_opt_is_fixed(c, i) || grt_opt_num_data_uses(c, i) == 0) return false;
  int32_t src = n->inputs[0].src;
  if (src < 0 || grt_opt_is_dead(c, src)) return false;
  return strcmp(grt_opt_node(c, src)->device, n->device) == 0 &&
         strcmp(grt_opt_device_type(c, src), grt_opt_device_type(c, i)) == 0;
}

grt_status* grt_opt_pass_identity(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c);
  int32_t removed = 0;
  for (int32_t i = 0; i < n; i++) {
    if (!removable(c, i)) continue;
    int32_t port = 0;
    int32_t src = grt_opt_input_node(c, i, 0, &port);
    /* A chain of Identities: the source may itself be one removed
     * earlier in this loop; follow it to what it read. */
    while (grt_opt_is_dead(c, src) && strcmp(grt_opt_node(c, src)->op, "Identity") == 0)
      src = grt_opt_input_node(c, src, 0, &port);
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, src, port, true, true));
    grt_opt_kill(c, i);
    removed++;
  }
  grt_opt_count(c, removed);
  return NULL;
}
