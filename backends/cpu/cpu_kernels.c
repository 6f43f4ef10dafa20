#include "backends/cpu/cpu_kernels.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/strmap.h"

typedef struct {
  const grt_op_kernel* rows;
  const int32_t* count;
} family;

/* Built on first use and published complete. A build that runs out of
 * memory leaves nothing behind and the next call tries again: a transient
 * failure must not lose kernels for the life of the process. */
static const grt_op_kernel** g_all;
static int32_t g_n;
static grt_strmap g_by_op;
static int g_ready; /* atomic: g_all, g_n and g_by_op are complete */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

/* Under g_mu. */
static bool build(void) {
  const family families[] = {
      {grt_cpu_kernels_elementwise, &grt_cpu_kernels_elementwise_count},
      {grt_cpu_kernels_reduce, &grt_cpu_kernels_reduce_count},
      {grt_cpu_kernels_nn, &grt_cpu_kernels_nn_count},
      {grt_cpu_kernels_array, &grt_cpu_kernels_array_count},
      {grt_cpu_kernels_matmul, &grt_cpu_kernels_matmul_count},
      {grt_cpu_kernels_random, &grt_cpu_kernels_random_count},
      {grt_cpu_kernels_state, &grt_cpu_kernels_state_count},
      {grt_cpu_kernels_training, &grt_cpu_kernels_training_count},
      {grt_cpu_kernels_conv, &grt_cpu_kernels_conv_count},
      {grt_cpu_kernels_unary_math, &grt_cpu_kernels_unary_math_count},
      {grt_cpu_kernels_mod_shift, &grt_cpu_kernels_mod_shift_count},
      {grt_cpu_kernels_array_more, &grt_cpu_kernels_array_more_count},
      {grt_cpu_kernels_index, &grt_cpu_kernels_index_count},
      {grt_cpu_kernels_collective, &grt_cpu_kernels_collective_count},
  };
  int32_t total = 0;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) total += *families[f].count;
  const grt_op_kernel** all = grt_calloc((size_t)total + 1, sizeof *all);
  grt_strmap by_op;
  grt_strmap_init(&by_op);
  int32_t n = 0;
  bool ok = all != NULL;
  for (size_t f = 0; ok && f < sizeof families / sizeof families[0]; f++) {
    for (int32_t i = 0; ok && i < *families[f].count; i++) {
      const grt_op_kernel* k = &families[f].rows[i];
      /* First registration wins; duplicates are caught by the tests. */
      ok = grt_strmap_put(&by_op, k->op, n, NULL) >= 0;
      if (ok) all[n++] = k;
    }
  }
  if (!ok) {
    grt_free(all);
    grt_strmap_clear(&by_op);
    return false;
  }
  g_all = all;
  g_n = n;
  g_by_op = by_op;
  __atomic_store_n(&g_ready, 1, __ATOMIC_RELEASE);
  return true;
}

bool grt_cpu_kernels_ready(void) {
  if (__atomic_load_n(&g_ready, __ATOMIC_ACQUIRE)) return true;
  pthread_mutex_lock(&g_mu);
  bool ok = g_ready || build();
  pthread_mutex_unlock(&g_mu);
  return ok;
}

const grt_op_kernel* grt_cpu_kernel_lookup(const char* op) {
  if (!grt_cpu_kernels_ready()) return NULL;
  int32_t i = grt_strmap_get(&g_by_op, op);
  return i >= 0 ? g_all[i] : NULL;
}

int32_t grt_cpu_kernel_count(void) { return grt_cpu_kernels_ready() ? g_n : 0; }

const grt_op_kernel* grt_cpu_kernel_at(int32_t i) {
  if (!grt_cpu_kernels_ready()) return NULL;
  return (i >= 0 && i < g_n) ? g_all[i] : NULL;
}
