/* The session options backends declare ("type.KEY", grt_backend_options in
 * grt/backend.h): which keys each device type has, the values a session was
 * given, checked by the declarations, and the per-type value arrays handed
 * to the backends. CPU's and GPU's declarations are built in
 * (backends/cpu:options, backends/cuda:options) as their support rows are;
 * any other type's come from its registered backend. */
#ifndef GRT_RUNTIME_DEVICE_BACKEND_OPTIONS_H_
#define GRT_RUNTIME_DEVICE_BACKEND_OPTIONS_H_

#include <stdint.h>

#include "base/strbuf.h"
#include "grt/backend.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most options one backend may declare (more are ignored). */
#define GRT_MAX_BACKEND_OPTIONS 32

/* The declarations for device type `type` ("GPU", "gpu"): built in for CPU
 * and GPU, else the registered backend's; NULL when it has none. */
const grt_backend_options* grt_backend_options_of(const char* type);

/* Why a backend's declarations are unusable (too many, a key missing or
 * with '.' or '='), for the registry's refusal; NULL when they are fine. */
GRT_MUST_USE grt_status* grt_backend_options_check(const grt_backend_options* o);

/* The values a session was given (a list of set keys; unset keys read as
 * their defaults). */
typedef struct grt_backend_values grt_backend_values;

GRT_MUST_USE grt_status* grt_backend_values_new(grt_backend_values** out);
void grt_backend_values_free(grt_backend_values* v); /* NULL is a no-op */
GRT_MUST_USE grt_status* grt_backend_values_copy(const grt_backend_values* v,
                                                 grt_backend_values** out);

/* Sets "type.KEY" to value after the declaration's check. NOT_FOUND when no
 * device type `type` declares options (the caller says what keys exist);
 * INVALID_ARGUMENT naming the key when the type lacks KEY (listing the keys
 * it has) or the value is bad. */
GRT_MUST_USE grt_status* grt_backend_values_set(grt_backend_values* v, const char* key,
                                                const char* value);

/* Fills vals (room for GRT_MAX_BACKEND_OPTIONS) with the values of type's
 * declared options in order, set or default, and returns how many (0 when
 * the type declares none). `v` may be NULL: every default. The strings live
 * as long as v. */
int32_t grt_backend_values_get(const grt_backend_values* v, const char* type, const char** vals);

/* How many devices of `type` a session with values `v` sees when the
 * type's probe found `probed` (the declarations' devices(), else probed). */
int32_t grt_backend_values_devices(const grt_backend_values* v, const char* type, int32_t probed);

/* Appends "type.KEY\tVALUE_TYPE\tDEFAULT\tDOC\n" for every option of the
 * built-in types and of every registered backend. */
void grt_backend_options_describe(grt_strbuf* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_DEVICE_BACKEND_OPTIONS_H_ */
