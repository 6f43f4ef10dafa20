/* TensorFlow's DataType, TensorShapeProto and TensorProto in grt's terms
 * (GraphDef import and export). */
#ifndef GRT_INTERCHANGE_TF_TYPES_H_
#define GRT_INTERCHANGE_TF_TYPES_H_

#include <stdbool.h>

#include "graphdef.pb-c.h"
#include "grt/types.h"

/* A DataType as grt's dtype. DT_*_REF gives its base type with *is_ref set
 * (grt derives reference edges from the op's signature, as TensorFlow does
 * when it imports a GraphDef, so the flag is informational). Types grt has
 * no form of (DT_STRING, complex, unsigned beyond uint8, resource, ...) are
 * UNIMPLEMENTED errors naming the type. */
GRT_MUST_USE grt_status* grt_tf_dtype_read(int tf, grt_dtype* out, bool* is_ref);

/* grt's dtype as a DataType (DT_INVALID for an invalid one). */
int grt_tf_dtype_of(grt_dtype t);

/* A TensorShapeProto; allow_unknown lets unknown_rank and -1 sizes through. */
GRT_MUST_USE grt_status* grt_tf_shape_read(const Tensorflow__TensorShapeProto* p,
                                           bool allow_unknown, grt_shape* out);

/* A TensorProto as a new tensor: tensor_content (exactly the tensor's bytes)
 * or the dtype's typed value field, where fewer values than elements are
 * padded with the last one, as TensorFlow does (one value fills the shape;
 * none gives zeros). Caller owns *out. */
GRT_MUST_USE grt_status* grt_tf_tensor_read(const Tensorflow__TensorProto* p, grt_tensor** out);

#endif /* GRT_INTERCHANGE_TF_TYPES_H_ */
