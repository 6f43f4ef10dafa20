/* Device sets as the runtime sees them: device_set_new.c builds the set; which of
 * its devices this machine has comes from the backends loaded here. */
#include <stdint.h>

#include "base/status.h"
#include "kernels/kernel_registry.h"
#include "runtime/device/backend_options.h"
#include "runtime/device/device_set.h"
#include "runtime/device/device.h"

grt_status* grt_device_set_from_spec(const char* spec, grt_device_set** out) {
  *out = NULL;
  grt_registry_count(); /* plugins first: they may add device types */
  grt_device_count c[GRT_MAX_DEVICE_TYPES];
  int32_t n = 0;
  GRT_RETURN_IF_ERROR(grt_device_spec_parse(spec, c, GRT_MAX_DEVICE_TYPES, &n));
  for (int32_t i = 0; i < n; i++) {
    grt_device_type t;
    if (grt_device_type_from_name(c[i].type, &t) && t == GRT_DEVICE_CPU) continue;
    int32_t have = grt_registry_device_count(c[i].type);
    c[i].present = have < c[i].declared ? have : c[i].declared;
  }
  return grt_device_set_new(c, n, out);
}

grt_status* grt_device_set_from_machine(int32_t n_cpus, grt_device_set** out) {
  return grt_device_set_from_machine_split(n_cpus, NULL, out);
}

/* Each present device of a plugin that describes its devices, told the
 * values of its type's options. */
static void describe(grt_device_set* ds, const grt_backend_values* v) {
  for (int32_t i = 0; i < ds->n; i++) {
    grt_device_entry* d = &ds->devs[i];
    if (!d->present) continue;
    const char* type = grt_device_type_name(d->type);
    const char* vals[GRT_MAX_BACKEND_OPTIONS];
    int32_t n = grt_backend_values_get(v, type, vals);
    grt_device_config cfg = {.id = d->id, .name = d->name, .options = vals, .n_options = n};
    grt_registry_describe(type, &cfg, d->description, sizeof d->description);
  }
}

grt_status* grt_device_set_from_machine_split(int32_t n_cpus, const grt_backend_values* v,
                                              grt_device_set** out) {
  *out = NULL;
  grt_device_count c[GRT_MAX_DEVICE_TYPES];
  int32_t n = 0;
  c[n++] = (grt_device_count){"CPU", n_cpus, n_cpus};
  int32_t nb = grt_registry_count();
  for (int32_t i = 0; i < nb && n < GRT_MAX_DEVICE_TYPES; i++) {
    const grt_backend* b = grt_registry_at(i);
    grt_device_type t;
    bool known = grt_device_type_from_name(b->type, &t);
    if (known && t == GRT_DEVICE_CPU) continue;
    int32_t have = grt_registry_device_count(b->type);
    if (have > 0) have = grt_backend_values_devices(v, b->type, have); /* gpu.virtual_devices */
    if (have > 0) c[n++] = (grt_device_count){b->type, have, have};
  }
  GRT_RETURN_IF_ERROR(grt_device_set_new(c, n, out));
  describe(*out, v);
  return NULL;
}
