/* The device mapping, as TensorFlow logs it before the placements
 * (docs/placement.md): one line per device of a set. */
#include <stdio.h>

#include "base/status.h"
#include "runtime/device/device_set.h"

grt_status* grt_device_set_write(const grt_device_set* ds, FILE* f) {
  if (!ds || !f) return GRT_ERROR(INVALID_ARGUMENT, "grt_device_set_write needs a set and a file");
  fprintf(f, "Device mapping:\n");
  for (int32_t i = 0; i < ds->n; i++) {
    const grt_device_entry* d = &ds->devs[i];
    if (d->present && d->description[0]) {
      fprintf(f, "%s -> %s\n", d->name, d->description);
      continue;
    }
    fprintf(f, "%s -> device: %d, name: logical %s device%s\n", d->name, (int)d->id,
            grt_device_type_name(d->type), d->present ? "" : " (declared; not on this machine)");
  }
  if (fflush(f) != 0 || ferror(f)) return GRT_ERROR(UNAVAILABLE, "cannot write the device mapping");
  return NULL;
}
