/* Internal to interchange/: nodes written for ONNX opsets older than the
 * form grt's converters read, rewritten into that form before they are
 * converted (onnx_legacy.c). */
#ifndef GRT_INTERCHANGE_ONNX_LEGACY_H_
#define GRT_INTERCHANGE_ONNX_LEGACY_H_

#include "interchange/onnx_import.h"

/* A node in its newer form: a copy of the NodeProto whose input and
 * attribute arrays (in the graph's arena) may differ from the original,
 * and the opset whose form that is. */
typedef struct onnx_legacy_node {
  Onnx__NodeProto node;
  int64_t opset;
} onnx_legacy_node;

/* If ctx->node is an older form of its op than the model's opset gives the
 * converters, writes the newer form to *up, points ctx->node at it and
 * sets ctx->opset to its opset (the caller restores both); otherwise
 * changes nothing. Needs ctx->base set (it may add Consts and reshapes).
 * An old form with no newer equivalent grt can import is an error naming
 * the opsets. */
GRT_MUST_USE grt_status* grt_onnx_legacy_upgrade(onnx_import* ctx, onnx_legacy_node* up);

#endif /* GRT_INTERCHANGE_ONNX_LEGACY_H_ */
