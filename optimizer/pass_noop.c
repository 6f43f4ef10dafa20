/* Pass "noop": a NoOp only joins its control inputs to its control uses.
 * When few enough are joined, each use waits for the inputs directly and
 * the NoOp goes (grappler's dependency optimizer): a NoOp of fan-in i and
 * fan-out o becomes i*o edges, so only where i*o <= i + o + 1 (never more
 * edges than before, plus one).
 *
 * Left alone: a NoOp nothing waits for (a run's target: its name stays),
 * one with no control inputs (nothing to join; its uses would lose an
 * edge the pass cannot take out), a fixed one, and one whose inputs or uses
 * are on another device (the control edge is the cross-device message). */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"

static bool has_control(grt_opt_ctx* c, int32_t node, int32_t src) {
  const grt_node* n = grt_opt_node(c, node);
  for (int32_t k = 0; k < n->n_controls; k++)
    if (n->controls[k].src == src) return true;
  return false;
}

static bool removable(grt_opt_ctx* c, int32_t i) {
  const grt_node* n = grt_opt_node(c, i);
  if (strcmp(n->op, "NoOp") != 0 || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i)) return false;
  const grt_opt_use* u = NULL;
  int32_t fan_out = grt_opt_uses(c, i, -1, &u);
  int32_t fan_in = n->n_controls;
  if (n->n_inputs > 0 || fan_in == 0 || fan_out == 0) return false;
  if ((int64_t)fan_in * fan_out > (int64_t)fan_in + fan_out + 1) return false;
  for (int32_t k = 0; k < fan_in; k++) {
    int32_t s = n->controls[k].src;
    if (s < 0 || grt_opt_is_dead(c, s) || !grt_opt_same_device(c, s, i)) return false;
  }
  for (int32_t k = 0; k < fan_out; k++)
    if (grt_opt_is_dead(c, u[k].node) || !grt_opt_same_device(c, u[k].node, i)) return false;
  return true;
}

grt_status* grt_opt_pass_noop(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c);
  int32_t removed = 0;
  for (int32_t i = 0; i < n; i++) {
    if (!removable(c, i)) continue;
    const grt_opt_use* u = NULL;
    int32_t fan_out = grt_opt_uses(c, i, -1, &u);
    /* Each use waits for the first input in the NoOp's place, and for the
     * others by new edges. (The uses index is the pass's start; a use may
     * be a NoOp removed earlier in this loop: it is dead and skipped by
     * removable(), so chains go one NoOp per pass.) */
    int32_t first = grt_opt_node(c, i)->controls[0].src;
    for (int32_t k = 0; k < fan_out; k++) {
      for (int32_t j = 1; j < grt_opt_node(c, i)->n_controls; j++) {
        int32_t s = grt_opt_node(c, i)->controls[j].src;
        if (!has_control(c, u[k].node, s))
          GRT_RETURN_IF_ERROR(grt_opt_add_input(c, u[k].node, s, -1));
      }
    }
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, first, 0, true, true));
    grt_opt_kill(c, i);
    removed++;
  }
  grt_opt_count(c, removed);
  return NULL;
}
