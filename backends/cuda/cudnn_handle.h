/* The device's cuDNN handle (made on first use, bound to the compute
 * stream) and cuDNN errors as grt statuses. Only the cudnn_*.cu files
 * include this, so cuDNN stays in the plugin's cuDNN files. */
#ifndef GRT_BACKENDS_CUDA_CUDNN_HANDLE_H_
#define GRT_BACKENDS_CUDA_CUDNN_HANDLE_H_

#include <cudnn.h>

#include "cuda_internal.h"
#include "dnn_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cuDNN calls the plugin makes, through a table filled on the first
 * convolution (lazy_lib.h): a session that runs none never maps cuDNN. */
#define GRT_CUDNN_CALLS(X)                                                                   \
  X(Create, cudnnCreate)                                                                     \
  X(Destroy, cudnnDestroy)                                                                   \
  X(SetStream, cudnnSetStream)                                                               \
  X(GetErrorString, cudnnGetErrorString)                                                     \
  X(CreateTensorDescriptor, cudnnCreateTensorDescriptor)                                     \
  X(DestroyTensorDescriptor, cudnnDestroyTensorDescriptor)                                   \
  X(SetTensor4dDescriptor, cudnnSetTensor4dDescriptor)                                       \
  X(CreateFilterDescriptor, cudnnCreateFilterDescriptor)                                     \
  X(DestroyFilterDescriptor, cudnnDestroyFilterDescriptor)                                   \
  X(SetFilter4dDescriptor, cudnnSetFilter4dDescriptor)                                       \
  X(CreateConvolutionDescriptor, cudnnCreateConvolutionDescriptor)                           \
  X(DestroyConvolutionDescriptor, cudnnDestroyConvolutionDescriptor)                         \
  X(SetConvolution2dDescriptor, cudnnSetConvolution2dDescriptor)                             \
  X(SetConvolutionGroupCount, cudnnSetConvolutionGroupCount)                                 \
  X(SetConvolutionMathType, cudnnSetConvolutionMathType)                                     \
  X(GetConvolutionForwardAlgorithm_v7, cudnnGetConvolutionForwardAlgorithm_v7)               \
  X(GetConvolutionBackwardDataAlgorithm_v7, cudnnGetConvolutionBackwardDataAlgorithm_v7)     \
  X(GetConvolutionBackwardFilterAlgorithm_v7, cudnnGetConvolutionBackwardFilterAlgorithm_v7) \
  X(ConvolutionForward, cudnnConvolutionForward)                                             \
  X(ConvolutionBackwardData, cudnnConvolutionBackwardData)                                   \
  X(ConvolutionBackwardFilter, cudnnConvolutionBackwardFilter)                               \
  X(FindConvolutionForwardAlgorithmEx, cudnnFindConvolutionForwardAlgorithmEx)               \
  X(FindConvolutionBackwardDataAlgorithmEx, cudnnFindConvolutionBackwardDataAlgorithmEx)     \
  X(FindConvolutionBackwardFilterAlgorithmEx, cudnnFindConvolutionBackwardFilterAlgorithmEx)

typedef struct {
  GRT_CUDNN_CALLS(GRT_LAZY_FIELD)
} grt_cudnn_api;

/* Filled by the first successful grt_cudnn_open; read only after it. */
extern grt_cudnn_api grt_cudnn;
/* Opens cuDNN once; the error names the library and `needed_for` (the op). */
GRT_MUST_USE grt_status* grt_cudnn_open(const char* needed_for);

/* Locks the device's cuDNN mutex and gives its handle (made now if this is
 * the first use); on success the caller unlocks with grt_cudnn_release. */
GRT_MUST_USE grt_status* grt_cudnn_acquire(cuda_device* d, cudnnHandle_t* out);
void grt_cudnn_release(cuda_device* d);

/* A value of the device's cuDNN cache begins with its destructor, so one
 * cache holds what any pass keeps (descriptors, the chosen algorithm). */
typedef struct grt_cudnn_cached {
  void (*destroy)(struct grt_cudnn_cached* self);
} grt_cudnn_cached;
/* The device's cache of cuDNN choices (dnn_cache.h), freed with the device;
 * only between grt_cudnn_acquire and grt_cudnn_release. */
grt_dnn_cache* grt_cudnn_cache(cuda_device* d);

/* NULL for CUDNN_STATUS_SUCCESS, else INTERNAL (RESOURCE_EXHAUSTED for
 * allocation failures) naming `what` and cuDNN's words. Only after
 * grt_cudnn_open succeeded. */
grt_status* grt_cudnn_error(cudnnStatus_t st, const char* what);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_CUDNN_HANDLE_H_ */
