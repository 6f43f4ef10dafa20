/* Whether a callable's step can be captured (capture.h). */
#ifndef GRT_RUNTIME_SESSION_CAPTURE_CHECK_H_
#define GRT_RUNTIME_SESSION_CAPTURE_CHECK_H_

#include <stddef.h>

#include "runtime/session/session_internal.h"

/* Sets *device to the session device index the whole step runs on and
 * *n_kernels to its kernel count when the step can be captured; otherwise
 * *device is -1 and `why` says which node or value prevents it. Fails only
 * when out of memory. */
GRT_MUST_USE grt_status* grt_capture_check(const grt_session* s, const grt_executable* e,
                                           const grt_output* feeds, int32_t* device,
                                           int32_t* n_kernels, char* why, size_t size);

#endif /* GRT_RUNTIME_SESSION_CAPTURE_CHECK_H_ */
