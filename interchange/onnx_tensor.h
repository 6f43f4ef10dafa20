/* ONNX TensorProto and data types in grt's terms. */
#ifndef GRT_INTERCHANGE_ONNX_TENSOR_H_
#define GRT_INTERCHANGE_ONNX_TENSOR_H_

#include "onnx.pb-c.h"
#include "grt/types.h"

/* An ONNX TensorProto.DataType as grt's dtype; types grt lacks (uint16/32/64,
 * string, complex, float8) are UNIMPLEMENTED errors naming the type. */
GRT_MUST_USE grt_status* grt_onnx_dtype_read(int64_t onnx, grt_dtype* out);

/* grt's dtype as ONNX's (0, UNDEFINED, for an invalid one). */
int32_t grt_onnx_dtype_of(grt_dtype t);

/* A TensorProto as a new tensor, from raw_data (exactly the tensor's bytes)
 * or the typed field for its type (exactly one value per element). External
 * data is refused. Caller owns *out. */
GRT_MUST_USE grt_status* grt_onnx_tensor_read(const Onnx__TensorProto* p, grt_tensor** out);

/* The same, but raw_data that protobuf-c allocated (through base/mem.h) is
 * handed to the tensor instead of copied, and cleared in `p`: a model's
 * large initializers are then in memory once. Caller owns *out. */
GRT_MUST_USE grt_status* grt_onnx_tensor_take(Onnx__TensorProto* p, grt_tensor** out);

#endif /* GRT_INTERCHANGE_ONNX_TENSOR_H_ */
