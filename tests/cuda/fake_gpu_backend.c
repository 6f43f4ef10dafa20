/* A stand-in GPU plugin for tests on machines without a GPU: two "cards",
 * no devices made, and a grt_backend_describe that tells which card and
 * logical GPU each device is, so the device mapping's plumbing (registry,
 * device set, virtual split) is tested without CUDA. */
#include <stdio.h>

#include "backends/cuda/gpu_options.h"
#include "grt/backend.h"

static int32_t probe(char* why, size_t why_size) { return 2; }

static grt_status* device_new(const grt_device_config* cfg, grt_device** out) {
  *out = NULL;
  return grt_status_new(GRT_UNIMPLEMENTED, "stand-in GPU plugin makes no devices");
}

static const grt_op_kernel* kernel(const char* op) { return NULL; }

static const grt_backend kBackend = {
    .api_version = GRT_BACKEND_API_VERSION,
    .type = "GPU",
    .priority = 210,
    .probe = probe,
    .device_new = device_new,
    .kernel = kernel,
    .options = &grt_options_gpu, /* as the CUDA plugin declares them */
};

__attribute__((visibility("default"))) const grt_backend* grt_backend_entry(uint32_t v) {
  return &kBackend;
}

__attribute__((visibility("default"))) size_t grt_backend_describe(const grt_device_config* cfg,
                                                                   char* buf, size_t size) {
  /* The values the host hands over, read as the CUDA plugin reads them. */
  grt_gpu_options o;
  grt_status* st = grt_gpu_options_parse(cfg->options, cfg->n_options, &o);
  if (st) {
    int len = snprintf(buf, size, "bad options: %s", grt_status_message(st));
    grt_status_free(st);
    return len < 0 ? 0 : (size_t)len;
  }
  int n = o.virtual_count > 1 ? o.virtual_count : 1;
  long long mib = n > 1 ? (long long)o.virtual_mib[cfg->id % n] : 0;
  int len = snprintf(buf, size, "device: %d, name: stand-in card %d, memory: %lld MiB",
                     (int)(cfg->id / n), (int)(cfg->id / n), mib);
  return len < 0 ? 0 : (size_t)len;
}
