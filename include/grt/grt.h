/* grt — an embeddable graph runtime with a device-placement planner.
 * The one header a host application includes. */
#ifndef GRT_GRT_H_
#define GRT_GRT_H_

#include "grt/api.h"
#include "grt/status.h"
#include "grt/types.h"
#include "grt/graph.h"
#include "grt/device_set.h"
#include "grt/placer.h"
#include "grt/session.h"
#include "grt/training.h"
#include "grt/checkpoint.h"
#include "grt/parallel.h"
#include "grt/log.h"
#include "grt/tensor_io.h"
#include "grt/memory.h"
#include "grt/op_reference.h"

#define GRT_VERSION_MAJOR 0
#define GRT_VERSION_MINOR 2
#define GRT_VERSION_PATCH 0
#define GRT_VERSION_STRING "0.2.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library actually loaded, "MAJOR.MINOR.PATCH" (static
 * storage). A host built against these headers can compare it with
 * GRT_VERSION_STRING: the shared library's soname changes with MAJOR, so a
 * different MINOR or PATCH means a newer or older library of the same ABI. */
GRT_API const char* grt_version(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRT_H_ */
