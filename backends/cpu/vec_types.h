/* The vector types of the CPU kernels written with GCC's vector extension
 * (conv_depthwise.c, conv_stem.c, nn_attention.c, matmul_gemv.c): one
 * vector of W floats, compiled per target (16 with AVX-512, 8 with AVX2,
 * 4 at the baseline), and the masks of their comparisons. aligned(4):
 * loads and stores through them may be unaligned. */
#ifndef GRT_BACKENDS_CPU_VEC_TYPES_H_
#define GRT_BACKENDS_CPU_VEC_TYPES_H_

#include <stdint.h>

typedef float vf16 __attribute__((vector_size(64), aligned(4)));
typedef float vf8 __attribute__((vector_size(32), aligned(4)));
typedef float vf4 __attribute__((vector_size(16), aligned(4)));
typedef int32_t vi16 __attribute__((vector_size(64)));
typedef int32_t vi8 __attribute__((vector_size(32)));
typedef int32_t vi4 __attribute__((vector_size(16)));

#endif /* GRT_BACKENDS_CPU_VEC_TYPES_H_ */
