/* Device names: TensorFlow's spellings, partial specs and the canonical form.
 *
 * Accepted: "/cpu:0", "/gpu:1", "/CPU:0", "/device:GPU:1", "GPU:1", "/gpu:*",
 * "/device:GPU", "/job:localhost/replica:0/task:0/device:CPU:0", partial specs
 * such as "/job:localhost/device:GPU:0", and "" (anything). Every field is
 * optional; "*" leaves it unset. Types are kept upper-case. */
#ifndef GRT_BASE_DEVICE_NAME_H_
#define GRT_BASE_DEVICE_NAME_H_

#include <stdbool.h>
#include <stddef.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRT_DEVICE_FIELD_MAX 64

typedef struct grt_device_name {
  bool has_job, has_replica, has_task, has_type, has_id;
  char job[GRT_DEVICE_FIELD_MAX];
  int replica, task, id;
  char type[GRT_DEVICE_FIELD_MAX]; /* "CPU", "GPU", ... */
} grt_device_name;

/* Parses `spec`; an error names the spec and the part that is wrong. */
GRT_MUST_USE grt_status* grt_device_name_parse(const char* spec, grt_device_name* out);

/* Writes the spec back with only the fields it has, in canonical spelling
 * ("/job:localhost/device:GPU:0"; "" for an empty spec). */
void grt_device_name_str(const grt_device_name* d, char* buf, size_t size);

/* The full canonical name /job:J/replica:R/task:T/device:TYPE:ID of a device
 * of `type` and `id` in job "localhost", replica 0, task 0. */
void grt_device_name_full(const char* type, int id, char* buf, size_t size);
#define GRT_DEVICE_NAME_MAX 192

/* True when every field set in `spec` equals the field in `dev`. */
bool grt_device_name_matches(const grt_device_name* spec, const grt_device_name* dev);

/* True when a and b set no field to different values. */
bool grt_device_name_compatible(const grt_device_name* a, const grt_device_name* b);

/* Adds b's fields to a; fails (leaving a unchanged) when they conflict. */
GRT_MUST_USE grt_status* grt_device_name_merge(grt_device_name* a, const grt_device_name* b);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_DEVICE_NAME_H_ */
