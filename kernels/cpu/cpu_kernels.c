#include "kernels/cpu/cpu_kernels.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/strmap.h"

typedef struct {
  const grt_op_kernel* rows;
  const int32_t* count;
} family;

static const grt_op_kernel** g_all;
static int32_t g_n;
static grt_strmap g_by_op;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void build(void) {
  const family families[] = {
      {grt_cpu_kernels_elementwise, &grt_cpu_kernels_elementwise_count},
      {grt_cpu_kernels_reduce, &grt_cpu_kernels_reduce_count},
      {grt_cpu_kernels_nn, &grt_cpu_kernels_nn_count},
      {grt_cpu_kernels_array, &grt_cpu_kernels_array_count},
      {grt_cpu_kernels_matmul, &grt_cpu_kernels_matmul_count},
      {grt_cpu_kernels_random, &grt_cpu_kernels_random_count},
      {grt_cpu_kernels_state, &grt_cpu_kernels_state_count},
      {grt_cpu_kernels_training, &grt_cpu_kernels_training_count},
  };
  int32_t total = 0;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    total += *families[f].count;
  g_all = grt_calloc((size_t)total + 1, sizeof *g_all);
  grt_strmap_init(&g_by_op);
  if (!g_all) return;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
    for (int32_t i = 0; i < *families[f].count; i++) {
      const grt_op_kernel* k = &families[f].rows[i];
      /* First registration wins; duplicates are caught by the tests. */
      if (grt_strmap_put(&g_by_op, k->op, g_n, NULL) < 0) return;
      g_all[g_n++] = k;
    }
  }
}

const grt_op_kernel* grt_cpu_kernel_lookup(const char* op) {
  pthread_once(&g_once, build);
  int32_t i = grt_strmap_get(&g_by_op, op);
  return i >= 0 ? g_all[i] : NULL;
}

int32_t grt_cpu_kernel_count(void) {
  pthread_once(&g_once, build);
  return g_n;
}

const grt_op_kernel* grt_cpu_kernel_at(int32_t i) {
  pthread_once(&g_once, build);
  return (i >= 0 && i < g_n) ? g_all[i] : NULL;
}
