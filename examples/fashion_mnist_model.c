/* The MLP, built node by node, the node-building helpers the CNN shares
 * (fashion_mnist_build.h), and the towers and training step both models
 * get. Weights start Glorot-uniform (Keras' default), biases zero. */
#include "fashion_mnist_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fashion_mnist_build.h"
#include "fashion_mnist_data.h"

int32_t fmnist_add(fmnist_builder* b, const char* name, const char* op, const char* const* ins,
                   int n) {
  int32_t k = -1;
  if (b->st) return -1;
  b->st = grt_graph_add_node(b->g, name, op, &k);
  for (int i = 0; !b->st && i < n; i++) b->st = grt_graph_add_input(b->g, k, ins[i]);
  return b->st ? -1 : k;
}
void fmnist_set_type(fmnist_builder* b, int32_t k, const char* attr, grt_dtype t) {
  if (!b->st) b->st = grt_graph_set_attr_type(b->g, k, attr, t);
}
void fmnist_set_int(fmnist_builder* b, int32_t k, const char* attr, int64_t v) {
  if (!b->st) b->st = grt_graph_set_attr_int(b->g, k, attr, v);
}
void fmnist_set_shape(fmnist_builder* b, int32_t k, const char* attr, int32_t rank,
                      const int64_t* dims) {
  if (!b->st) b->st = grt_graph_set_attr_shape(b->g, k, attr, rank, dims);
}

/* A float32 or int32 constant of `n` elements (rank 0 when n == 0 and
 * `scalar`), all equal to v, or with the values of iv. */
void fmnist_constant(fmnist_builder* b, const char* name, grt_dtype dt, int32_t rank,
                     const int64_t* dims, const int32_t* iv, float fv) {
  int32_t k = fmnist_add(b, name, "Const", NULL, 0);
  grt_tensor* t = NULL;
  if (!b->st) b->st = grt_tensor_new(dt, rank, dims, &t);
  if (b->st) return;
  int64_t n = grt_tensor_num_elements(t);
  for (int64_t i = 0; i < n; i++) {
    if (dt == GRT_INT32)
      ((int32_t*)grt_tensor_data(t))[i] = iv[i];
    else
      ((float*)grt_tensor_data(t))[i] = fv;
  }
  fmnist_set_type(b, k, "dtype", dt);
  if (!b->st) b->st = grt_graph_set_attr_tensor(b->g, k, "value", t);
  grt_tensor_free(t);
}

void fmnist_binary(fmnist_builder* b, const char* name, const char* op, const char* x,
                   const char* y) {
  const char* ins[] = {x, y};
  fmnist_set_type(b, fmnist_add(b, name, op, ins, 2), "T", GRT_FLOAT32);
}

/* Variable `name` of the given shape, initialised Glorot-uniform in
 * [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)) (Keras' default for
 * Dense and Conv2D kernels); `seed2` tells the layers' draws apart. */
void fmnist_glorot_variable(fmnist_builder* b, const char* name, int32_t rank, const int64_t* dims,
                            int64_t fan_in, int64_t fan_out, int64_t seed, int64_t seed2) {
  char n[64], m[64], s[64];
  int32_t shape_values[4];
  int64_t r = rank;
  for (int32_t i = 0; i < rank && i < 4; i++) shape_values[i] = (int32_t)dims[i];
  int32_t k = fmnist_add(b, name, "VariableV2", NULL, 0);
  fmnist_set_type(b, k, "dtype", GRT_FLOAT32);
  fmnist_set_shape(b, k, "shape", rank, dims);
  float limit = (float)sqrt(6.0 / (double)(fan_in + fan_out));
  snprintf(n, sizeof n, "%s/shape", name);
  fmnist_constant(b, n, GRT_INT32, 1, &r, shape_values, 0);
  snprintf(m, sizeof m, "%s/uniform", name);
  const char* rin[] = {n};
  k = fmnist_add(b, m, "RandomUniform", rin, 1);
  fmnist_set_type(b, k, "dtype", GRT_FLOAT32);
  fmnist_set_type(b, k, "T", GRT_INT32);
  fmnist_set_int(b, k, "seed", seed);
  fmnist_set_int(b, k, "seed2", seed2);
  snprintf(n, sizeof n, "%s/scale", name);
  fmnist_constant(b, n, GRT_FLOAT32, 0, NULL, NULL, 2 * limit);
  snprintf(s, sizeof s, "%s/scaled", name);
  fmnist_binary(b, s, "Mul", m, n);
  snprintf(n, sizeof n, "%s/limit", name);
  fmnist_constant(b, n, GRT_FLOAT32, 0, NULL, NULL, limit);
  snprintf(m, sizeof m, "%s/initial_value", name);
  fmnist_binary(b, m, "Sub", s, n);
  snprintf(n, sizeof n, "%s/Assign", name);
  fmnist_binary(b, n, "Assign", name, m);
}

void fmnist_zero_variable(fmnist_builder* b, const char* name, int64_t size) {
  char n[64], m[64];
  int32_t k = fmnist_add(b, name, "VariableV2", NULL, 0);
  fmnist_set_type(b, k, "dtype", GRT_FLOAT32);
  fmnist_set_shape(b, k, "shape", 1, &size);
  snprintf(n, sizeof n, "%s/zeros", name);
  fmnist_constant(b, n, GRT_FLOAT32, 1, &size, NULL, 0);
  snprintf(m, sizeof m, "%s/Assign", name);
  fmnist_binary(b, m, "Assign", name, n);
}

void fmnist_relu(fmnist_builder* b, const char* name, const char* in) {
  const char* ins[] = {in};
  fmnist_set_type(b, fmnist_add(b, name, "Relu", ins, 1), "T", GRT_FLOAT32);
}

void fmnist_dense(fmnist_builder* b, int l, const char* in, int64_t fan_in, int64_t fan_out,
                  bool relu, int64_t seed, char* out_name, size_t size) {
  char w[32], bias[32], n[64], m[64];
  snprintf(w, sizeof w, "dense%d/w", l);
  snprintf(bias, sizeof bias, "dense%d/b", l);
  int64_t wdims[2] = {fan_in, fan_out};
  fmnist_glorot_variable(b, w, 2, wdims, fan_in, fan_out, seed, l);
  fmnist_zero_variable(b, bias, fan_out);
  snprintf(n, sizeof n, "dense%d/MatMul", l);
  fmnist_binary(b, n, "MatMul", in, w);
  snprintf(m, sizeof m, "dense%d/BiasAdd", l);
  fmnist_binary(b, m, "BiasAdd", n, bias);
  if (relu) {
    snprintf(n, sizeof n, "dense%d/Relu", l);
    fmnist_relu(b, n, m);
    snprintf(out_name, size, "%s", n);
  } else {
    snprintf(out_name, size, "%s", m);
  }
}

void fmnist_inputs(fmnist_builder* b) {
  int64_t xdims[2] = {-1, FMNIST_PIXELS}, ldims[1] = {-1};
  int32_t k = fmnist_add(b, "x", "Placeholder", NULL, 0);
  fmnist_set_type(b, k, "dtype", GRT_FLOAT32);
  fmnist_set_shape(b, k, "shape", 2, xdims);
  k = fmnist_add(b, "labels", "Placeholder", NULL, 0);
  fmnist_set_type(b, k, "dtype", GRT_INT32);
  fmnist_set_shape(b, k, "shape", 1, ldims);
}

void fmnist_head(fmnist_builder* b, const char* logits) {
  const char* lin[] = {logits};
  fmnist_set_type(b, fmnist_add(b, "logits", "Identity", lin, 1), "T", GRT_FLOAT32);
  const char* xin[] = {"logits", "labels"};
  int32_t k = fmnist_add(b, "xent", "SparseSoftmaxCrossEntropyWithLogits", xin, 2);
  fmnist_set_type(b, k, "T", GRT_FLOAT32);
  fmnist_set_type(b, k, "Tlabels", GRT_INT32);
  const char* pin[] = {"xent:0"};
  fmnist_set_type(b, fmnist_add(b, "per_example_loss", "Identity", pin, 1), "T", GRT_FLOAT32);
}

static grt_status* mlp_forward(const fmnist_model_options* o, grt_graph* g) {
  fmnist_builder b = {g, NULL};
  char h1[64], h2[64], logits[64];
  fmnist_inputs(&b);
  fmnist_dense(&b, 1, "x", FMNIST_PIXELS, 256, true, o->seed, h1, sizeof h1);
  fmnist_dense(&b, 2, h1, 256, 256, true, o->seed, h2, sizeof h2);
  fmnist_dense(&b, 3, h2, 256, FMNIST_CLASSES, false, o->seed, logits, sizeof logits);
  fmnist_head(&b, logits);
  return b.st;
}

/* After the towers: the batch's mean loss, outside them. */
static grt_status* mean_loss(grt_graph* g) {
  fmnist_builder b = {g, NULL};
  int64_t one = 1;
  int32_t zero = 0;
  fmnist_constant(&b, "loss/axis", GRT_INT32, 1, &one, &zero, 0);
  const char* ins[] = {"per_example_loss", "loss/axis"};
  int32_t k = fmnist_add(&b, "loss", "Mean", ins, 2);
  fmnist_set_type(&b, k, "T", GRT_FLOAT32);
  fmnist_set_type(&b, k, "Tidx", GRT_INT32);
  return b.st;
}

/* Tower K's device: /cpu:K in one process; in a cluster, worker task
 * K / (towers / workers), its CPU K mod (towers / workers) mod cpus. */
static void tower_device(const fmnist_model_options* o, int32_t k, char* buf, size_t size) {
  int32_t cpus = o->cpus > 0 ? o->cpus : 1;
  if (o->workers < 1) {
    snprintf(buf, size, "/cpu:%d", (int)(k % cpus));
    return;
  }
  int32_t per = o->towers / o->workers;
  snprintf(buf, size, "/job:worker/task:%d/device:CPU:%d", (int)(k / per), (int)(k % per % cpus));
}

grt_status* fmnist_build_towers(const fmnist_model_options* o, fmnist_forward_fn forward,
                                grt_graph** out) {
  *out = NULL;
  grt_graph *g = NULL, *r = NULL;
  char devs[FMNIST_MAX_TOWERS][48];
  const char* dev[FMNIST_MAX_TOWERS];
  if (o->towers < 1 || o->towers > FMNIST_MAX_TOWERS)
    return grt_status_new(GRT_INVALID_ARGUMENT, "towers: 1 to %d, not %d", FMNIST_MAX_TOWERS,
                          (int)o->towers);
  if (o->ps < 0 || o->ps > FMNIST_MAX_PS)
    return grt_status_new(GRT_INVALID_ARGUMENT, "ps tasks: 0 to %d, not %d", FMNIST_MAX_PS,
                          (int)o->ps);
  if (o->workers < 0 || (o->workers > 0 && o->towers % o->workers) || (o->ps && o->workers < 1))
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "%d towers over %d workers%s: the towers must divide among the workers",
                          (int)o->towers, (int)o->workers, o->ps ? " and ps tasks" : "");
  for (int i = 0; i < o->towers; i++) {
    tower_device(o, i, devs[i], sizeof devs[i]);
    dev[i] = devs[i];
  }
  /* Parameter servers: the replicator spreads the variables over the ps
   * tasks' CPUs with the placer's greedy setter (by bytes). */
  char ps_devs[FMNIST_MAX_PS][48];
  const char* ps_dev[FMNIST_MAX_PS];
  for (int i = 0; i < o->ps; i++) {
    snprintf(ps_devs[i], sizeof ps_devs[i], "/job:ps/task:%d/device:CPU:0", i);
    ps_dev[i] = ps_devs[i];
  }
  bool mirrored = o->workers > 0 && !o->ps;
  const char* inputs[] = {"x", "labels"};
  const char* outputs[] = {"per_example_loss", "logits"};
  grt_replicate_options ro = {
      .towers = o->towers,
      .tower_devices = dev,
      .n_tower_devices = o->towers,
      .inputs = inputs,
      .n_inputs = 2,
      .outputs = outputs,
      .n_outputs = 2,
      .variables_on = mirrored || o->ps ? NULL : "/cpu:0",
      .ps_devices = o->ps ? ps_dev : NULL,
      .n_ps_devices = o->ps,
      .ps_strategy = GRT_PS_GREEDY,
      .mirrored = mirrored,
  };
  grt_train_options to = {
      .loss = "loss",
      .colocate_gradients_with_ops = true,
  };
  grt_optimizer_defaults(&to.optimizer, "adam", o->learning_rate);
  /* Mirrored: each tower's copies take the mean of the towers' gradients,
   * summed across workers by the transport's all-reduce. */
  grt_mirrored_train_options mo = {
      .loss = "per_example_loss",
      .towers = o->towers,
      .tower_devices = dev,
      .optimizer = to.optimizer,
      .all_reduce = GRT_ALL_REDUCE_COLLECTIVE,
  };
  grt_status* st = grt_graph_new(&g);
  if (!st) st = forward(o, g);
  if (!st) st = grt_graph_validate(g);
  if (!st) st = grt_graph_replicate(g, &ro, &r);
  if (!st) st = mean_loss(r);
  if (!st)
    st = mirrored ? grt_graph_add_mirrored_train_step(r, &mo) : grt_graph_add_train_step(r, &to);
  grt_graph_free(g);
  if (st) {
    grt_graph_free(r);
    return st;
  }
  *out = r;
  return NULL;
}

grt_status* fmnist_build_mlp(const fmnist_model_options* o, grt_graph** out) {
  return fmnist_build_towers(o, mlp_forward, out);
}
