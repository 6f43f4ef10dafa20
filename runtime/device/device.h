/* The device interface every backend implements (a stream-executor vtable).
 *
 * A device owns an allocator and streams: one compute stream and copy
 * streams host-to-device, device-to-host and device-to-device. Work on a
 * stream runs in order; ordering across streams uses events. The CPU device
 * runs work synchronously on the calling thread, so its streams are ordered
 * by construction and its events are complete when recorded; a GPU backend
 * maps the same calls onto CUDA streams and events. */
#ifndef GRT_RUNTIME_DEVICE_H_
#define GRT_RUNTIME_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "base/allocator.h"
#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_device grt_device;
typedef struct grt_stream grt_stream;
typedef struct grt_event grt_event;

typedef enum grt_stream_kind {
  GRT_STREAM_COMPUTE = 0,
  GRT_STREAM_HOST_TO_DEVICE = 1,
  GRT_STREAM_DEVICE_TO_HOST = 2,
  GRT_STREAM_DEVICE_TO_DEVICE = 3,
} grt_stream_kind;
#define GRT_NUM_STREAM_KINDS 4

typedef struct grt_device_vtable {
  const char* type; /* "CPU", "GPU" */
  void (*free)(grt_device* d);
  /* The device's stream of a kind (owned by the device). */
  grt_stream* (*stream)(grt_device* d, grt_stream_kind kind);
  grt_status* (*event_new)(grt_device* d, grt_event** out);
  void (*event_free)(grt_device* d, grt_event* e);
  /* The event completes when the work queued on `s` so far completes. */
  grt_status* (*event_record)(grt_device* d, grt_event* e, grt_stream* s);
  /* Work queued on `s` after this call waits for `e`. */
  grt_status* (*stream_wait_event)(grt_device* d, grt_stream* s, grt_event* e);
  grt_status* (*event_sync)(grt_device* d, grt_event* e);
  grt_status* (*stream_sync)(grt_device* d, grt_stream* s);
  /* Copies n bytes on stream s; which memory each side is in follows the
   * stream kind. */
  grt_status* (*memcpy)(grt_device* d, grt_stream* s, void* dst, const void* src, size_t n);
  /* The kernel this device runs for `op`, or NULL. */
  const grt_op_kernel* (*kernel)(grt_device* d, const char* op);
  /* Runs k on `ctx` on stream s (the CPU device: now, on this thread). */
  grt_status* (*launch)(grt_device* d, grt_stream* s, const grt_op_kernel* k, grt_kernel_ctx* ctx);
} grt_device_vtable;

struct grt_device {
  const grt_device_vtable* vt;
  int32_t index;     /* in the session's device set */
  int32_t id;        /* the TYPE:ID id */
  const char* name;  /* canonical, owned by the device set */
  grt_allocator* allocator;
};

/* A logical CPU device with its own allocator. */
grt_status* grt_cpu_device_new(int32_t index, int32_t id, const char* name, grt_device** out);

static inline void grt_device_free(grt_device* d) {
  if (d) d->vt->free(d);
}

/* Bytes a CPU device's allocator holds now and at most so far. */
void grt_cpu_device_memory(const grt_device* d, size_t* in_use, size_t* peak);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_RUNTIME_DEVICE_H_ */
