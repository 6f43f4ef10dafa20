/* The GPU's session options (gpu.allow_growth, gpu.memory_fraction,
 * gpu.virtual_devices): their declarations and checks, compiled into the
 * core library (so the keys work, and split the device set, on machines
 * without the CUDA plugin) and into the plugin, which reads the values the
 * session hands it with grt_gpu_options_parse. Sees only grt/backend.h. */
#ifndef GRT_BACKENDS_CUDA_GPU_OPTIONS_H_
#define GRT_BACKENDS_CUDA_GPU_OPTIONS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The declarations' order: grt_device_config.options[GRT_GPU_OPT_...]. */
enum {
  GRT_GPU_OPT_ALLOW_GROWTH = 0,
  GRT_GPU_OPT_MEMORY_FRACTION = 1,
  GRT_GPU_OPT_VIRTUAL_DEVICES = 2,
  GRT_GPU_NUM_OPTS = 3,
};

#define GRT_MAX_VIRTUAL_GPUS 64

extern const grt_backend_options grt_options_gpu;

/* The values as the CUDA backend uses them. */
typedef struct grt_gpu_options {
  bool allow_growth;
  double memory_fraction;                    /* 0 < f <= 1 */
  int64_t virtual_mib[GRT_MAX_VIRTUAL_GPUS]; /* MiB per logical GPU on each card */
  int32_t virtual_count;                     /* 0: one logical GPU per card */
} grt_gpu_options;

/* Reads the values a session handed over (cfg->options, cfg->n_options);
 * missing ones (n shorter than GRT_GPU_NUM_OPTS, or NULL) take their
 * defaults. Fails naming the option whose value is bad. */
GRT_MUST_USE grt_status* grt_gpu_options_parse(const char* const* values, int32_t n,
                                               grt_gpu_options* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_GPU_OPTIONS_H_ */
