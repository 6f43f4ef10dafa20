// Core types: status, dtypes and half precision, shapes, tensors, arena, map.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "base/arena.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/strmap.h"
#include "base/tensor.h"
}

TEST(Status, CarriesCodeAndMessage) {
  grt_status* s = GRT_ERROR(NOT_FOUND, "node '%s' is missing", "x");
  EXPECT_EQ(grt_status_code(s), GRT_NOT_FOUND);
  EXPECT_STREQ(grt_status_message(s), "node 'x' is missing");
  s = grt_status_prefix(s, "model.json");
  EXPECT_STREQ(grt_status_message(s), "model.json: node 'x' is missing");
  EXPECT_EQ(grt_status_code(s), GRT_NOT_FOUND);
  grt_status_free(s);
  EXPECT_EQ(grt_status_code(nullptr), GRT_OK);
  EXPECT_STREQ(grt_status_message(nullptr), "");
  grt_status_free(nullptr);
  EXPECT_STREQ(grt_code_name(GRT_DATA_LOSS), "DATA_LOSS");
}

TEST(Status, OkCodeIsNeverReturnedAsError) {
  grt_status* s = grt_status_new(GRT_OK, "odd");
  EXPECT_NE(grt_status_code(s), GRT_OK);
  grt_status_free(s);
}

TEST(Dtype, TableNamesAndSizes) {
  const char* names[] = {"float16", "bfloat16", "float32", "float64", "int8",
                         "int16",   "int32",    "int64",   "uint8",   "bool"};
  const size_t sizes[] = {2, 2, 4, 8, 1, 2, 4, 8, 1, 1};
  for (int i = 0; i < 10; i++) {
    grt_dtype t;
    ASSERT_TRUE(grt_dtype_from_name(names[i], &t)) << names[i];
    EXPECT_EQ(t, static_cast<grt_dtype>(i + 1));
    EXPECT_STREQ(grt_dtype_name(t), names[i]);
    EXPECT_EQ(grt_dtype_size(t), sizes[i]);
  }
  grt_dtype t;
  EXPECT_FALSE(grt_dtype_from_name("float", &t));
  EXPECT_FALSE(grt_dtype_from_name("", &t));
  EXPECT_EQ(grt_dtype_size(static_cast<grt_dtype>(99)), 0u);
  EXPECT_STREQ(grt_dtype_name(static_cast<grt_dtype>(-3)), "invalid");
}

// An out-of-range double stored into an integer dtype saturates instead of
// being undefined behaviour (found by fuzz_onnx_reader: a BatchNormalization
// epsilon of 4.6e27 on an int64 input).
TEST(Dtype, StoreDoubleIntoIntegersSaturates) {
  int64_t v[4];
  grt_dtype_store_double(GRT_INT64, v, 0, 4.5919e27);
  grt_dtype_store_double(GRT_INT64, v, 1, -4.5919e27);
  grt_dtype_store_double(GRT_INT64, v, 2, std::nan(""));
  grt_dtype_store_double(GRT_INT64, v, 3, -7.9);
  EXPECT_EQ(v[0], INT64_MAX);
  EXPECT_EQ(v[1], INT64_MIN);
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], -7);
}

TEST(Dtype, HalfRoundTripsEveryValue) {
  // Every finite half converts to float and back to the same bits.
  for (uint32_t h = 0; h < 0x10000; h++) {
    uint16_t bits = static_cast<uint16_t>(h);
    float f = grt_half_to_float(bits);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(grt_half_to_float(grt_float_to_half(f))));
      continue;
    }
    EXPECT_EQ(grt_float_to_half(f), bits) << std::hex << h;
  }
}

TEST(Dtype, HalfKnownValuesAndRounding) {
  EXPECT_EQ(grt_float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(grt_float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(grt_float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(grt_float_to_half(65520.0f), 0x7c00);                // rounds to infinity
  EXPECT_EQ(grt_float_to_half(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(grt_float_to_half(1e-10f), 0x0000);
  // 1 + 2^-11 is halfway between 1 and the next half: ties go to even (1.0).
  EXPECT_EQ(grt_float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 is halfway between two halves; even is the upper one.
  EXPECT_EQ(grt_float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_FLOAT_EQ(grt_half_to_float(0x3555), 0.333251953125f);
}

TEST(Dtype, Bfloat16) {
  EXPECT_EQ(grt_float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_FLOAT_EQ(grt_bfloat16_to_float(0x3f80), 1.0f);
  for (uint32_t b = 0; b < 0x10000; b++) {
    float f = grt_bfloat16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    EXPECT_EQ(grt_float_to_bfloat16(f), b);
  }
}

TEST(Dtype, LoadStoreEveryType) {
  for (int t = 1; t < GRT_NUM_DTYPES; t++) {
    alignas(8) unsigned char buf[16] = {0};
    grt_dtype d = static_cast<grt_dtype>(t);
    grt_dtype_store_int(d, buf, 1, 1);
    EXPECT_EQ(grt_dtype_load_int(d, buf, 1), 1) << grt_dtype_name(d);
    EXPECT_EQ(grt_dtype_load_double(d, buf, 1), 1.0) << grt_dtype_name(d);
  }
  // Invalid types neither recurse nor write.
  unsigned char buf[8] = {7};
  grt_dtype_store_int(GRT_DTYPE_INVALID, buf, 0, 5);
  EXPECT_EQ(buf[0], 7);
  EXPECT_EQ(grt_dtype_load_int(GRT_DTYPE_INVALID, buf, 0), 0);
}

TEST(Shape, NumElementsMergeAndPrint) {
  int64_t d[] = {2, -1, 3};
  grt_shape s = grt_shape_make(3, d);
  EXPECT_FALSE(grt_shape_fully_known(&s));
  EXPECT_EQ(grt_shape_num_elements(&s), -1);
  char buf[GRT_SHAPE_STR_MAX];
  EXPECT_STREQ(grt_shape_str(&s, buf, sizeof buf), "[2,?,3]");
  int64_t e[] = {2, 5, 3};
  grt_shape t = grt_shape_make(3, e);
  grt_shape m;
  ASSERT_TRUE(grt_shape_merge(&s, &t, &m));
  EXPECT_TRUE(grt_shape_equal(&m, &t));
  EXPECT_EQ(grt_shape_num_elements(&m), 30);
  int64_t f[] = {3, 5, 3};
  grt_shape u = grt_shape_make(3, f);
  EXPECT_FALSE(grt_shape_compatible(&t, &u));
  grt_shape unk = grt_shape_unknown();
  EXPECT_TRUE(grt_shape_compatible(&unk, &u));
  EXPECT_STREQ(grt_shape_str(&unk, buf, sizeof buf), "<unknown>");
  grt_shape sc = grt_shape_scalar();
  EXPECT_EQ(grt_shape_num_elements(&sc), 1);
  EXPECT_STREQ(grt_shape_str(&sc, buf, sizeof buf), "[]");
  int64_t big[] = {INT64_MAX / 2, 4};
  grt_shape o = grt_shape_make(2, big);
  EXPECT_EQ(grt_shape_num_elements(&o), -2);
}

static int g_released = 0;
static void count_release(grt_buffer*) { g_released++; }

// Equal shapes agree in every dimension, whichever side is larger (a
// comparison that only noticed a smaller left dimension passed every other
// test: the mutation catalogue's base-shape-equal-dims).
TEST(Shape, EqualComparesEveryDimensionBothWays) {
  int64_t a[] = {2, 5, 3}, b[] = {2, 4, 3};
  grt_shape sa = grt_shape_make(3, a), sb = grt_shape_make(3, b);
  EXPECT_TRUE(grt_shape_equal(&sa, &sa));
  EXPECT_FALSE(grt_shape_equal(&sa, &sb));
  EXPECT_FALSE(grt_shape_equal(&sb, &sa));
  grt_shape sc = grt_shape_make(2, a);
  EXPECT_FALSE(grt_shape_equal(&sa, &sc));
}

TEST(Tensor, RefcountsAndViews) {
  int64_t dims[] = {2, 3};
  grt_tensor* t = nullptr;
  grt_status* s = grt_tensor_new(GRT_FLOAT32, 2, dims, &t);
  ASSERT_EQ(s, nullptr);
  EXPECT_EQ(grt_tensor_num_elements(t), 6);
  EXPECT_EQ(grt_tensor_byte_size(t), 24u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(grt_tensor_data(t)) % GRT_TENSOR_ALIGNMENT, 0u);
  for (int i = 0; i < 6; i++) EXPECT_EQ(static_cast<float*>(grt_tensor_data(t))[i], 0.0f);
  grt_tensor* r = grt_tensor_ref(t);
  grt_tensor_free(t);
  EXPECT_EQ(grt_tensor_dim(r, 1), 3);
  grt_tensor_free(r);

  static char bytes[64];
  grt_buffer* b = nullptr;
  ASSERT_EQ(grt_buffer_wrap(bytes, sizeof bytes, count_release, nullptr, &b), nullptr);
  int64_t four[] = {4};
  grt_shape sh = grt_shape_make(1, four);
  grt_tensor* v = nullptr;
  ASSERT_EQ(grt_tensor_new_view(GRT_INT64, &sh, b, 32, &v), nullptr);
  EXPECT_EQ(grt_tensor_data(v), bytes + 32);
  grt_tensor* bad = nullptr;
  s = grt_tensor_new_view(GRT_INT64, &sh, b, 40, &bad);  // 40 + 32 > 64
  EXPECT_EQ(grt_status_code(s), GRT_OUT_OF_RANGE);
  EXPECT_EQ(bad, nullptr);
  grt_status_free(s);
  grt_buffer_unref(b);
  EXPECT_EQ(g_released, 0);  // the view still holds it
  grt_tensor_free(v);
  EXPECT_EQ(g_released, 1);
}

TEST(Tensor, RejectsBadShapes) {
  grt_tensor* t = nullptr;
  int64_t neg[] = {-1};
  grt_status* s = grt_tensor_new(GRT_FLOAT32, 1, neg, &t);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  int64_t d[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  s = grt_tensor_new(GRT_FLOAT32, 9, d, &t);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  s = grt_tensor_new(GRT_DTYPE_INVALID, 1, d, &t);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  EXPECT_EQ(t, nullptr);
}

TEST(Arena, AllocatesAlignedZeroedAndLarge) {
  grt_arena* a = grt_arena_new();
  ASSERT_NE(a, nullptr);
  for (int i = 0; i < 10000; i++) {
    char* p = static_cast<char*>(grt_arena_alloc(a, 1 + i % 100));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
    EXPECT_EQ(p[0], 0);
    p[0] = 1;
  }
  void* big = grt_arena_alloc(a, 10 << 20);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(grt_arena_calloc(a, SIZE_MAX / 2, 4), nullptr);
  EXPECT_STREQ(grt_arena_strndup(a, "hello world", 5), "hello");
  grt_arena_free(a);
  grt_arena_free(nullptr);
}

/* n * size past SIZE_MAX whose wrapped product is small: only the
 * multiplication's own overflow check can refuse these, since the wrapped
 * byte count (4, 0, 24) passes every later check. Without that check
 * grt_arena_calloc handed back a 4-byte block for "SIZE_MAX/4+2 elements of
 * 4 bytes" (planted by hand and caught here). */
TEST(Arena, CallocRefusesAWrappedProduct) {
  grt_arena* a = grt_arena_new();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(grt_arena_calloc(a, SIZE_MAX / 4 + 2, 4), nullptr);
  EXPECT_EQ(grt_arena_calloc(a, 4, SIZE_MAX / 4 + 2), nullptr);
  EXPECT_EQ(grt_arena_calloc(a, SIZE_MAX / 2 + 1, 2), nullptr);
  EXPECT_EQ(grt_arena_calloc(a, SIZE_MAX / 8 + 4, 8), nullptr);
  EXPECT_EQ(grt_arena_used(a), 0u);
  /* The check refuses only real overflows. */
  void* ok = grt_arena_calloc(a, 3, 8);
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(grt_arena_used(a), 32u);
  grt_arena_free(a);
}

TEST(StrMap, PutGetAndDuplicates) {
  grt_strmap m;
  grt_strmap_init(&m);
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; i++) keys.push_back("node_" + std::to_string(i));
  for (int i = 0; i < 5000; i++) EXPECT_EQ(grt_strmap_put(&m, keys[i].c_str(), i, nullptr), 1);
  int32_t existing = -1;
  EXPECT_EQ(grt_strmap_put(&m, "node_42", 7, &existing), 0);
  EXPECT_EQ(existing, 42);
  for (int i = 0; i < 5000; i++) EXPECT_EQ(grt_strmap_get(&m, keys[i].c_str()), i);
  EXPECT_EQ(grt_strmap_get(&m, "node_5000"), -1);
  EXPECT_EQ(grt_strmap_getn(&m, "node_12xyz", 7), 12);
  grt_strmap_clear(&m);
  EXPECT_EQ(grt_strmap_get(&m, "node_1"), -1);
}

// A key whose hash equals a longer key's (FNV-1a is 32 bits: "a" and
// "a+r$:?" collide) is still a different key: the lookup compares the whole
// key, its end included. Without the end check (the mutation catalogue's
// base-strmap-prefix) "a" found "a+r$:?"; no other test collides.
TEST(StrMap, AKeyIsNotItsLongerCollidingKey) {
  ASSERT_EQ(grt_hash_bytes("a", 1), grt_hash_bytes("a+r$:?", 6));
  grt_strmap m;
  grt_strmap_init(&m);
  EXPECT_EQ(grt_strmap_put(&m, "a+r$:?", 1, nullptr), 1);
  EXPECT_EQ(grt_strmap_get(&m, "a"), -1);
  EXPECT_EQ(grt_strmap_put(&m, "a", 2, nullptr), 1);
  EXPECT_EQ(grt_strmap_get(&m, "a"), 2);
  EXPECT_EQ(grt_strmap_get(&m, "a+r$:?"), 1);
  EXPECT_EQ(grt_strmap_getn(&m, "a+r$:?", 1), 2);
  grt_strmap_clear(&m);
}
