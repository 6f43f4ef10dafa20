/* A plugin built for backend API version 4, before backends declared their
 * own options: grt (version 5) must refuse it, not read a grt_backend
 * without the options field. */
#include "grt/backend.h"

static int32_t probe(char* why, size_t why_size) { return 1; }
static grt_status* device_new(const grt_device_config* cfg, grt_device** out) { return NULL; }
static const grt_op_kernel* kernel(const char* op) { return NULL; }

/* API 4's grt_backend, as such a plugin was compiled. */
static const struct {
  uint32_t api_version;
  const char* type;
  int32_t priority;
  const grt_kernel_spec* rows;
  int32_t n_rows;
  int32_t (*probe)(char* why, size_t why_size);
  grt_status* (*device_new)(const grt_device_config* cfg, grt_device** out);
  const grt_op_kernel* (*kernel)(const char* op);
  grt_status* (*all_reduce)(const grt_all_reduce_args* a);
} kBackend = {
    .api_version = 4,
    .type = "OLDABI",
    .probe = probe,
    .device_new = device_new,
    .kernel = kernel,
};

__attribute__((visibility("default"))) const grt_backend* grt_backend_entry(uint32_t host) {
  return (const grt_backend*)&kBackend;
}
