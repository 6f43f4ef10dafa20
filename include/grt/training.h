/* grt — training: optimizers and train steps as graph transformations
 * (TensorFlow's tf.train optimizers). Gradients themselves are
 * grt_graph_add_gradients in grt/graph.h.
 *
 * Names follow TensorFlow's: slot variables "<var>/Momentum", "<var>/Adam"
 * and "<var>/Adam_1" (colocated with their variable, initialised to zeros);
 * Adam's "beta1_power" and "beta2_power" (colocated with the first variable
 * by name, multiplied by beta1 and beta2 after every step); update ops
 * "<Optimizer>/update_<var>/Apply<...>". */
#ifndef GRT_TRAINING_H_
#define GRT_TRAINING_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/graph.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An optimizer and its hyperparameters (fill with grt_optimizer_defaults,
 * then change what you need). */
typedef struct grt_optimizer {
  const char*
      name; /* "sgd" (ApplyGradientDescent), "momentum" (ApplyMomentum), "adam" (ApplyAdam) */
  double learning_rate;
  double momentum;              /* momentum: default 0.9 */
  bool use_nesterov;            /* momentum, adam: default false */
  double beta1, beta2, epsilon; /* adam: TensorFlow's defaults 0.9, 0.999, 1e-8 */
} grt_optimizer;

/* Sets *o to `name`'s defaults with the given learning rate. */
GRT_API void grt_optimizer_defaults(grt_optimizer* o, const char* name, double learning_rate);

/* TensorFlow's Optimizer.apply_gradients: for each variable node vars[i]
 * (a VariableV2 or Variable of a float type; slots need its shape fully
 * known) and its gradient grads[i], adds the optimizer's slots with their
 * initialisers and its Apply* op, and a NoOp `train_name` that runs one
 * step (control inputs on every update). On failure the graph is left as
 * it was. Initialisers are added but not run: see grt_graph_add_init. */
GRT_API GRT_MUST_USE grt_status* grt_graph_apply_gradients(grt_graph* g, const grt_optimizer* o,
                                                           const int32_t* vars,
                                                           const grt_output* grads, int32_t n,
                                                           const char* train_name);

/* A NoOp `name` with a control input on the initialiser of every variable
 * of the graph (TensorFlow's global_variables_initializer): a variable's
 * initialiser is the first Assign to it in node order. When a node `name`
 * exists it must be a NoOp, and is extended with the initialisers it does
 * not already list. Fails naming a variable without an initialiser. */
GRT_API GRT_MUST_USE grt_status* grt_graph_add_init(grt_graph* g, const char* name);

/* What grt train-graph does (docs/cli.md). */
typedef struct grt_train_options {
  const char* loss;        /* "node" or "node:k"; a non-scalar loss is reduced by its mean */
  const char* const* vars; /* variable node names; n_vars 0: every variable the loss */
  int32_t n_vars;          /* depends on whose gradient reaches it */
  grt_optimizer optimizer;
  bool colocate_gradients_with_ops;
  const char* train_name; /* NULL: "train" */
  const char* init_name;  /* NULL: "init" */
} grt_train_options;

/* Adds the gradients of the loss with respect to the variables, the
 * optimizer's slots and updates, the NoOp `train` that runs one step and
 * the NoOp `init` that initialises every variable (grt_graph_add_init). A
 * variable named in `vars` that no gradient reaches is an error naming it.
 * On failure the graph is left as it was. */
GRT_API GRT_MUST_USE grt_status* grt_graph_add_train_step(grt_graph* g, const grt_train_options* o);

#ifdef __cplusplus
}
#endif

#endif /* GRT_TRAINING_H_ */
