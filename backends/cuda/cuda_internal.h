/* Inside the CUDA backend plugin: its device, streams and events, and the
 * kernels' entry points (C in cuda_*.c, C++ in *.cu, all extern "C"). */
#ifndef GRT_BACKENDS_CUDA_CUDA_INTERNAL_H_
#define GRT_BACKENDS_CUDA_CUDA_INTERNAL_H_

#include <cublas_v2.h>
#include <pthread.h>
#include <cuda_runtime_api.h>

#include "bfc_allocator.h"
#include "cuda_topology.h"
#include "gpu_memory.h"
#include "grt/backend.h"
#include "grt/types.h"
#include "base/lazy_lib.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuda_device cuda_device;

typedef struct cuda_stream {
  grt_stream base;
  cudaStream_t s;
} cuda_stream;

typedef struct cuda_event {
  grt_event base;
  cudaEvent_t e;
} cuda_event;

/* A grt allocator over the session's account on a process allocator. */
typedef struct cuda_allocator {
  grt_allocator base;
  grt_gpu_memory_account* account;
} cuda_allocator;

struct cuda_device {
  grt_device base;
  int physical;      /* the CUDA device ordinal */
  int virtual_index; /* which logical GPU of that card (0 with no virtual devices) */
  int virtual_count; /* logical GPUs per card (1 with none) */
  cuda_stream streams[GRT_NUM_STREAM_KINDS];
  cuda_allocator device_memory; /* the logical GPU's allocator (cudaMalloc regions) */
  cuda_allocator host_memory;   /* the card's pinned host memory (cudaHostAlloc), staging */
  int open_accounts;            /* after device_free: accounts still open (blocks live) */
  cublasHandle_t blas;
  pthread_mutex_t blas_mu; /* one cuBLAS call at a time on the handle */
  bool tf32;               /* MatMul may use TF32 (off unless GRT_CUDA_ALLOW_TF32=1) */
  /* cuDNN (cudnn_handle.c): a handle made on first use, on the compute
   * stream, one call at a time; dnn_free destroys it with the device. */
  void* dnn;
  void (*dnn_free)(void* dnn);
  pthread_mutex_t dnn_mu;
  char description[320];
};

/* The cuBLAS calls the plugin makes, through a table filled when the first
 * GPU device is made (matmul.c; lazy_lib.h for why): its handle is made
 * with the device, before the device's memory limit is taken from what the
 * card has free. */
#define GRT_CUBLAS_CALLS(X)        \
  X(Create, cublasCreate_v2)       \
  X(Destroy, cublasDestroy_v2)     \
  X(SetStream, cublasSetStream_v2) \
  X(SetMathMode, cublasSetMathMode)

/* cublasGemmStridedBatchedEx as C declares it: C++ also sees an inline
 * overload taking a cudaDataType compute type, which decltype cannot pick
 * from, so its field is typed here (matmul.c checks this against the C
 * declaration) and its row added to the table there. */
typedef cublasStatus_t (*grt_cublas_gemm_ex_fn)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
    cudaDataType, int, long long int, const void*, cudaDataType, int, long long int, const void*,
    void*, cudaDataType, int, long long int, int, cublasComputeType_t, cublasGemmAlgo_t);

typedef struct {
  GRT_CUBLAS_CALLS(GRT_LAZY_FIELD)
  grt_cublas_gemm_ex_fn GemmStridedBatchedEx; /* float16/bfloat16 products */
} grt_cublas_api;

/* Filled by the first successful grt_cublas_open; read only after it. */
extern grt_cublas_api grt_cublas;
/* Opens cuBLAS once; the error names the library and `needed_for`. */
GRT_MUST_USE grt_status* grt_cublas_open(const char* needed_for);

/* The CUDA stream behind a grt stream of this backend. */
static inline cudaStream_t grt_cuda_stream(const grt_stream* s) {
  return ((const cuda_stream*)s)->s;
}
static inline cuda_device* grt_cuda_device(const grt_stream* s) { return (cuda_device*)s->device; }

/* "cudaMalloc: out of memory" as a grt status (NULL for cudaSuccess). */
grt_status* grt_cuda_error(cudaError_t err, const char* what);
/* The error of the last launch, if any. */
grt_status* grt_cuda_launch_error(const char* what);

grt_status* grt_cuda_device_new(const grt_device_config* cfg, grt_device** out);

/* The capture hooks (cuda_capture.c). */
bool grt_cuda_capturable(grt_device* d, const grt_op_kernel* k, const char** why);
grt_status* grt_cuda_capture_begin(grt_device* d);
grt_status* grt_cuda_capture_end(grt_device* d, grt_captured** out);
grt_status* grt_cuda_replay(grt_device* d, grt_captured* g);
void grt_cuda_captured_free(grt_device* d, grt_captured* g);
int32_t grt_cuda_probe(char* why, size_t why_size);

/* ---- kernels (cuda_kernels_*.c and *.cu) ------------------------------------ */
const grt_op_kernel* grt_cuda_kernel(const char* op);

/* Each returns its table and size. */
const grt_op_kernel* grt_cuda_elementwise_kernels(int* n);
const grt_op_kernel* grt_cuda_nn_kernels(int* n);
const grt_op_kernel* grt_cuda_reduce_kernels(int* n);
const grt_op_kernel* grt_cuda_matmul_kernels(int* n);
const grt_op_kernel* grt_cuda_array_kernels(int* n);
const grt_op_kernel* grt_cuda_random_kernels(int* n);
const grt_op_kernel* grt_cuda_state_kernels(int* n);
const grt_op_kernel* grt_cuda_array_move_kernels(int* n);
const grt_op_kernel* grt_cuda_array_meta_kernels(int* n);
const grt_op_kernel* grt_cuda_math_more_kernels(int* n);
const grt_op_kernel* grt_cuda_strided_slice_kernels(int* n);
const grt_op_kernel* grt_cuda_cudnn_conv_kernels(int* n);
const grt_op_kernel* grt_cuda_pool_kernels(int* n);
const grt_op_kernel* grt_cuda_lrn_kernels(int* n);
const grt_op_kernel* grt_cuda_seq_fused_kernels(int* n);
const grt_op_kernel* grt_cuda_batchnorm_kernels(int* n);
const grt_op_kernel* grt_cuda_collective_kernels(int* n);
const grt_op_kernel* grt_cuda_index_kernels(int* n);
const grt_op_kernel* grt_cuda_fused_kernels(int* n);

/* What a kernel's dispatch accepts for one type attr of its op: the dtypes
 * (bit 1 << dtype) of the list it visits (dtype_list.cuh), the same list
 * the dispatch is instantiated with. attr NULL: an unused slot. The
 * plugin reports these without a GPU (grt_cuda_declared_dtypes) for the
 * test that holds the GPU support rows to them. */
typedef struct grt_cuda_dtypes {
  const char* op;
  const char* attr;
  uint32_t mask;
} grt_cuda_dtypes;

/* Each returns its declarations and their number (the kernel files whose
 * kernels declare their dtypes; the other kernels' ops are listed in the
 * test as undeclared). */
const grt_cuda_dtypes* grt_cuda_elementwise_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_nn_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_seq_fused_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_math_more_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_matmul_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_state_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_batchnorm_dtypes(int* n);
const grt_cuda_dtypes* grt_cuda_random_dtypes(int* n);

/* MatMul and Conv2D into output 0, for the fused ops (fused.cu). */
grt_status* grt_cuda_matmul_forward(grt_kernel_ctx* ctx);
grt_status* grt_cuda_conv2d_forward(grt_kernel_ctx* ctx);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_CUDA_INTERNAL_H_ */
