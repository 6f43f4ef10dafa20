/* Graphs made elsewhere: TensorFlow GraphDef and ONNX.
 *
 * Readers build a grt graph but do not validate it (the caller does, as for
 * grt's own formats); every error names the node (and op) at fault. The
 * bytes are only read during the call: constants are copied out of them (or
 * out of protobuf's own copy, without a second one). */
#ifndef GRT_INTERCHANGE_INTERCHANGE_H_
#define GRT_INTERCHANGE_INTERCHANGE_H_

#include <stddef.h>
#include <stdio.h>

#include "grt/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A binary GraphDef (tensorflow.GraphDef). Caller owns *out. */
GRT_MUST_USE grt_status* grt_graphdef_parse(const void* data, size_t len, grt_graph** out);

/* Writes `g` (validated) as a binary GraphDef: attrs in name order,
 * colocation as TensorFlow's `_class: ["loc:@node"]`, constants as
 * tensor_content. Streams to `f`: the tensors are not copied. */
GRT_MUST_USE grt_status* grt_graphdef_write(grt_graph* g, FILE* f);

/* An ONNX model (onnx.ModelProto), opsets 7 to 17: graph inputs become
 * Placeholders, initializers Consts, and each node TensorFlow-named ops
 * (ONNX_OPS.md); graph outputs keep their names. Caller owns *out. */
GRT_MUST_USE grt_status* grt_onnx_parse(const void* data, size_t len, grt_graph** out);

/* grt_onnx_parse, handing `visit` the shape the importer inferred for
 * every ONNX value it defines (graph inputs, initializers, node outputs;
 * rank -1 or dims -1 where unknown), in graph order. For tests that check
 * the inference against ONNX's own. */
typedef void (*grt_onnx_shape_visit)(void* user, const char* value, const grt_shape* shape);
GRT_MUST_USE grt_status* grt_onnx_parse_shapes(const void* data, size_t len,
                                               grt_onnx_shape_visit visit, void* user,
                                               grt_graph** out);

/* An ONNX TensorProto (the conformance tests' input_N.pb / output_N.pb).
 * Caller owns *out. */
GRT_MUST_USE grt_status* grt_onnx_tensor_parse(const void* data, size_t len, grt_tensor** out);

/* The grt node name the importer starts from for an ONNX value name: the
 * name itself when it is a valid grt name, else with every other character
 * replaced by '_' ("" becomes "_"); an invalid name whose form is taken
 * gets a suffix `_K` too (ONNX_OPS.md, Names). Writes at most `size` bytes
 * to `buf`. */
void grt_onnx_node_name(const char* onnx_name, char* buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GRT_INTERCHANGE_INTERCHANGE_H_ */
