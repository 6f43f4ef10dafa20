/* Einsum equations ("ij,jk->ik", "...ii->...i") parsed against the
 * operands' shapes: one parser for the Einsum shape function (ops/) and the
 * backends' Einsum kernels, so both read an equation alike. */
#ifndef GRT_OPS_EINSUM_PARSE_H_
#define GRT_OPS_EINSUM_PARSE_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/shape.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRT_EINSUM_MAX_INPUTS 8
/* Labels 0..51 are the letters a-z, A-Z; 52.. the axes "..." stands for. */
#define GRT_EINSUM_LETTERS 52
#define GRT_EINSUM_LABELS (GRT_EINSUM_LETTERS + GRT_MAX_RANK)

typedef struct grt_einsum {
  int32_t sub[GRT_EINSUM_MAX_INPUTS][GRT_MAX_RANK]; /* each input axis's label */
  int32_t out[GRT_MAX_RANK];                        /* the output axes' labels */
  int32_t n_out;
  int64_t size[GRT_EINSUM_LABELS]; /* -1 where no known shape fixes it */
  bool used[GRT_EINSUM_LABELS];    /* in some input */
  bool in_out[GRT_EINSUM_LABELS];  /* in the output */
} grt_einsum;

/* Parses `equation` (spaces ignored, "->" required) for n operands of the
 * given shapes (rank -1: unknown; then *out keeps sizes -1 and the output
 * rank is -1 when it depends on it: out->n_out < 0). Sizes must agree,
 * except that an axis of size 1 under "..." broadcasts. */
GRT_MUST_USE grt_status* grt_einsum_parse(const char* equation, int32_t n, const grt_shape* shapes,
                                          grt_einsum* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_EINSUM_PARSE_H_ */
