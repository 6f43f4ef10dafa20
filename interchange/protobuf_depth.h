/* A bound on how deeply a protobuf file nests messages, checked before
 * protobuf-c unpacks it. protobuf-c's unpack recurses once per nested
 * message and has no limit of its own, so a small crafted file (an ONNX
 * type nesting sequence_type thousands deep, If subgraphs inside If
 * subgraphs) overflows the stack of whatever thread loads it. */
#ifndef GRT_INTERCHANGE_PROTOBUF_DEPTH_H_
#define GRT_INTERCHANGE_PROTOBUF_DEPTH_H_

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most levels of nested messages grt reads, the top-level message
 * being level 1: protobuf's own default recursion limit (docs/cli.md). */
#define GRT_PROTOBUF_MAX_DEPTH 100

/* NULL when data[0..len), read as a `desc` message, nests messages at most
 * GRT_PROTOBUF_MAX_DEPTH levels; else INVALID_ARGUMENT naming `what` and
 * the limit. One linear pass over the wire format, recursing only into
 * fields the descriptor declares as messages (strings, bytes and unknown
 * fields are skipped, as protobuf-c does not parse them either). Damaged
 * wire data ends the scan of its message quietly: unpacking reports it. */
GRT_MUST_USE grt_status* grt_protobuf_check_depth(const ProtobufCMessageDescriptor* desc,
                                                  const void* data, size_t len, const char* what);

#ifdef __cplusplus
}
#endif

#endif /* GRT_INTERCHANGE_PROTOBUF_DEPTH_H_ */
