/* The device set's layout, for the layers that read it in their inner
 * loops (the placer matches requests against every device, once per
 * interned request). The set itself is public (grt/device_set.h); this
 * header adds what only the library sees. */
#ifndef GRT_RUNTIME_DEVICE_DEVICE_SET_H_
#define GRT_RUNTIME_DEVICE_DEVICE_SET_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/device_set.h"
#include "base/device_name.h"
#include "kernels/kernel_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_device_entry {
  grt_device_type type;
  int32_t id;
  bool present;
  grt_device_name parsed;
  char name[GRT_DEVICE_NAME_MAX]; /* canonical full name */
  /* What its backend says of it ("device: 0, name: NVIDIA H100 ..., pci bus
   * id: ..."), "" for none: the device mapping prints it. */
  char description[192];
} grt_device_entry;

struct grt_device_set {
  int32_t n;
  grt_device_entry* devs;              /* by type id, then by id */
  int32_t first[GRT_MAX_DEVICE_TYPES]; /* index of the first device of a type */
  int32_t count[GRT_MAX_DEVICE_TYPES];
};

/* Bitmask (1 << type) of the types the set has devices of. */
uint32_t grt_device_set_types(const grt_device_set* ds);
/* "[ a, b ]"-style list of every name, for messages (malloc'd; NULL on OOM). */
char* grt_device_set_list(const grt_device_set* ds, const char* open, const char* close);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_DEVICE_DEVICE_SET_H_ */
