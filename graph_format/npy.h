/* NumPy .npy files (format versions 1.0, 2.0, 3.0), for `grt run --feed
 * NAME=@file.npy`: little-endian, C-order arrays of grt's dtypes. */
#ifndef GRT_GRAPH_FORMAT_NPY_H_
#define GRT_GRAPH_FORMAT_NPY_H_

#include <stddef.h>

#include "grt/status.h"
#include "grt/tensor_io.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* grt_npy_parse and grt_npy_read are public: grt/tensor_io.h. */

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_NPY_H_ */
