/* Internal: the 3-D (5-D input) forms of ONNX Conv, ConvTranspose,
 * MaxPool and AveragePool (onnx_ops_conv3d.c), which onnx_ops_conv.c's converters hand
 * their rank-5 nodes to. */
#ifndef GRT_INTERCHANGE_ONNX_CONV3D_H_
#define GRT_INTERCHANGE_ONNX_CONV3D_H_

#include "interchange/onnx_import.h"

GRT_MUST_USE grt_status* grt_onnx_conv3d(onnx_import* ctx);
GRT_MUST_USE grt_status* grt_onnx_conv_transpose3d(onnx_import* ctx);
GRT_MUST_USE grt_status* grt_onnx_max_pool3d(onnx_import* ctx);
GRT_MUST_USE grt_status* grt_onnx_avg_pool3d(onnx_import* ctx);

#endif /* GRT_INTERCHANGE_ONNX_CONV3D_H_ */
