/* Variable storage and update guards (see state_var.h). */
#include "backends/cpu/state_var.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"

/* The storage is the public one (kernels/var.c), which plugins share. */
grt_status* grt_state_var_create(const grt_node* node, void** out_state) {
  return grt_var_state_new(node, out_state);
}

void grt_state_var_free(void* state) { grt_var_state_free(state); }

static int by_address(const void* a, const void* b) {
  uintptr_t x = (uintptr_t) * (pthread_mutex_t*const*)a,
            y = (uintptr_t) * (pthread_mutex_t*const*)b;
  return x < y ? -1 : x > y;
}

grt_status* grt_state_update_begin(const grt_kernel_ctx* ctx, const int32_t* refs, int32_t n,
                                   bool lock, const char* uninit_prefix, grt_state_update* u) {
  memset(u, 0, sizeof *u);
  if (n > GRT_STATE_MAX_REFS) return GRT_ERROR(INTERNAL, "too many reference inputs: %d", (int)n);
  for (int32_t i = 0; i < n; i++) {
    grt_var* v = refs[i] < ctx->n_inputs && ctx->input_refs ? ctx->input_refs[refs[i]] : NULL;
    if (!v) return GRT_ERROR(INTERNAL, "input %d is not a variable reference", (int)refs[i]);
    u->vars[i] = v;
  }
  u->n = n;
  if (lock) {
    /* The same variable may be passed twice; lock each mutex once. */
    pthread_mutex_t* mus[GRT_STATE_MAX_REFS];
    for (int32_t i = 0; i < n; i++) mus[i] = &u->vars[i]->mu;
    qsort(mus, (size_t)n, sizeof mus[0], by_address);
    for (int32_t i = 0; i < n; i++) {
      if (i > 0 && mus[i] == mus[i - 1]) continue;
      pthread_mutex_lock(mus[i]);
      u->locked[u->n_locked++] = mus[i];
    }
  }
  for (int32_t i = 0; i < n; i++) {
    grt_var* v = u->vars[i];
    if (!lock) pthread_mutex_lock(&v->mu);
    u->values[i] = grt_tensor_ref(v->value);
    if (!lock) pthread_mutex_unlock(&v->mu);
    if (!u->values[i]) {
      grt_status* s = GRT_ERROR(FAILED_PRECONDITION, "%s%s", uninit_prefix, v->name);
      grt_state_update_end(u);
      return s;
    }
  }
  return NULL;
}

void grt_state_update_end(grt_state_update* u) {
  for (int32_t i = 0; i < u->n; i++) grt_tensor_free(u->values[i]);
  for (int32_t i = u->n_locked - 1; i >= 0; i--) pthread_mutex_unlock(u->locked[i]);
  memset(u, 0, sizeof *u);
}
