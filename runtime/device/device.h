/* The backend registry inside the library: which backends are here (built
 * in, or plugins loaded from shared libraries), how many devices each has,
 * and the devices a session makes from them. The interface a backend
 * implements is public: grt/backend.h. */
#ifndef GRT_RUNTIME_DEVICE_DEVICE_H_
#define GRT_RUNTIME_DEVICE_DEVICE_H_

#include <stdint.h>

#include "grt/backend.h"
#include "grt/device_set.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Environment variable naming more plugins: directories (every
 * libgrt_backend_*.so in them) or files, separated by ':'. */
#define GRT_PLUGIN_PATH_ENV "GRT_PLUGIN_PATH"

/* The backends, built in first, then plugins in the order found. The first
 * call loads the plugins (once per process). */
int32_t grt_registry_count(void);
const grt_backend* grt_registry_at(int32_t i);
/* The backend for a device type ("gpu" or "GPU"), or NULL. */
const grt_backend* grt_registry_find(const char* type);
/* Devices of that type this machine has (the backend's probe, asked once);
 * 0 when no backend provides the type. */
int32_t grt_registry_device_count(const char* type);

/* The machine's devices as grt_device_set_from_machine, each type's count
 * as its options in `v` make it (gpu.virtual_devices splits each physical
 * GPU into logical ones) and each present device described by its backend,
 * told those options. `v` may be NULL: defaults. */
typedef struct grt_backend_values grt_backend_values;
GRT_MUST_USE grt_status* grt_device_set_from_machine_split(int32_t n_cpus,
                                                           const grt_backend_values* v,
                                                           grt_device_set** out);

/* What the backend of `type` says of device cfg->id (a plugin's optional
 * grt_backend_describe); 0 and "" when it says nothing. */
size_t grt_registry_describe(const char* type, const grt_device_config* cfg, char* buf,
                             size_t size);

/* Makes device `index` of set `ds` with the backend of its type. */
GRT_MUST_USE grt_status* grt_registry_device_new(const grt_device_set* ds, int32_t index,
                                                 const grt_device_config* cfg, grt_device** out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_DEVICE_DEVICE_H_ */
