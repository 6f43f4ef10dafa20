/* grt — device sets: the devices a plan may assign, in a fixed order.
 *
 * A set is made from per-type counts, from the text syntax "cpu:1,gpu:8",
 * or from what this machine's backends report; the placer plans over one
 * and a session runs on one. Its home is the device layer
 * (runtime/device/), below the placer; grt/placer.h includes this header,
 * so code written against it before keeps compiling. */
#ifndef GRT_DEVICE_SET_H_
#define GRT_DEVICE_SET_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An ordered list of devices: by device type (CPU, GPU, then the types
 * backends registered, in registration order), then by numeric id. Indices
 * into it (0..count-1) are what a plan assigns. */
typedef struct grt_device_set grt_device_set;

#define GRT_MAX_DEVICES_PER_TYPE 1024

/* How many devices of one type a set declares, and how many of those this
 * machine has (the first `present` ids). */
typedef struct grt_device_count {
  const char* type; /* a registered device type, any case: "CPU", "gpu", "TEST" */
  int32_t declared; /* 0 .. GRT_MAX_DEVICES_PER_TYPE */
  int32_t present;  /* 0 .. declared */
} grt_device_count;

/* A device set from per-type counts, each type at most once. Fails with
 * INVALID_ARGUMENT on a type that is not registered (naming it and the
 * known types), a count out of range, or no CPU; a list without CPU gets one
 * present CPU. Caller owns *out. */
GRT_API GRT_MUST_USE grt_status* grt_device_set_new(const grt_device_count* counts, int32_t n,
                                                    grt_device_set** out);

/* Parses a device spec as on the command line: "TYPE:N" items separated by
 * commas ("cpu:1,gpu:8", "cpu:2,test:1"; types are the registered ones, in
 * any case), into at most `max` entries of `out` (*out_n of them), in the
 * spec's order. declared is N; present is N for CPU (logical CPUs always
 * exist) and 0 for every other type: the caller fills in what the machine
 * has. An error quotes the spec and says what is wrong. */
GRT_API GRT_MUST_USE grt_status* grt_device_spec_parse(const char* spec, grt_device_count* out,
                                                       int32_t max, int32_t* out_n);

/* A device set declared in text (grt_device_spec_parse's syntax;
 * "gpu:2" alone keeps the one CPU), present as far as the machine has the
 * devices (presence comes from the backends loaded here). Used to plan for
 * machines you don't have. Caller owns *out. */
GRT_API GRT_MUST_USE grt_status* grt_device_set_from_spec(const char* spec, grt_device_set** out);

/* The devices this machine has: `n_cpus` logical CPU devices (>= 1)
 * and every device the loaded backends report. */
GRT_API GRT_MUST_USE grt_status* grt_device_set_from_machine(int32_t n_cpus, grt_device_set** out);

/* A copy of `ds` (caller owns *out). */
GRT_API GRT_MUST_USE grt_status* grt_device_set_copy(const grt_device_set* ds,
                                                     grt_device_set** out);
GRT_API void grt_device_set_free(grt_device_set* ds); /* NULL is a no-op */

GRT_API int32_t grt_device_set_count(const grt_device_set* ds);
/* Canonical name "/job:localhost/replica:0/task:0/device:GPU:1"; "" when
 * out of range. Owned by the set. */
GRT_API const char* grt_device_set_name(const grt_device_set* ds, int32_t i);
/* The device type's registered name: "CPU", "GPU", "TEST" ("" when out of
 * range). Static storage. */
GRT_API const char* grt_device_set_type(const grt_device_set* ds, int32_t i);
/* The device type's id: 0 CPU, 1 GPU, then types in registration order
 * (-1 when out of range). */
GRT_API int32_t grt_device_set_type_id(const grt_device_set* ds, int32_t i);
GRT_API int32_t grt_device_set_id(const grt_device_set* ds, int32_t i);
/* Whether device i exists on this machine (false for declared devices the
 * machine lacks). */
GRT_API bool grt_device_set_present(const grt_device_set* ds, int32_t i);
/* Number of devices of a type ("CPU", "gpu", "TEST": any case). */
GRT_API int32_t grt_device_set_count_type(const grt_device_set* ds, const char* type);
/* Index of the one device a full or short name denotes ("/gpu:1",
 * "/job:localhost/replica:0/task:0/device:GPU:1"), or -1. */
GRT_API int32_t grt_device_set_find(const grt_device_set* ds, const char* name);

/* "Device mapping:" and one line per device, as TensorFlow logs it:
 * "<canonical name> -> device: <id>, name: logical GPU device", marking
 * declared devices this machine lacks. */
GRT_API GRT_MUST_USE grt_status* grt_device_set_write(const grt_device_set* ds, FILE* f);

#ifdef __cplusplus
}
#endif

#endif /* GRT_DEVICE_SET_H_ */
