/* The graph optimizer: passes that turn a validated graph into an
 * equivalent one that runs faster (constant folding, simplification,
 * layout, fusion). DESIGN.md says what "equivalent" promises and how a
 * session uses the result.
 *
 * The input graph is never changed. The output is a new graph that may
 * borrow tensors from the input (the input must outlive it). Every node of
 * the output whose name is also a node of the input computes the same
 * value as that node (same dtype, same shape, same layout); nodes the
 * passes add have fresh names. */
#ifndef GRT_OPTIMIZER_OPTIMIZER_H_
#define GRT_OPTIMIZER_OPTIMIZER_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/status.h"
#include "ops/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the caller provides. */
typedef struct grt_opt_env {
  /* Device type name ("CPU", "GPU", ...) each input node runs on, indexed
   * like the input graph; NULL: every node on "CPU". */
  const char* const* node_device_type;
  /* Device string each output node is pinned to, indexed like the input
   * graph (new nodes take the one of the node they stand for); NULL keeps
   * each node's own `device` field. */
  const char* const* node_device;
  /* Constant folding's evaluator: runs graph `g` (Consts and the nodes to
   * fold, on the host) and returns the n outputs named by `fetches`
   * ("node" or "node:k") as new tensors the caller owns. NULL: nothing is
   * folded. */
  grt_status* (*eval)(void* ctx, grt_graph* g, const char* const* fetches, int32_t n,
                      grt_tensor** out);
  void* eval_ctx;
} grt_opt_env;

/* Switches. A pass is off when its bit (1u << its index in the pass
 * table, grt_opt_pass_index) is set in `off`. */
typedef struct grt_opt_options {
  uint64_t off;
  int64_t fold_max_bytes; /* constant folding's cap per produced tensor; 0: default (16 MiB) */
} grt_opt_options;

/* What one pass did. */
typedef struct grt_opt_pass_report {
  const char* pass; /* static */
  bool ran;         /* false: switched off or not applicable */
  int32_t nodes_before, nodes_after;
  int32_t changes; /* rewrites made (the pass's own unit: folds, fusions, ...) */
  double ms;
  char detail[200]; /* one line, "" when nothing */
} grt_opt_pass_report;

#define GRT_OPT_MAX_REPORTED 32

typedef struct grt_opt_report {
  int32_t nodes_before, nodes_after;
  double ms;
  int32_t n_passes;
  grt_opt_pass_report passes[GRT_OPT_MAX_REPORTED];
} grt_opt_report;

/* The result beside the graph: per output node, whether feeding it in a
 * run keeps the input graph's meaning (false where a pass made other
 * values read this node that did not read it before, as common
 * subexpression elimination does). */
typedef struct grt_opt_result {
  grt_graph* graph;
  bool* feed_safe; /* per output node */
  grt_opt_report report;
} grt_opt_result;

/* Runs every pass not switched off over `in` (validated). On success
 * *out holds a validated graph (free with grt_opt_result_clear). A pass
 * that fails fails the whole call: errors name the pass and the node. */
GRT_MUST_USE grt_status* grt_optimize(const grt_graph* in, const grt_opt_env* env,
                                      const grt_opt_options* opts, grt_opt_result* out);
void grt_opt_result_clear(grt_opt_result* r);

/* The pass table, in the order passes run (a name may appear more than
 * once: every row of it follows its switch). */
int32_t grt_opt_pass_count(void);
const char* grt_opt_pass_name(int32_t i);
const char* grt_opt_pass_doc(int32_t i);
/* The switch bit of the pass named `name` (every row of it), or 0 when no
 * pass has that name. "all" gives every bit. */
uint64_t grt_opt_pass_bit(const char* name);
/* Parses "a,b,c" into switch bits; an unknown name is INVALID_ARGUMENT
 * naming it and the known ones. */
GRT_MUST_USE grt_status* grt_opt_parse_pass_list(const char* list, uint64_t* out);

/* The report as text, one line per pass that ran or was switched off. */
void grt_opt_report_write(const grt_opt_report* r, FILE* f);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPTIMIZER_OPTIMIZER_H_ */
