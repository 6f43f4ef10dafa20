/* Node-building helpers the Fashion-MNIST models share. Each call does
 * nothing once a call has failed, and the first failure stays in b->st, so
 * a layer reads as a list of nodes. */
#ifndef GRT_EXAMPLES_FASHION_MNIST_BUILD_H_
#define GRT_EXAMPLES_FASHION_MNIST_BUILD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/grt.h"

typedef struct fmnist_builder {
  grt_graph* g;
  grt_status* st;
} fmnist_builder;

/* Returns the new node's index, -1 after a failure. */
int32_t fmnist_add(fmnist_builder* b, const char* name, const char* op, const char* const* ins,
                   int n);
void fmnist_set_type(fmnist_builder* b, int32_t k, const char* attr, grt_dtype t);
void fmnist_set_int(fmnist_builder* b, int32_t k, const char* attr, int64_t v);
void fmnist_set_shape(fmnist_builder* b, int32_t k, const char* attr, int32_t rank,
                      const int64_t* dims);
/* A float32 constant with every element fv, or an int32 one with values iv. */
void fmnist_constant(fmnist_builder* b, const char* name, grt_dtype dt, int32_t rank,
                     const int64_t* dims, const int32_t* iv, float fv);
/* A two-input float32 op (attr T). */
void fmnist_binary(fmnist_builder* b, const char* name, const char* op, const char* x,
                   const char* y);
void fmnist_relu(fmnist_builder* b, const char* name, const char* in);
/* A variable (rank <= 4) with its Glorot-uniform initialiser ("NAME/Assign"). */
void fmnist_glorot_variable(fmnist_builder* b, const char* name, int32_t rank, const int64_t* dims,
                            int64_t fan_in, int64_t fan_out, int64_t seed, int64_t seed2);
/* A rank-1 variable of `size` zeros ("NAME/Assign"). */
void fmnist_zero_variable(fmnist_builder* b, const char* name, int64_t size);
/* Dense layer `l` ("denseL/..."): in @ w + b, then ReLU when `relu`; the
 * output's name goes into out_name. */
void fmnist_dense(fmnist_builder* b, int l, const char* in, int64_t fan_in, int64_t fan_out,
                  bool relu, int64_t seed, char* out_name, size_t size);
/* Placeholders "x" [-1, 784] float32 and "labels" [-1] int32. */
void fmnist_inputs(fmnist_builder* b);
/* "logits" (an Identity of `logits`) and "per_example_loss" (sparse softmax
 * cross-entropy against "labels"). */
void fmnist_head(fmnist_builder* b, const char* logits);

#endif /* GRT_EXAMPLES_FASHION_MNIST_BUILD_H_ */
