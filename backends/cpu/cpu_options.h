/* The CPU's session options (cpu.devices), compiled into the core library
 * beside the CPU's support rows. Sees only grt/backend.h. */
#ifndef GRT_BACKENDS_CPU_CPU_OPTIONS_H_
#define GRT_BACKENDS_CPU_CPU_OPTIONS_H_

#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The declarations' order: grt_device_config.options[GRT_CPU_OPT_...]. */
enum {
  GRT_CPU_OPT_DEVICES = 0,
  GRT_CPU_NUM_OPTS = 1,
};

extern const grt_backend_options grt_options_cpu;

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_CPU_OPTIONS_H_ */
