/* The reduction family's kernel table (kernels in reduce_*.c).
 * BroadcastGradientArgs, an array op, is in the array family. */
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/reduce.h"

#define K(op, fn) \
  { op, grt_cpu_##fn, NULL, NULL, 0 }

GRT_CPU_KERNEL_TABLE(reduce, K("Sum", sum), K("Mean", mean), K("Prod", prod), K("Max", max),
                     K("Min", min), K("ArgMax", arg_max));
