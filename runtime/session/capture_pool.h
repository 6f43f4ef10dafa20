/* The memory of a recorded step. A recording replays into the very
 * addresses its kernels were given, so everything the recording run
 * allocates on the recorded device comes from a pool that keeps it: a
 * block freed during the recording goes back to the pool only (a later
 * allocation of the recording may take it again, which is safe because
 * the replay queues the work in the same order the recording did, as the
 * device's allocator relies on for every run), and nothing returns to the
 * device's allocator until the recording is dropped. */
#ifndef GRT_RUNTIME_SESSION_CAPTURE_POOL_H_
#define GRT_RUNTIME_SESSION_CAPTURE_POOL_H_

#include <stddef.h>

#include "grt/backend.h"

typedef struct grt_capture_pool grt_capture_pool;

/* A pool over `under` (NULL when out of memory). */
grt_capture_pool* grt_capture_pool_new(grt_allocator* under);
grt_allocator* grt_capture_pool_allocator(grt_capture_pool* c);
/* The recording is gone: free blocks go back to `under` now, blocks still
 * in use as they are freed, and the pool itself with the last of them. */
void grt_capture_pool_release(grt_capture_pool* c);

#endif /* GRT_RUNTIME_SESSION_CAPTURE_POOL_H_ */
