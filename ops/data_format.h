/* data_format attrs (BiasAdd, BiasAddGrad): where the channel dimension is,
 * for the shape functions and the kernels alike. */
#ifndef GRT_OPS_DATA_FORMAT_H_
#define GRT_OPS_DATA_FORMAT_H_

#include <stdint.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The channel dimension's index in a tensor of rank `rank`: the last for
 * "NHWC", 1 for "NCHW" (TensorFlow's GetTensorFeatureDimIndex). Any other
 * format is INVALID_ARGUMENT: "data_format must be NHWC or NCHW, got 'X'". */
GRT_MUST_USE grt_status* grt_data_format_channel(const char* data_format, int32_t rank,
                                                 int32_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_DATA_FORMAT_H_ */
