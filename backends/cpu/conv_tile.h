/* The end of a register tile in grt's own convolution kernels
 * (conv_depthwise.c, conv_stem.c): n outputs x m vectors of W floats in
 * acc[i * m + k], finished with the clip activations in registers and
 * stored to o at a row stride of `stride` floats. Both kernels build their
 * tiles in macros compiled once per vector width; this is the part they
 * share. */
#ifndef GRT_BACKENDS_CPU_CONV_TILE_H_
#define GRT_BACKENDS_CPU_CONV_TILE_H_

#include "backends/cpu/conv_depthwise.h"

#define GRT_TILE_PRAGMA(x) _Pragma(#x)

/* VT/VI: the float and int vector types of width W; UNROLL: the tile's
 * most outputs (the loops' unroll count); clip: a grt_dw_act, of which
 * Relu (with `alpha` below zero: LeakyRelu) and Relu6 apply here. */
#define GRT_TILE_FINISH(VT, VI, W, UNROLL, acc, n, m, clip, alpha, o, stride)           \
  do {                                                                                  \
    const VT zero_ = {0}, six_ = zero_ + 6.0f;                                          \
    GRT_TILE_PRAGMA(GCC unroll UNROLL) for (int i_ = 0; i_ < (n) * (m); i_++) {         \
      if ((clip) == GRT_DW_ACT_RELU) {                                                  \
        VI pos_ = (acc)[i_] > zero_;                                                    \
        (acc)[i_] = (VT)(((VI)(acc)[i_] & pos_) | ((VI)((acc)[i_] * (alpha)) & ~pos_)); \
      } else if ((clip) == GRT_DW_ACT_RELU6) {                                          \
        (acc)[i_] = (VT)((VI)(acc)[i_] & ((acc)[i_] > zero_));                          \
        VI low_ = (acc)[i_] < six_;                                                     \
        (acc)[i_] = (VT)(((VI)(acc)[i_] & low_) | ((VI)six_ & ~low_));                  \
      }                                                                                 \
    }                                                                                   \
    GRT_TILE_PRAGMA(GCC unroll UNROLL) for (int i_ = 0; i_ < (n); i_++) {               \
      GRT_TILE_PRAGMA(GCC unroll 4) for (int k_ = 0; k_ < (m); k_++) {                  \
        *(VT*)((o) + i_ * (stride) + k_ * (W)) = (acc)[i_ * (m) + k_];                  \
      }                                                                                 \
    }                                                                                   \
  } while (0)

#endif /* GRT_BACKENDS_CPU_CONV_TILE_H_ */
