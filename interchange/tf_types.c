/* TensorFlow's types in grt's terms: one table maps DataType values. */
#include "interchange/tf_types.h"

#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

/* TensorFlow adds this to a type for its reference form (DT_FLOAT_REF). */
enum { kRefOffset = 100 };

/* The largest tensor a typed value field may be padded out to (or a tensor
 * of no values filled with zeros): a few bytes of GraphDef must not ask for
 * unbounded memory. Larger constants come as tensor_content, whose size the
 * file itself pays for. */
#define MAX_FILLED_TENSOR_BYTES ((size_t)256 << 20)

static const struct {
  int tf;
  const char* name;
  grt_dtype grt; /* GRT_DTYPE_INVALID: grt has no such type */
} kTypes[] = {
    {1, "DT_FLOAT", GRT_FLOAT32},
    {2, "DT_DOUBLE", GRT_FLOAT64},
    {3, "DT_INT32", GRT_INT32},
    {4, "DT_UINT8", GRT_UINT8},
    {5, "DT_INT16", GRT_INT16},
    {6, "DT_INT8", GRT_INT8},
    {7, "DT_STRING", GRT_DTYPE_INVALID},
    {8, "DT_COMPLEX64", GRT_DTYPE_INVALID},
    {9, "DT_INT64", GRT_INT64},
    {10, "DT_BOOL", GRT_BOOL},
    {11, "DT_QINT8", GRT_DTYPE_INVALID},
    {12, "DT_QUINT8", GRT_DTYPE_INVALID},
    {13, "DT_QINT32", GRT_DTYPE_INVALID},
    {14, "DT_BFLOAT16", GRT_BFLOAT16},
    {15, "DT_QINT16", GRT_DTYPE_INVALID},
    {16, "DT_QUINT16", GRT_DTYPE_INVALID},
    {17, "DT_UINT16", GRT_DTYPE_INVALID},
    {18, "DT_COMPLEX128", GRT_DTYPE_INVALID},
    {19, "DT_HALF", GRT_FLOAT16},
    {20, "DT_RESOURCE", GRT_DTYPE_INVALID},
    {21, "DT_VARIANT", GRT_DTYPE_INVALID},
    {22, "DT_UINT32", GRT_DTYPE_INVALID},
    {23, "DT_UINT64", GRT_DTYPE_INVALID},
};
enum { kNumTypes = sizeof kTypes / sizeof kTypes[0] };

grt_status* grt_tf_dtype_read(int tf, grt_dtype* out, bool* is_ref) {
  bool ref = tf > kRefOffset;
  int base = ref ? tf - kRefOffset : tf;
  for (int i = 0; i < kNumTypes; i++) {
    if (kTypes[i].tf != base) continue;
    if (kTypes[i].grt == GRT_DTYPE_INVALID)
      return GRT_ERROR(UNIMPLEMENTED, "type %s%s is not supported by grt", kTypes[i].name,
                       ref ? "_REF" : "");
    *out = kTypes[i].grt;
    if (is_ref) *is_ref = ref;
    return NULL;
  }
  return GRT_ERROR(INVALID_ARGUMENT, "unknown DataType %d", tf);
}

int grt_tf_dtype_of(grt_dtype t) {
  for (int i = 0; i < kNumTypes; i++)
    if (kTypes[i].grt == t && t != GRT_DTYPE_INVALID) return kTypes[i].tf;
  return 0;
}

grt_status* grt_tf_shape_read(const Tensorflow__TensorShapeProto* p, bool allow_unknown,
                              grt_shape* out) {
  memset(out, 0, sizeof *out);
  if (!p) return NULL; /* an absent shape is a scalar */
  if (p->unknown_rank) {
    if (!allow_unknown) return GRT_ERROR(INVALID_ARGUMENT, "shape of unknown rank");
    if (p->n_dim) return GRT_ERROR(INVALID_ARGUMENT, "shape of unknown rank with dimensions");
    out->rank = -1;
    return NULL;
  }
  if (p->n_dim > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "rank %zu exceeds the maximum of %d", p->n_dim,
                     GRT_MAX_RANK);
  out->rank = (int32_t)p->n_dim;
  for (size_t i = 0; i < p->n_dim; i++) {
    int64_t d = p->dim[i]->size;
    if (d < (allow_unknown ? -1 : 0))
      return GRT_ERROR(INVALID_ARGUMENT, "dimension %zu is %lld", i, (long long)d);
    out->dims[i] = d;
  }
  return NULL;
}

/* The typed value field that holds `t`'s elements: its count and element j
 * stored into `data` at i. */
typedef struct {
  size_t n;
  void (*put)(const Tensorflow__TensorProto* p, grt_dtype t, void* data, int64_t i, size_t j);
} value_field;

static void put_float(const Tensorflow__TensorProto* p, grt_dtype t, void* d, int64_t i, size_t j) {
  ((float*)d)[i] = p->float_val[j];
}
static void put_double(const Tensorflow__TensorProto* p, grt_dtype t, void* d, int64_t i,
                       size_t j) {
  ((double*)d)[i] = p->double_val[j];
}
static void put_int(const Tensorflow__TensorProto* p, grt_dtype t, void* d, int64_t i, size_t j) {
  grt_dtype_store_int(t, d, i, p->int_val[j]);
}
static void put_int64(const Tensorflow__TensorProto* p, grt_dtype t, void* d, int64_t i, size_t j) {
  ((int64_t*)d)[i] = p->int64_val[j];
}
static void put_bool(const Tensorflow__TensorProto* p, grt_dtype t, void* d, int64_t i, size_t j) {
  ((bool*)d)[i] = p->bool_val[j] != 0;
}
/* float16 and bfloat16 travel as their bits in half_val. */
static void put_half(const Tensorflow__TensorProto* p, grt_dtype t, void* d, int64_t i, size_t j) {
  ((uint16_t*)d)[i] = (uint16_t)p->half_val[j];
}

static value_field field_for(const Tensorflow__TensorProto* p, grt_dtype t) {
  switch (t) {
    case GRT_FLOAT32:
      return (value_field){p->n_float_val, put_float};
    case GRT_FLOAT64:
      return (value_field){p->n_double_val, put_double};
    case GRT_INT64:
      return (value_field){p->n_int64_val, put_int64};
    case GRT_BOOL:
      return (value_field){p->n_bool_val, put_bool};
    case GRT_FLOAT16:
    case GRT_BFLOAT16:
      return (value_field){p->n_half_val, put_half};
    default:
      return (value_field){p->n_int_val, put_int}; /* int32, int16, int8, uint8 */
  }
}

grt_status* grt_tf_tensor_read(const Tensorflow__TensorProto* p, grt_tensor** out) {
  *out = NULL;
  grt_dtype t;
  GRT_RETURN_IF_ERROR(grt_tf_dtype_read(p->dtype, &t, NULL));
  grt_shape shape;
  grt_status* s = grt_tf_shape_read(p->tensor_shape, false, &shape);
  if (s) return grt_status_prefix(s, "tensor shape");
  size_t bytes;
  if (!grt_tensor_bytes_for(t, &shape, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT, "tensor of %s is too large", grt_dtype_name(t));
  int64_t n = 1;
  for (int32_t i = 0; i < shape.rank; i++) n *= shape.dims[i];
  value_field field = field_for(p, t);
  if (p->tensor_content.len > 0) {
    if (p->tensor_content.len != bytes)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "tensor_content holds %zu bytes; %lld %s elements need %zu",
                       p->tensor_content.len, (long long)n, grt_dtype_name(t), bytes);
  } else {
    if (field.n > (size_t)n)
      return GRT_ERROR(INVALID_ARGUMENT, "%zu values for a tensor of %lld elements", field.n,
                       (long long)n);
    if (bytes > MAX_FILLED_TENSOR_BYTES)
      return GRT_ERROR(INVALID_ARGUMENT, "tensor of %zu bytes filled from %zu values is too large",
                       bytes, field.n);
  }
  grt_tensor* tensor;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, shape.rank, shape.dims, &tensor));
  void* data = grt_tensor_data(tensor);
  if (p->tensor_content.len > 0) {
    memcpy(data, p->tensor_content.data, bytes);
  } else if (field.n > 0) {
    int64_t given = (int64_t)field.n < n ? (int64_t)field.n : n;
    for (int64_t i = 0; i < given; i++) field.put(p, t, data, i, (size_t)i);
    /* The rest repeats the last value: copy it in doubling blocks. */
    size_t esize = grt_dtype_size(t);
    size_t done = (size_t)given, total = (size_t)n;
    if (done > 0 && done < total) {
      char* bytes_out = data;
      memcpy(bytes_out + done * esize, bytes_out + (done - 1) * esize, esize);
      size_t filled = 1; /* elements equal to the last value, from `done` on */
      while (done + filled < total) {
        size_t k = filled < total - done - filled ? filled : total - done - filled;
        memcpy(bytes_out + (done + filled) * esize, bytes_out + done * esize, k * esize);
        filled += k;
      }
    }
  }
  *out = tensor;
  return NULL;
}
