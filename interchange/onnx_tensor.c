/* ONNX tensors: one table maps data types; values come from raw_data or the
 * typed field ONNX stores each type in. */
#include "base/mem.h"
#include "interchange/onnx_tensor.h"

#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/interchange.h"
#include "interchange/protobuf_alloc.h"
#include "interchange/protobuf_depth.h"

static const struct {
  int32_t onnx;
  const char* name;
  grt_dtype grt; /* GRT_DTYPE_INVALID: grt has no such type */
} kTypes[] = {
    {1, "FLOAT", GRT_FLOAT32},
    {2, "UINT8", GRT_UINT8},
    {3, "INT8", GRT_INT8},
    {4, "UINT16", GRT_DTYPE_INVALID},
    {5, "INT16", GRT_INT16},
    {6, "INT32", GRT_INT32},
    {7, "INT64", GRT_INT64},
    {8, "STRING", GRT_DTYPE_INVALID},
    {9, "BOOL", GRT_BOOL},
    {10, "FLOAT16", GRT_FLOAT16},
    {11, "DOUBLE", GRT_FLOAT64},
    {12, "UINT32", GRT_DTYPE_INVALID},
    {13, "UINT64", GRT_DTYPE_INVALID},
    {14, "COMPLEX64", GRT_DTYPE_INVALID},
    {15, "COMPLEX128", GRT_DTYPE_INVALID},
    {16, "BFLOAT16", GRT_BFLOAT16},
};
enum { kNumTypes = sizeof kTypes / sizeof kTypes[0] };

grt_status* grt_onnx_dtype_read(int64_t onnx, grt_dtype* out) {
  for (int i = 0; i < kNumTypes; i++) {
    if (kTypes[i].onnx != onnx) continue;
    if (kTypes[i].grt == GRT_DTYPE_INVALID)
      return GRT_ERROR(UNIMPLEMENTED, "data type %s is not supported by grt", kTypes[i].name);
    *out = kTypes[i].grt;
    return NULL;
  }
  return GRT_ERROR(UNIMPLEMENTED, "data type %lld is not supported by grt", (long long)onnx);
}

int32_t grt_onnx_dtype_of(grt_dtype t) {
  for (int i = 0; i < kNumTypes; i++)
    if (kTypes[i].grt == t && t != GRT_DTYPE_INVALID) return kTypes[i].onnx;
  return 0;
}

grt_status* grt_onnx_tensor_read(const Onnx__TensorProto* p, grt_tensor** out) {
  *out = NULL;
  grt_dtype t;
  GRT_RETURN_IF_ERROR(grt_onnx_dtype_read(p->data_type, &t));
  if (p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return GRT_ERROR(UNIMPLEMENTED, "tensors with external data are not supported");
  if (p->n_dims > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "rank %zu exceeds the maximum of %d", p->n_dims,
                     GRT_MAX_RANK);
  grt_shape shape = {.rank = (int32_t)p->n_dims};
  for (size_t i = 0; i < p->n_dims; i++) {
    if (p->dims[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "dimension %zu is %lld", i, (long long)p->dims[i]);
    shape.dims[i] = p->dims[i];
  }
  size_t bytes;
  if (!grt_tensor_bytes_for(t, &shape, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT, "tensor of %s is too large", grt_dtype_name(t));
  size_t n = grt_dtype_size(t) ? bytes / grt_dtype_size(t) : 0;
  /* Where ONNX keeps each type when raw_data is not used. */
  size_t have;
  switch (t) {
    case GRT_FLOAT32:
      have = p->n_float_data;
      break;
    case GRT_FLOAT64:
      have = p->n_double_data;
      break;
    case GRT_INT64:
      have = p->n_int64_data;
      break;
    default:
      have = p->n_int32_data;
      break; /* int32 and narrower, bool, float16 bits */
  }
  if (p->has_raw_data) {
    if (p->raw_data.len != bytes)
      return GRT_ERROR(INVALID_ARGUMENT, "raw_data holds %zu bytes; %zu %s elements need %zu",
                       p->raw_data.len, n, grt_dtype_name(t), bytes);
  } else if (have != n) {
    return GRT_ERROR(INVALID_ARGUMENT, "%zu values for a tensor of %zu elements", have, n);
  }
  grt_tensor* tensor;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, shape.rank, shape.dims, &tensor));
  void* data = grt_tensor_data(tensor);
  if (p->has_raw_data) {
    if (bytes) memcpy(data, p->raw_data.data, bytes);
  } else {
    for (size_t i = 0; i < n; i++) {
      switch (t) {
        case GRT_FLOAT32:
          ((float*)data)[i] = p->float_data[i];
          break;
        case GRT_FLOAT64:
          ((double*)data)[i] = p->double_data[i];
          break;
        case GRT_INT64:
          ((int64_t*)data)[i] = p->int64_data[i];
          break;
        case GRT_FLOAT16:
        case GRT_BFLOAT16:
          ((uint16_t*)data)[i] = (uint16_t)p->int32_data[i];
          break;
        case GRT_BOOL:
          ((bool*)data)[i] = p->int32_data[i] != 0;
          break;
        default:
          grt_dtype_store_int(t, data, (int64_t)i, p->int32_data[i]);
          break;
      }
    }
  }
  *out = tensor;
  return NULL;
}

static void free_taken(void* data, size_t len, void* arg) { grt_free(data); }

grt_status* grt_onnx_tensor_take(Onnx__TensorProto* p, grt_tensor** out) {
  *out = NULL;
  grt_dtype t;
  grt_status* bad_type = grt_onnx_dtype_read(p->data_type, &t);
  if (bad_type || !p->has_raw_data || !p->raw_data.data || p->raw_data.len == 0 ||
      p->n_dims > GRT_MAX_RANK ||
      (p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
    grt_status_free(bad_type);
    return grt_onnx_tensor_read(p, out); /* the copying path reports any error */
  }
  int64_t dims[GRT_MAX_RANK];
  for (size_t i = 0; i < p->n_dims; i++) dims[i] = p->dims[i];
  grt_tensor* tensor;
  /* grt_tensor_wrap checks dims, the byte count and alignment; when it
   * refuses, the copying path says why (or copies a misaligned block). */
  uint8_t* data = p->raw_data.data;
  grt_shape shape = {.rank = (int32_t)p->n_dims};
  memcpy(shape.dims, dims, p->n_dims * sizeof dims[0]);
  size_t bytes;
  if (!grt_tensor_bytes_for(t, &shape, &bytes) || bytes != p->raw_data.len)
    return grt_onnx_tensor_read(p, out);
  grt_status* s = grt_tensor_wrap(data, t, (int32_t)p->n_dims, dims, free_taken, NULL, &tensor);
  if (s) {
    grt_status_free(s);
    return grt_onnx_tensor_read(p, out);
  }
  p->raw_data.data = NULL; /* the tensor owns it now */
  p->raw_data.len = 0;
  *out = tensor;
  return NULL;
}

grt_status* grt_onnx_tensor_parse(const void* data, size_t len, grt_tensor** out) {
  *out = NULL;
  GRT_RETURN_IF_ERROR(
      grt_protobuf_check_depth(&onnx__tensor_proto__descriptor, data, len, "ONNX TensorProto"));
  Onnx__TensorProto* p =
      onnx__tensor_proto__unpack(grt_protobuf_allocator(), len, (const uint8_t*)data);
  if (!p) return GRT_ERROR(INVALID_ARGUMENT, "not an ONNX TensorProto (protobuf parse failed)");
  grt_status* s = grt_onnx_tensor_read(p, out);
  onnx__tensor_proto__free_unpacked(p, grt_protobuf_allocator());
  return s;
}
