/* The seeds' Fashion-MNIST MLP (784-256-256-10, ReLU, Adam) and a small CNN
 * as grt graphs built through the public C API, in towers for data
 * parallelism. */
#ifndef GRT_EXAMPLES_FASHION_MNIST_MODEL_H_
#define GRT_EXAMPLES_FASHION_MNIST_MODEL_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/grt.h"

/* The most towers fmnist_build_towers makes, and the most ps tasks. */
enum { FMNIST_MAX_TOWERS = 64, FMNIST_MAX_PS = 64 };

typedef struct fmnist_model_options {
  int32_t towers;       /* 1 to FMNIST_MAX_TOWERS; tower K on /cpu:K (K mod cpus) */
  int32_t cpus;         /* logical CPU devices */
  double learning_rate; /* Adam */
  int64_t seed;         /* for the weights' initial values */
  /* Across the processes of a cluster (docs/distributed.md): `workers` > 0
   * puts the towers on /job:worker tasks in order, towers / workers on each
   * (on its CPUs, K mod cpus). With `ps` > 0 (parameter servers) the
   * variables are on the /job:ps tasks 0 .. ps-1, spread by the greedy
   * setter (each to the task holding the fewest bytes so far), and the
   * towers' gradients are summed beside each variable; with 0, every tower
   * keeps a mirrored copy and the gradients are all-reduced across workers
   * (an NcclAllReduce group per variable). 0 workers: one process, as
   * above. */
  int32_t workers;
  int32_t ps; /* 0 to FMNIST_MAX_PS */
} fmnist_model_options;

/* A graph with placeholders "x" [-1, 784] float32 and "labels" [-1] int32;
 * "logits" [-1, 10]; "loss" (the batch's mean cross-entropy); NoOps
 * "train" (one Adam step) and "init". Caller frees *out. */
grt_status* fmnist_build_mlp(const fmnist_model_options* o, grt_graph** out);

/* The same interface for the small convolutional network (NHWC, float32):
 * x reshaped to [-1, 28, 28, 1]; conv 5x5-32, ReLU, max-pool 3x3/2 SAME;
 * conv 5x5-64, ReLU, max-pool 3x3/2 SAME; dense 256 ReLU; dense 10. */
grt_status* fmnist_build_cnn(const fmnist_model_options* o, grt_graph** out);

/* Adds one tower's forward pass (placeholders "x", "labels"; outputs
 * "logits" and "per_example_loss") to g. */
typedef grt_status* (*fmnist_forward_fn)(const fmnist_model_options* o, grt_graph* g);

/* Builds `forward`, replicates it into o->towers towers with the variables
 * on /cpu:0 (or as o->workers and o->ps say), and adds "loss", "train" and
 * "init". */
grt_status* fmnist_build_towers(const fmnist_model_options* o, fmnist_forward_fn forward,
                                grt_graph** out);

#endif /* GRT_EXAMPLES_FASHION_MNIST_MODEL_H_ */
