/* Internal to the state and training CPU kernels (state*.c, training*.c):
 * variable storage as kernel state, and taking variables for an in-place
 * update the way TensorFlow's ops do (use_locking: hold every variable's
 * mutex, taken in address order so two ops never deadlock; otherwise lock
 * only long enough to take a reference to the current tensor, so a
 * concurrent Assign cannot free it underneath the update). */
#ifndef GRT_BACKENDS_CPU_STATE_VAR_H_
#define GRT_BACKENDS_CPU_STATE_VAR_H_

#include <stdbool.h>
#include <stdint.h>

#include "kernels/op_kernel.h"

/* create_state/free_state of VariableV2 and Variable: a grt_var with its
 * mutex initialised, no value, and a copy of the node's name. */
GRT_MUST_USE grt_status* grt_state_var_create(const grt_node* node, void** out_state);
void grt_state_var_free(void* state);

#define GRT_STATE_MAX_REFS 4

typedef struct grt_state_update {
  int32_t n;
  grt_var* vars[GRT_STATE_MAX_REFS];
  grt_tensor* values[GRT_STATE_MAX_REFS]; /* one reference each */
  int32_t n_locked;
  pthread_mutex_t* locked[GRT_STATE_MAX_REFS];
} grt_state_update;

/* Takes the variables of Ref inputs refs[0..n) and their current tensors.
 * With `lock` their mutexes stay held until grt_state_update_end. A
 * variable without a value fails (FAILED_PRECONDITION) with
 * "<uninit_prefix><name>", holding nothing. */
GRT_MUST_USE grt_status* grt_state_update_begin(const grt_kernel_ctx* ctx, const int32_t* refs,
                                                int32_t n, bool lock, const char* uninit_prefix,
                                                grt_state_update* u);
void grt_state_update_end(grt_state_update* u);

#endif /* GRT_BACKENDS_CPU_STATE_VAR_H_ */
