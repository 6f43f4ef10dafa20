/* A backend's table of kernel support rows (grt_kernel_spec, the syntax in
 * kernel_registry.h), as a backend folder declares it for the core library:
 * the built-in device types' tables live in their backends' folders
 * (backends/cpu/support_cpu.c, backends/cuda/support_gpu.c) and see only
 * this header, so a backend's rows sit beside its kernels. */
#ifndef GRT_KERNELS_KERNEL_TABLE_H_
#define GRT_KERNELS_KERNEL_TABLE_H_

#include <stdint.h>

#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_kernel_table {
  const char* device;
  const grt_kernel_spec* rows;
  int32_t n;
} grt_kernel_table;

/* After a type attr's dtype set in a row's constraints: the row stands
 * for a second one, the same with that attr int32 and every argument of the
 * op in host memory (TensorFlow's int32-on-host registrations; the rule in
 * kernel_registry.h). */
#define GRT_INT32_ON_HOST " + int32 on host"

#define GRT_KERNEL_TABLE(var, dev, rows) \
  const grt_kernel_table var = {dev, rows, (int32_t)(sizeof(rows) / sizeof((rows)[0]))}

#ifdef __cplusplus
}
#endif

#endif /* GRT_KERNELS_KERNEL_TABLE_H_ */
