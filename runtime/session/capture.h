/* Captured steps: a callable's step recorded once on a device that can
 * record its streams (grt_device_ops' capture hooks: CUDA Graphs on a GPU)
 * and replayed from then on. runtime/EXECUTION.md, "Captured steps", says
 * what is captured, when it records again and what it costs. */
#ifndef GRT_RUNTIME_SESSION_CAPTURE_H_
#define GRT_RUNTIME_SESSION_CAPTURE_H_

#include <stddef.h>

#include "runtime/session/session_internal.h"

typedef struct grt_capture grt_capture;

/* The capture state of a callable over `e` (feeds: the callable's, in e's
 * order). Decides now whether the step can be captured; when it cannot,
 * every call runs as usual and the report says why. */
GRT_MUST_USE grt_status* grt_capture_new(grt_session* s, const grt_executable* e,
                                         const grt_output* feeds, grt_capture** out);
/* Drops the recording (its memory goes back to the device). */
void grt_capture_free(grt_capture* c);

/* One call of the callable (feeds already checked against the graph). */
GRT_MUST_USE grt_status* grt_capture_call(grt_capture* c, const grt_run_options* opts,
                                          grt_tensor* const* feeds, grt_tensor** out_values,
                                          grt_trace* trace);

/* grt_callable_capture_report's line. */
size_t grt_capture_report(const grt_capture* c, char* buf, size_t size);

#endif /* GRT_RUNTIME_SESSION_CAPTURE_H_ */
