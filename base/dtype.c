#include "base/dtype.h"

#include <math.h>
#include <string.h>

typedef struct {
  const char* name;
  size_t size;
  bool is_float;
  bool is_integer;
} dtype_info;

/* Indexed by grt_dtype. */
static const dtype_info kDtypes[GRT_NUM_DTYPES] = {
    [GRT_DTYPE_INVALID] = {"invalid", 0, false, false},
    [GRT_FLOAT16] = {"float16", 2, true, false},
    [GRT_BFLOAT16] = {"bfloat16", 2, true, false},
    [GRT_FLOAT32] = {"float32", 4, true, false},
    [GRT_FLOAT64] = {"float64", 8, true, false},
    [GRT_INT8] = {"int8", 1, false, true},
    [GRT_INT16] = {"int16", 2, false, true},
    [GRT_INT32] = {"int32", 4, false, true},
    [GRT_INT64] = {"int64", 8, false, true},
    [GRT_UINT8] = {"uint8", 1, false, true},
    [GRT_BOOL] = {"bool", 1, false, false},
};

const char* grt_dtype_name(grt_dtype t) { return grt_dtype_valid(t) ? kDtypes[t].name : "invalid"; }

size_t grt_dtype_size(grt_dtype t) { return grt_dtype_valid(t) ? kDtypes[t].size : 0; }

bool grt_dtype_from_name(const char* name, grt_dtype* out) {
  if (!name) return false;
  for (int t = 1; t < GRT_NUM_DTYPES; t++) {
    if (strcmp(name, kDtypes[t].name) == 0) {
      *out = (grt_dtype)t;
      return true;
    }
  }
  return false;
}

bool grt_dtype_is_float(grt_dtype t) { return grt_dtype_valid(t) && kDtypes[t].is_float; }
bool grt_dtype_is_integer(grt_dtype t) { return grt_dtype_valid(t) && kDtypes[t].is_integer; }

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

float grt_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13)); /* inf/nan */
  if (exp == 0) {
    /* zero or subnormal: man * 2^-24 */
    float v = (float)man * 0x1p-24f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t grt_float_to_half(float f) {
  uint32_t u = float_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) /* inf or nan (keep nan quiet) */
    return sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0);
  if (abs >= 0x477ff000u) return sign | 0x7c00; /* rounds to >= 65520: inf */
  if (abs < 0x38800000u) {
    /* subnormal half (or zero): round(|f| * 2^24) to nearest even */
    float a = bits_float(abs) * 0x1p24f;
    float r = nearbyintf(a); /* default rounding mode is to nearest even */
    return sign | (uint16_t)r;
  }
  /* normal: rebias exponent, round mantissa to nearest even on bit 13 */
  uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return sign | (uint16_t)((rounded - 0x38000000u) >> 13);
}

float grt_bfloat16_to_float(uint16_t b) { return bits_float((uint32_t)b << 16); }

uint16_t grt_float_to_bfloat16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet nan */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

double grt_dtype_load_double(grt_dtype t, const void* data, int64_t i) {
  switch (t) {
    case GRT_FLOAT16:
      return grt_half_to_float(((const uint16_t*)data)[i]);
    case GRT_BFLOAT16:
      return grt_bfloat16_to_float(((const uint16_t*)data)[i]);
    case GRT_FLOAT32:
      return ((const float*)data)[i];
    case GRT_FLOAT64:
      return ((const double*)data)[i];
    default:
      return (double)grt_dtype_load_int(t, data, i);
  }
}

/* v rounded toward zero into int64_t, saturating, NaN as 0: a double out
 * of range converted with a cast is undefined behaviour (an input can put
 * any double here: an ONNX model's epsilon on an integer tensor). */
static int64_t saturate_int64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

void grt_dtype_store_double(grt_dtype t, void* data, int64_t i, double v) {
  switch (t) {
    case GRT_FLOAT16:
      ((uint16_t*)data)[i] = grt_float_to_half((float)v);
      return;
    case GRT_BFLOAT16:
      ((uint16_t*)data)[i] = grt_float_to_bfloat16((float)v);
      return;
    case GRT_FLOAT32:
      ((float*)data)[i] = (float)v;
      return;
    case GRT_FLOAT64:
      ((double*)data)[i] = v;
      return;
    default:
      grt_dtype_store_int(t, data, i, saturate_int64(v));
      return;
  }
}

int64_t grt_dtype_load_int(grt_dtype t, const void* data, int64_t i) {
  switch (t) {
    case GRT_INT8:
      return ((const int8_t*)data)[i];
    case GRT_INT16:
      return ((const int16_t*)data)[i];
    case GRT_INT32:
      return ((const int32_t*)data)[i];
    case GRT_INT64:
      return ((const int64_t*)data)[i];
    case GRT_UINT8:
      return ((const uint8_t*)data)[i];
    case GRT_BOOL:
      return ((const uint8_t*)data)[i] != 0;
    case GRT_FLOAT16:
    case GRT_BFLOAT16:
    case GRT_FLOAT32:
    case GRT_FLOAT64:
      return (int64_t)grt_dtype_load_double(t, data, i);
    default:
      return 0;
  }
}

void grt_dtype_store_int(grt_dtype t, void* data, int64_t i, int64_t v) {
  switch (t) {
    case GRT_INT8:
      ((int8_t*)data)[i] = (int8_t)v;
      return;
    case GRT_INT16:
      ((int16_t*)data)[i] = (int16_t)v;
      return;
    case GRT_INT32:
      ((int32_t*)data)[i] = (int32_t)v;
      return;
    case GRT_INT64:
      ((int64_t*)data)[i] = v;
      return;
    case GRT_UINT8:
      ((uint8_t*)data)[i] = (uint8_t)v;
      return;
    case GRT_BOOL:
      ((uint8_t*)data)[i] = v != 0;
      return;
    case GRT_FLOAT16:
    case GRT_BFLOAT16:
    case GRT_FLOAT32:
    case GRT_FLOAT64:
      grt_dtype_store_double(t, data, i, (double)v);
      return;
    default:
      return;
  }
}
