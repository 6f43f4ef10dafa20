/* Shape functions that change the rank without moving data: Reshape,
 * Squeeze and ExpandDims, and the arithmetic their kernels share
 * (ops/reshape.h). */
#include "ops/reshape.h"

#include "grt/op_semantics.h"

#include "base/checked.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/shape_fns.h"

static grt_status* cannot_reshape(int64_t in_n, int32_t rank, const int64_t* dims,
                                  bool kernel_wording) {
  grt_shape s = grt_shape_make(rank, dims);
  if (kernel_wording)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Input to reshape is a tensor with %lld values, but the requested shape has "
                     "%lld",
                     (long long)in_n, (long long)grt_shape_num_elements(&s));
  int64_t known = 1;
  bool overflow = false;
  for (int32_t i = 0; i < rank; i++)
    if (dims[i] >= 0 && !grt_checked_mul_i64(known, dims[i], &known)) overflow = true;
  char buf[GRT_SHAPE_STR_MAX];
  if (overflow)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Cannot reshape a tensor with %lld elements to shape %s (its element count "
                     "overflows int64)",
                     (long long)in_n, grt_shape_str(&s, buf, sizeof buf));
  return GRT_ERROR(INVALID_ARGUMENT,
                   "Cannot reshape a tensor with %lld elements to shape %s (%lld elements)",
                   (long long)in_n, grt_shape_str(&s, buf, sizeof buf), (long long)known);
}

grt_status* grt_reshape_resolve(const grt_shape* in, int32_t rank, int64_t* dims,
                                bool kernel_wording) {
  int64_t product = 1; /* of the requested sizes other than -1 and 0 */
  int32_t unknown = -1;
  bool has_zero = false;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] == -1) {
      if (unknown >= 0)
        return GRT_ERROR(INVALID_ARGUMENT, "Only one input size may be -1, not both %d and %d",
                         (int)unknown, (int)i);
      unknown = i;
    } else if (dims[i] < 0) {
      return GRT_ERROR(INVALID_ARGUMENT, "Size %d must be non-negative, not %lld", (int)i,
                       (long long)dims[i]);
    } else if (dims[i] == 0) {
      has_zero = true;
    } else if (!grt_checked_mul_i64(product, dims[i], &product)) {
      return GRT_ERROR(INVALID_ARGUMENT, "the requested shape's element count overflows int64");
    }
  }
  int64_t in_n = grt_shape_num_elements(in);
  if (in_n < 0) return NULL; /* not fully known (or beyond int64): the -1 stays */
  if (unknown >= 0) {
    /* With a zero among the requested sizes the input's zeros are left out
     * too, so the other sizes still tell the missing one. */
    int64_t known_in = 1;
    bool in_has_zero = false;
    for (int32_t d = 0; d < in->rank; d++) {
      if (in->dims[d] == 0 && has_zero)
        in_has_zero = true;
      else if (!grt_checked_mul_i64(known_in, in->dims[d], &known_in))
        return cannot_reshape(in_n, rank, dims, kernel_wording);
    }
    int64_t missing = known_in / product;
    if (!in_has_zero && product * missing != known_in) {
      if (kernel_wording)
        return GRT_ERROR(INVALID_ARGUMENT,
                         "Input to reshape is a tensor with %lld values, but the requested shape "
                         "requires a multiple of %lld",
                         (long long)known_in, (long long)product);
      return cannot_reshape(in_n, rank, dims, false);
    }
    int64_t requested[GRT_MAX_RANK];
    for (int32_t i = 0; i < rank; i++) requested[i] = dims[i];
    requested[unknown] = missing;
    int64_t want_n = has_zero ? 0 : product * missing;
    if (want_n != in_n)
      return cannot_reshape(in_n, rank, kernel_wording ? requested : dims, kernel_wording);
    dims[unknown] = missing;
    return NULL;
  }
  if ((has_zero ? 0 : product) != in_n) return cannot_reshape(in_n, rank, dims, kernel_wording);
  return NULL;
}

grt_status* grt_infer_reshape(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 1));
  const grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 1, &t));
  if (!t) {
    /* The shape's length still gives the rank. */
    const grt_shape* sh = &c->input_shapes[1];
    if (sh->rank == 1 && sh->dims[0] >= 0)
      return grt_infer_unknown_dims(
          (int32_t)(sh->dims[0] > GRT_MAX_RANK ? GRT_MAX_RANK + 1 : sh->dims[0]),
          &c->output_shapes[0]);
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  if (t->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "shape must be a vector, got rank %d", (int)t->shape.rank);
  int64_t n = grt_infer_value_count(t);
  if (n > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "shape has %lld dimensions, above the maximum %d",
                     (long long)n, GRT_MAX_RANK);
  int64_t dims[GRT_MAX_RANK];
  int32_t rank = (int32_t)n;
  for (int32_t i = 0; i < rank; i++) dims[i] = grt_infer_value(t, i);
  GRT_RETURN_IF_ERROR(grt_reshape_resolve(&c->input_shapes[0], rank, dims, false));
  return grt_infer_make(rank, dims, &c->output_shapes[0]);
}

grt_status* grt_op_reshape_resolve(const grt_shape* in, const int64_t* requested, int32_t n,
                                   grt_shape* out) {
  if (n < 0 || n > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "the requested shape has %d sizes, at most %d are supported",
                     (int)n, GRT_MAX_RANK);
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < n; i++) dims[i] = requested[i];
  GRT_RETURN_IF_ERROR(grt_reshape_resolve(in, n, dims, true));
  *out = grt_shape_make(n, dims);
  return NULL;
}

grt_status* grt_op_squeeze_shape(const grt_shape* in, const int64_t* axes, int32_t n_axes,
                                 grt_shape* out) {
  bool chosen[GRT_MAX_RANK] = {false};
  for (int32_t k = 0; k < n_axes; k++) {
    int32_t a;
    if (!grt_infer_axis(axes[k], in->rank, &a))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Tried to squeeze dim index %lld for tensor with %d dimensions.",
                       (long long)axes[k], (int)in->rank);
    chosen[a] = true;
  }
  grt_shape s = {0};
  for (int32_t i = 0; i < in->rank; i++) {
    int64_t d = in->dims[i];
    if (n_axes > 0) {
      if (!chosen[i]) {
        s.dims[s.rank++] = d;
      } else if (d >= 0 && d != 1) {
        return GRT_ERROR(INVALID_ARGUMENT,
                         "Can not squeeze dim[%d], expected a dimension of 1, got %lld", (int)i,
                         (long long)d);
      }
      continue;
    }
    /* Squeezing every size-1 dim: an unknown one may or may not go. */
    if (d < 0) {
      *out = grt_shape_unknown();
      return NULL;
    }
    if (d != 1) s.dims[s.rank++] = d;
  }
  *out = s;
  return NULL;
}

grt_status* grt_infer_squeeze(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  const int64_t* axes;
  int32_t n_axes;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int_list(c, "squeeze_dims", &axes, &n_axes));
  const grt_shape* in = &c->input_shapes[0];
  if (in->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  return grt_op_squeeze_shape(in, axes, n_axes, &c->output_shapes[0]);
}

grt_status* grt_op_expand_dims_shape(const grt_shape* in, int64_t dim, grt_shape* out) {
  if (dim < -(int64_t)in->rank - 1 || dim > in->rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Tried to expand dim index %lld for tensor with %d dimensions.",
                     (long long)dim, (int)in->rank);
  int32_t at = (int32_t)(dim < 0 ? dim + in->rank + 1 : dim);
  int64_t dims[GRT_MAX_RANK + 1];
  for (int32_t i = 0, k = 0; i <= in->rank; i++) dims[i] = i == at ? 1 : in->dims[k++];
  return grt_infer_make(in->rank + 1, dims, out);
}

grt_status* grt_infer_expand_dims(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  const grt_shape* in = &c->input_shapes[0];
  bool known;
  int64_t v;
  GRT_RETURN_IF_ERROR(grt_infer_const_scalar(c, 1, &known, &v));
  if (in->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  if (!known) return grt_infer_unknown_dims(in->rank + 1, &c->output_shapes[0]);
  return grt_op_expand_dims_shape(in, v, &c->output_shapes[0]);
}
