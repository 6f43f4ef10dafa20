/* A transport plugin built against version 1 of grt/transport.h (before
 * `size` and `iall_reduce`): as such a plugin does, its entry answers only
 * for its own version. The loader must refuse it by name, never call it. */
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t api_version;
  const char* name;
  void* calls[7];
} v1_table;

static const v1_table kOld = {1u, "mpi", {0}};

__attribute__((visibility("default"))) const void* grt_transport_entry(uint32_t host_api_version) {
  return host_api_version == 1u ? &kOld : NULL;
}
