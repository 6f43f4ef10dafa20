/* Internal: the op tables (ops/defs_*.c) the registry is built from. Their
 * specs name dtype sets from ops/dtype_sets.h, as the kernel support rows
 * do. */
#ifndef GRT_OPS_DEFS_H_
#define GRT_OPS_DEFS_H_

#include <stdint.h>

#include "ops/dtype_sets.h"
#include "ops/op_def.h"

#ifdef __cplusplus
extern "C" {
#endif

struct grt_grad_table;

/* One family's table, with its gradient table (ops/grad.h) or NULL. */
typedef struct grt_op_table {
  const char* family;
  const grt_op_spec* specs;
  int32_t n;
  const struct grt_grad_table* grads;
} grt_op_table;

extern const grt_op_table grt_ops_array;
extern const grt_op_table grt_ops_math;
extern const grt_op_table grt_ops_math_more;
extern const grt_op_table grt_ops_array_more;
extern const grt_op_table grt_ops_nn;
extern const grt_op_table grt_ops_state;
extern const grt_op_table grt_ops_random;
extern const grt_op_table grt_ops_training;
extern const grt_op_table grt_ops_conv;
extern const grt_op_table grt_ops_fused;
extern const grt_op_table grt_ops_fused_seq;
extern const grt_op_table grt_ops_rnn;
extern const grt_op_table grt_ops_index;
extern const grt_op_table grt_ops_collective;

#define GRT_OP_TABLE(var, fam, rows) \
  const grt_op_table var = {fam, rows, (int32_t)(sizeof(rows) / sizeof((rows)[0])), NULL}
#define GRT_OP_TABLE_WITH_GRADS(var, fam, rows, grads) \
  const grt_op_table var = {fam, rows, (int32_t)(sizeof(rows) / sizeof((rows)[0])), &(grads)}

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_DEFS_H_ */
