/* A plugin built for another backend API version: grt must refuse it. */
#include "grt/backend.h"

static int32_t probe(char* why, size_t why_size) { return 1; }
static grt_status* device_new(const grt_device_config* cfg, grt_device** out) { return NULL; }
static const grt_op_kernel* kernel(const char* op) { return NULL; }

static const grt_backend kBackend = {
    .api_version = GRT_BACKEND_API_VERSION + 1,
    .type = "BADABI",
    .probe = probe,
    .device_new = device_new,
    .kernel = kernel,
};

__attribute__((visibility("default"))) const grt_backend* grt_backend_entry(
    uint32_t host_api_version) {
  return &kBackend;
}
