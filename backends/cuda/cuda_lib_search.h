/* Where the plugin looks for the NVIDIA libraries it opens on first use
 * (cuBLAS, cuDNN, NCCL; base/lazy_lib.h gives the order): the folders of
 * GRT_CUDA_LIBRARY_PATH first, then the loader's path, then the Python
 * wheels' folders (nvidia/<package>/lib) beside the loaded cudart and under
 * the usual package roots, where pip puts these libraries and no loader
 * looks. Each lazy_lib row of the plugin adds GRT_CUDA_LIB_SEARCH(...). */
#ifndef GRT_BACKENDS_CUDA_CUDA_LIB_SEARCH_H_
#define GRT_BACKENDS_CUDA_CUDA_LIB_SEARCH_H_

#include <cuda_runtime_api.h>

#include "base/lazy_lib.h"

#define GRT_CUDA_LIBRARY_PATH_ENV "GRT_CUDA_LIBRARY_PATH"

/* The search fields of a grt_lazy_lib initialiser: `packages` are the
 * wheel folders (a NULL-terminated array), `companions` the sonames opened
 * first from the same folder (or NULL). cudart anchors the search: a
 * cudart loaded from a wheel has the other wheels beside it. */
#define GRT_CUDA_LIB_SEARCH(packages, companions_)                                                \
  .path_env = GRT_CUDA_LIBRARY_PATH_ENV, .package_dirs = (packages), .companions = (companions_), \
  .anchor = (void (*)(void))cudaGetDeviceCount

#endif /* GRT_BACKENDS_CUDA_CUDA_LIB_SEARCH_H_ */
