/* The CUDA backend plugin's entry point: device type GPU (whose kernel
 * support rows are built into grt, support_gpu.c, so plans for GPUs
 * work on any machine), the probe, devices and the kernel lookup.
 *
 * Built as libgrt_backend_cuda.so; it sees only grt's public headers and
 * links only the CUDA runtime, which is all the probe needs: cuBLAS, cuDNN
 * and NCCL are opened when a device or kernel first needs them
 * (lazy_lib.h). Checked on an H200:
 * tests/gpu/run_gpu_suite.sh, tests/gpu/runs. */
#include <stdio.h>
#include <string.h>

#include "collective.h"
#include "cuda_internal.h"
#include "cudnn_handle.h"
#include "gpu_options.h"

/* Ops of the GPU support rows with no CUDA kernel yet, each with why. The
 * row/kernel agreement test (tests/cuda/cuda_plugin_test.cc) reads this
 * list: every GPU row's op is either a kernel below or listed here, never
 * both, so the list only shrinks. */
__attribute__((visibility("default"))) const char* const grt_cuda_pending_ops[] = {
    NULL,
};

static const grt_op_kernel* (*const kTables[])(int*) = {
    grt_cuda_elementwise_kernels,   grt_cuda_nn_kernels,         grt_cuda_matmul_kernels,
    grt_cuda_array_kernels,         grt_cuda_random_kernels,     grt_cuda_state_kernels,
    grt_cuda_array_move_kernels,    grt_cuda_array_meta_kernels, grt_cuda_math_more_kernels,
    grt_cuda_strided_slice_kernels, grt_cuda_cudnn_conv_kernels, grt_cuda_pool_kernels,
    grt_cuda_lrn_kernels,           grt_cuda_batchnorm_kernels,  grt_cuda_collective_kernels,
    grt_cuda_index_kernels,         grt_cuda_fused_kernels,      grt_cuda_reduce_kernels,
    grt_cuda_seq_fused_kernels,
};

const grt_op_kernel* grt_cuda_kernel(const char* op) {
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++) {
    int n = 0;
    const grt_op_kernel* k = kTables[t](&n);
    for (int i = 0; i < n; i++)
      if (strcmp(k[i].op, op) == 0) return &k[i];
  }
  return NULL;
}

/* The kernel files whose kernels declare the dtypes their dispatch takes
 * (cuda_internal.h: grt_cuda_dtypes). */
static const grt_cuda_dtypes* (*const kDtypeTables[])(int*) = {
    grt_cuda_elementwise_dtypes, grt_cuda_nn_dtypes,        grt_cuda_math_more_dtypes,
    grt_cuda_matmul_dtypes,      grt_cuda_state_dtypes,     grt_cuda_batchnorm_dtypes,
    grt_cuda_random_dtypes,      grt_cuda_seq_fused_dtypes,
};

/* Every declaration (op, type attr, dtype mask), up to `max` of them; returns
 * how many there are (for the test that holds the GPU rows to them). */
__attribute__((visibility("default"))) int grt_cuda_declared_dtypes(const char** ops,
                                                                    const char** attrs,
                                                                    uint32_t* masks, int max) {
  int count = 0;
  for (size_t t = 0; t < sizeof kDtypeTables / sizeof kDtypeTables[0]; t++) {
    int n = 0;
    const grt_cuda_dtypes* d = kDtypeTables[t](&n);
    for (int i = 0; i < n; i++) {
      if (!d[i].attr) continue; /* an unused slot */
      if (count < max) {
        ops[count] = d[i].op;
        attrs[count] = d[i].attr;
        masks[count] = d[i].mask;
      }
      count++;
    }
  }
  return count;
}

/* Every op with a CUDA kernel, NULL-terminated (for the agreement test). */
__attribute__((visibility("default"))) int grt_cuda_kernel_ops(const char** out, int max) {
  int count = 0;
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++) {
    int n = 0;
    const grt_op_kernel* k = kTables[t](&n);
    for (int i = 0; i < n; i++, count++)
      if (count < max) out[count] = k[i].op;
  }
  return count;
}

/* Opens cuBLAS, cuDNN and NCCL now, as first use would: for the test that
 * every call in their tables exists in the libraries installed here (no GPU
 * needed to open them). 0 and why[0] == '\0' when all opened. */
__attribute__((visibility("default"))) int grt_cuda_open_libraries(char* why, size_t size) {
  grt_status* st = grt_cublas_open("the library test");
  if (!st) st = grt_cudnn_open("the library test");
  if (!st) st = grt_cuda_nccl_open("the library test");
  if (size) snprintf(why, size, "%s", st ? grt_status_message(st) : "");
  int failed = st != NULL;
  grt_status_free(st);
  return failed;
}

static const grt_backend kBackend = {
    .api_version = GRT_BACKEND_API_VERSION,
    .type = "GPU",
    .priority = 210,
    .rows = NULL, /* built into grt */
    .n_rows = 0,
    .probe = grt_cuda_probe,
    .device_new = grt_cuda_device_new,
    .kernel = grt_cuda_kernel,
    .all_reduce = grt_cuda_all_reduce,
    .options = &grt_options_gpu, /* grt uses its built-in copy of the same table */
};

__attribute__((visibility("default"))) const grt_backend* grt_backend_entry(
    uint32_t host_api_version) {
  return &kBackend; /* the host checks api_version and says why it refuses */
}
