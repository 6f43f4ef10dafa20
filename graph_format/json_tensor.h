/* One tensor as JSON text (docs/json-format.md's tensor value), for the
 * command line's --feed NAME=VALUE and --fetch output. */
#ifndef GRT_GRAPH_FORMAT_JSON_TENSOR_H_
#define GRT_GRAPH_FORMAT_JSON_TENSOR_H_

#include <stddef.h>

#include "grt/status.h"
#include "grt/tensor_io.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* grt_json_tensor_from_text and grt_json_tensor_to_text are public:
 * grt/tensor_io.h. */

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_JSON_TENSOR_H_ */
