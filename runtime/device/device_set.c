/* Device sets as the runtime sees them: device_set_new.c builds the set; which of
 * its devices this machine has comes from the backends loaded here. */
#include <stdint.h>

#include "base/status.h"
#include "kernels/kernel_registry.h"
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

/* Each present device of a plugin that describes its devices. */
static void describe(grt_device_set* ds, const grt_device_config* gpu) {
  for (int32_t i = 0; i < ds->n; i++) {
    grt_device_entry* d = &ds->devs[i];
    if (!d->present) continue;
    grt_device_config cfg = gpu ? *gpu : (grt_device_config){.gpu_memory_fraction = 1.0};
    cfg.id = d->id;
    cfg.name = d->name;
    grt_registry_describe(grt_device_type_name(d->type), &cfg, d->description,
                          sizeof d->description);
  }
}

grt_status* grt_device_set_from_machine_split(int32_t n_cpus, const grt_device_config* gpu,
                                              grt_device_set** out) {
  *out = NULL;
  int32_t gpus_per_card = gpu && gpu->gpu_virtual_count > 1 ? gpu->gpu_virtual_count : 1;
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
    if (known && t == GRT_DEVICE_GPU && have <= INT32_MAX / gpus_per_card) have *= gpus_per_card;
    if (have > 0) c[n++] = (grt_device_count){b->type, have, have};
  }
  GRT_RETURN_IF_ERROR(grt_device_set_new(c, n, out));
  describe(*out, gpu);
  return NULL;
}
