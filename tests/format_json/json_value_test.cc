// Attr values and tensors of the JSON text form, read by declared type and
// written back (graph_format/json_value.h): every attr type and list type,
// every dtype, the fill and base64 forms, and the errors for bad values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "graph_format/json_tensor.h"
#include "graph_format/json_value.h"
#include "base/dtype.h"
#include "base/tensor.h"

namespace {

class JsonValue : public ::testing::Test {
 protected:
  void SetUp() override { arena_ = grt_arena_new(); }
  void TearDown() override {
    for (auto& v : values_) grt_attr_value_release(&v);
    grt_arena_free(arena_);
  }

  // Reads `text` as an attr of `type`; the value stays alive until the test ends.
  grt_status* Read(const std::string& text, grt_attr_type type, grt_attr_value* out) {
    json_error_t err;
    json_t* j =
        json_loadb(text.data(), text.size(), JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
    EXPECT_NE(j, nullptr) << "test JSON does not parse: " << text << ": " << err.text;
    if (!j) return grt_status_new(GRT_INTERNAL, "bad test JSON");
    grt_status* s = grt_json_read_attr(j, type, arena_, out);
    json_decref(j);
    if (!s) values_.push_back(*out);
    return s;
  }

  std::string Write(const grt_attr_value& v) {
    grt_strbuf b = {};
    grt_status* s = grt_json_write_attr(&b, &v);
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
    std::string out = b.s ? std::string(b.s, b.len) : "";
    grt_strbuf_free(&b);
    return out;
  }

  // Reading `text` then writing it gives `text` back.
  void ExpectRoundTrip(grt_attr_type type, const std::string& text) {
    grt_attr_value v;
    grt_status* s = Read(text, type, &v);
    ASSERT_EQ(s, nullptr) << text << ": " << grt_status_message(s);
    EXPECT_EQ(Write(v), text) << grt_attr_type_name(type);
  }

  // Reading fails with `code` and a message containing `fragment`.
  void ExpectError(grt_attr_type type, const std::string& text, grt_code code,
                   const std::string& fragment) {
    grt_attr_value v;
    grt_status* s = Read(text, type, &v);
    ASSERT_NE(s, nullptr) << text << " was accepted as " << grt_attr_type_name(type);
    EXPECT_EQ(grt_status_code(s), code) << grt_status_message(s);
    EXPECT_NE(std::string(grt_status_message(s)).find(fragment), std::string::npos)
        << "message: " << grt_status_message(s) << "\nwanted: " << fragment;
    grt_status_free(s);
  }

  const grt_tensor* Tensor(const std::string& text) {
    grt_attr_value v;
    grt_status* s = Read(text, GRT_ATTR_TENSOR, &v);
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
    return s ? nullptr : v.u.tensor;
  }

  grt_arena* arena_;
  std::vector<grt_attr_value> values_;
};

TEST_F(JsonValue, ScalarsReadByDeclaredType) {
  grt_attr_value v;
  ASSERT_EQ(Read("1", GRT_ATTR_INT, &v), nullptr);
  EXPECT_EQ(v.type, GRT_ATTR_INT);
  EXPECT_EQ(v.u.i, 1);
  ASSERT_EQ(Read("1", GRT_ATTR_FLOAT, &v), nullptr);  // same JSON, declared float
  EXPECT_EQ(v.type, GRT_ATTR_FLOAT);
  EXPECT_EQ(v.u.f, 1.0f);
  ASSERT_EQ(Read("0.1", GRT_ATTR_FLOAT, &v), nullptr);
  EXPECT_EQ(v.u.f, 0.1f);  // stored as float32
  ASSERT_EQ(Read("9223372036854775807", GRT_ATTR_INT, &v), nullptr);
  EXPECT_EQ(v.u.i, INT64_MAX);
  ASSERT_EQ(Read("-9223372036854775808", GRT_ATTR_INT, &v), nullptr);
  EXPECT_EQ(v.u.i, INT64_MIN);
  ASSERT_EQ(Read("true", GRT_ATTR_BOOL, &v), nullptr);
  EXPECT_TRUE(v.u.b);
  ASSERT_EQ(Read("\"bfloat16\"", GRT_ATTR_TYPE, &v), nullptr);
  EXPECT_EQ(v.u.t, GRT_BFLOAT16);
  ASSERT_EQ(Read("null", GRT_ATTR_SHAPE, &v), nullptr);
  EXPECT_EQ(v.u.shape.rank, -1);
  ASSERT_EQ(Read("[3, -1]", GRT_ATTR_SHAPE, &v), nullptr);
  EXPECT_EQ(v.u.shape.rank, 2);
  EXPECT_EQ(v.u.shape.dims[0], 3);
  EXPECT_EQ(v.u.shape.dims[1], -1);
  ASSERT_EQ(Read("\"NaN\"", GRT_ATTR_FLOAT, &v), nullptr);
  EXPECT_TRUE(std::isnan(v.u.f));
  ASSERT_EQ(Read("\"-Infinity\"", GRT_ATTR_FLOAT, &v), nullptr);
  EXPECT_EQ(v.u.f, -INFINITY);
}

TEST_F(JsonValue, EveryAttrTypeRoundTrips) {
  ExpectRoundTrip(GRT_ATTR_INT, "0");
  ExpectRoundTrip(GRT_ATTR_INT, "-5");
  ExpectRoundTrip(GRT_ATTR_INT, "9223372036854775807");
  ExpectRoundTrip(GRT_ATTR_INT, "-9223372036854775808");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "0.1");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "1e-8");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "3.4028235e38");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "-0.0");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "1");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "\"NaN\"");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "\"Infinity\"");
  ExpectRoundTrip(GRT_ATTR_FLOAT, "\"-Infinity\"");
  ExpectRoundTrip(GRT_ATTR_BOOL, "true");
  ExpectRoundTrip(GRT_ATTR_BOOL, "false");
  ExpectRoundTrip(GRT_ATTR_STRING, "\"hello\"");
  ExpectRoundTrip(GRT_ATTR_STRING, "\"\"");
  ExpectRoundTrip(GRT_ATTR_STRING, "\"quote \\\" backslash \\\\ newline \\n tab \\t\"");
  ExpectRoundTrip(GRT_ATTR_STRING, "\"caf\xc3\xa9 /path\"");
  for (const char* t : {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
                        "int64", "uint8", "bool"})
    ExpectRoundTrip(GRT_ATTR_TYPE, std::string("\"") + t + "\"");
  ExpectRoundTrip(GRT_ATTR_SHAPE, "null");
  ExpectRoundTrip(GRT_ATTR_SHAPE, "[]");
  ExpectRoundTrip(GRT_ATTR_SHAPE, "[2, -1, 3]");
  ExpectRoundTrip(GRT_ATTR_SHAPE, "[1, 2, 3, 4, 5, 6, 7, 8]");
  ExpectRoundTrip(GRT_ATTR_TENSOR,
                  "{\"dtype\": \"float32\", \"shape\": [2, 2], \"values\": [1, 2, 3, 4]}");
  ExpectRoundTrip(GRT_ATTR_LIST_INT, "[]");
  ExpectRoundTrip(GRT_ATTR_LIST_INT, "[1, -2, 9223372036854775807]");
  ExpectRoundTrip(GRT_ATTR_LIST_FLOAT, "[0.5, 0.1, \"NaN\", -3]");
  ExpectRoundTrip(GRT_ATTR_LIST_BOOL, "[true, false, true]");
  ExpectRoundTrip(GRT_ATTR_LIST_STRING, "[\"a\", \"b c\", \"\"]");
  ExpectRoundTrip(GRT_ATTR_LIST_TYPE, "[\"float32\", \"int8\", \"bool\"]");
  ExpectRoundTrip(GRT_ATTR_LIST_SHAPE, "[[1, 2], null, [], [-1]]");
  ExpectRoundTrip(GRT_ATTR_LIST_TENSOR,
                  "[{\"dtype\": \"int32\", \"shape\": [], \"values\": [7]}, "
                  "{\"dtype\": \"bool\", \"shape\": [2], \"values\": [true, false]}]");
  ExpectRoundTrip(GRT_ATTR_LIST_TENSOR, "[]");
}

TEST_F(JsonValue, ListsHoldTheirElements) {
  grt_attr_value v;
  ASSERT_EQ(Read("[[1, 2], null]", GRT_ATTR_LIST_SHAPE, &v), nullptr);
  ASSERT_EQ(v.type, GRT_ATTR_LIST_SHAPE);
  ASSERT_EQ(v.u.list.n, 2);
  EXPECT_EQ(v.u.list.v.shape[0].rank, 2);
  EXPECT_EQ(v.u.list.v.shape[0].dims[1], 2);
  EXPECT_EQ(v.u.list.v.shape[1].rank, -1);
  ASSERT_EQ(Read("[\"x\", \"yz\"]", GRT_ATTR_LIST_STRING, &v), nullptr);
  ASSERT_EQ(v.u.list.n, 2);
  EXPECT_STREQ(v.u.list.v.s[1], "yz");
  ASSERT_EQ(Read("[true, false]", GRT_ATTR_LIST_BOOL, &v), nullptr);
  EXPECT_TRUE(v.u.list.v.b[0]);
  EXPECT_FALSE(v.u.list.v.b[1]);
  ASSERT_EQ(Read("[1.5, 2]", GRT_ATTR_LIST_FLOAT, &v), nullptr);
  EXPECT_EQ(v.u.list.v.f[0], 1.5f);
  EXPECT_EQ(v.u.list.v.f[1], 2.0f);
  ASSERT_EQ(Read("[\"int64\"]", GRT_ATTR_LIST_TYPE, &v), nullptr);
  EXPECT_EQ(v.u.list.v.t[0], GRT_INT64);
  ASSERT_EQ(Read("[5, 6]", GRT_ATTR_LIST_INT, &v), nullptr);
  EXPECT_EQ(v.u.list.v.i[1], 6);
}

TEST_F(JsonValue, AttrErrorsSayWhatWasExpected) {
  ExpectError(GRT_ATTR_INT, "\"3\"", GRT_INVALID_ARGUMENT, "expected an integer, got a string");
  ExpectError(GRT_ATTR_INT, "1.5", GRT_INVALID_ARGUMENT, "expected an integer, got a real number");
  ExpectError(GRT_ATTR_FLOAT, "true", GRT_INVALID_ARGUMENT, "expected a number");
  ExpectError(GRT_ATTR_FLOAT, "\"nan\"", GRT_INVALID_ARGUMENT, "got a string");
  ExpectError(GRT_ATTR_FLOAT, "1e39", GRT_INVALID_ARGUMENT, "out of range for a float attr");
  ExpectError(GRT_ATTR_BOOL, "1", GRT_INVALID_ARGUMENT, "expected true or false, got an integer");
  ExpectError(GRT_ATTR_STRING, "null", GRT_INVALID_ARGUMENT, "expected a string, got null");
  ExpectError(GRT_ATTR_TYPE, "\"float\"", GRT_INVALID_ARGUMENT, "got a string 'float'");
  ExpectError(GRT_ATTR_TYPE, "\"complex64\"", GRT_INVALID_ARGUMENT, "expected a dtype name");
  ExpectError(GRT_ATTR_SHAPE, "\"[2]\"", GRT_INVALID_ARGUMENT,
              "expected a list of ints or null, got a string");
  ExpectError(GRT_ATTR_SHAPE, "[1, 2, 3, 4, 5, 6, 7, 8, 9]", GRT_INVALID_ARGUMENT,
              "rank 9 exceeds the maximum of 8");
  ExpectError(GRT_ATTR_SHAPE, "[2, -2]", GRT_INVALID_ARGUMENT, "dimension 1 is -2");
  ExpectError(GRT_ATTR_SHAPE, "[2, 1.0]", GRT_INVALID_ARGUMENT, "got a real number at dimension 1");
  ExpectError(GRT_ATTR_LIST_INT, "7", GRT_INVALID_ARGUMENT, "expected a list(int), got an integer");
  ExpectError(GRT_ATTR_LIST_INT, "[1, \"2\"]", GRT_INVALID_ARGUMENT,
              "element 1: expected an integer, got a string");
  ExpectError(GRT_ATTR_LIST_SHAPE, "[[1], [-3]]", GRT_INVALID_ARGUMENT, "element 1: dimension 0");
  ExpectError(GRT_ATTR_TENSOR, "[1, 2]", GRT_INVALID_ARGUMENT, "expected a tensor");
}

TEST_F(JsonValue, ListOfTensorsFailingHalfwayFreesWhatItMade) {
  // Under ASan a leak of the first tensor fails this test.
  ExpectError(GRT_ATTR_LIST_TENSOR,
              "[{\"dtype\": \"int8\", \"shape\": [2], \"values\": [1, 2]}, "
              "{\"dtype\": \"int8\", \"shape\": [2], \"values\": [1, 300]}]",
              GRT_INVALID_ARGUMENT, "element 1: tensor: values[1]: 300 is out of range for int8");
}

template <typename T>
std::vector<T> Elements(const grt_tensor* t) {
  const T* p = static_cast<const T*>(grt_tensor_data(t));
  return std::vector<T>(p, p + grt_tensor_num_elements(t));
}

TEST_F(JsonValue, EveryDtypeReadsItsValues) {
  const grt_tensor* t;
  ASSERT_NE(t = Tensor(R"({"dtype": "float32", "shape": [3], "values": [1, 0.1, -2.5]})"), nullptr);
  EXPECT_EQ(Elements<float>(t), (std::vector<float>{1.0f, 0.1f, -2.5f}));
  ASSERT_NE(t = Tensor(R"({"dtype": "float64", "shape": [2], "values": [0.1, 1e-300]})"), nullptr);
  EXPECT_EQ(Elements<double>(t), (std::vector<double>{0.1, 1e-300}));
  ASSERT_NE(t = Tensor(R"({"dtype": "float16", "shape": [3], "values": [1, 0.1, 65504]})"),
            nullptr);
  EXPECT_EQ(Elements<uint16_t>(t), (std::vector<uint16_t>{0x3C00, 0x2E66, 0x7BFF}));
  ASSERT_NE(t = Tensor(R"({"dtype": "bfloat16", "shape": [2], "values": [1, 0.1]})"), nullptr);
  EXPECT_EQ(Elements<uint16_t>(t), (std::vector<uint16_t>{0x3F80, 0x3DCD}));
  ASSERT_NE(t = Tensor(R"({"dtype": "int8", "shape": [2], "values": [-128, 127]})"), nullptr);
  EXPECT_EQ(Elements<int8_t>(t), (std::vector<int8_t>{-128, 127}));
  ASSERT_NE(t = Tensor(R"({"dtype": "int16", "shape": [2], "values": [-32768, 32767]})"), nullptr);
  EXPECT_EQ(Elements<int16_t>(t), (std::vector<int16_t>{-32768, 32767}));
  ASSERT_NE(t = Tensor(R"({"dtype": "int32", "shape": [2], "values": [-2147483648, 2147483647]})"),
            nullptr);
  EXPECT_EQ(Elements<int32_t>(t), (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
  ASSERT_NE(
      t = Tensor(
          R"({"dtype": "int64", "shape": [2], "values": [-9223372036854775808, 9223372036854775807]})"),
      nullptr);
  EXPECT_EQ(Elements<int64_t>(t), (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
  ASSERT_NE(t = Tensor(R"({"dtype": "uint8", "shape": [2], "values": [0, 255]})"), nullptr);
  EXPECT_EQ(Elements<uint8_t>(t), (std::vector<uint8_t>{0, 255}));
  ASSERT_NE(t = Tensor(R"({"dtype": "bool", "shape": [3], "values": [true, false, true]})"),
            nullptr);
  EXPECT_EQ(Elements<uint8_t>(t), (std::vector<uint8_t>{1, 0, 1}));
  ASSERT_NE(t = Tensor(R"({"dtype": "float32", "shape": [], "values": [5]})"), nullptr);
  EXPECT_EQ(grt_tensor_rank(t), 0);
  EXPECT_EQ(Elements<float>(t), (std::vector<float>{5.0f}));
  ASSERT_NE(t = Tensor(R"({"dtype": "int32", "shape": [0, 3], "values": []})"), nullptr);
  EXPECT_EQ(grt_tensor_num_elements(t), 0);
}

TEST_F(JsonValue, OneValueFillsTheShape) {
  const grt_tensor* t;
  ASSERT_NE(t = Tensor(R"({"dtype": "float32", "shape": [2, 3], "values": [7.5]})"), nullptr);
  EXPECT_EQ(Elements<float>(t), std::vector<float>(6, 7.5f));
  ASSERT_NE(t = Tensor(R"({"dtype": "int16", "shape": [5, 7, 3], "values": [-3]})"), nullptr);
  EXPECT_EQ(Elements<int16_t>(t), std::vector<int16_t>(105, -3));
  ASSERT_NE(t = Tensor(R"({"dtype": "bool", "shape": [9], "values": [true]})"), nullptr);
  EXPECT_EQ(Elements<uint8_t>(t), std::vector<uint8_t>(9, 1));
}

TEST_F(JsonValue, Base64FormHoldsRawLittleEndianBytes) {
  const grt_tensor* t;
  // 1.0f = 00 00 80 3f, 2.0f = 00 00 00 40
  ASSERT_NE(t = Tensor(R"({"dtype": "float32", "shape": [2], "base64": "AACAPwAAAEA="})"), nullptr);
  EXPECT_EQ(Elements<float>(t), (std::vector<float>{1.0f, 2.0f}));
  ASSERT_NE(t = Tensor(R"({"dtype": "int16", "shape": [1], "base64": "AQI="})"), nullptr);
  EXPECT_EQ(Elements<int16_t>(t), (std::vector<int16_t>{0x0201}));
  ASSERT_NE(t = Tensor(R"({"dtype": "uint8", "shape": [0], "base64": ""})"), nullptr);
}

TEST_F(JsonValue, TensorErrorsNameTheFault) {
  auto T = GRT_ATTR_TENSOR;
  const grt_code kBad = GRT_INVALID_ARGUMENT;
  ExpectError(T, R"({"dtype": "float32", "shape": [2, 2], "values": [1, 2, 3]})", kBad,
              "\"values\" has 3 values but shape [2,2] has 4 elements");
  ExpectError(T, R"({"dtype": "int8", "shape": [2], "values": [1, 128]})", kBad,
              "values[1]: 128 is out of range for int8 [-128, 127]");
  ExpectError(T, R"({"dtype": "uint8", "shape": [1], "values": [-1]})", kBad,
              "-1 is out of range for uint8 [0, 255]");
  ExpectError(T, R"({"dtype": "int32", "shape": [1], "values": [2147483648]})", kBad,
              "out of range for int32");
  ExpectError(T, R"({"dtype": "int32", "shape": [1], "values": [1.0]})", kBad,
              "expected an integer, got a real number");
  ExpectError(T, R"({"dtype": "bool", "shape": [1], "values": [1]})", kBad,
              "expected true or false, got an integer");
  ExpectError(T, R"({"dtype": "float32", "shape": [1], "values": ["1"]})", kBad,
              "expected a number, got a string");
  ExpectError(T, R"({"dtype": "float16", "shape": [1], "values": [70000]})", kBad,
              "out of range for float16");
  ExpectError(T, R"({"dtype": "float32", "shape": [1], "values": [1e39]})", kBad,
              "out of range for float32");
  ExpectError(T, R"({"dtype": "float", "shape": [1], "values": [1]})", kBad,
              "\"dtype\" must be a dtype name");
  ExpectError(T, R"({"shape": [1], "values": [1]})", kBad, "missing \"dtype\"");
  ExpectError(T, R"({"dtype": "int8", "values": [1]})", kBad, "missing \"shape\"");
  ExpectError(T, R"({"dtype": "int8", "shape": [-1], "values": [1]})", kBad,
              "dimension 0 is -1; dimensions are >= 0");
  ExpectError(T, R"({"dtype": "int8", "shape": null, "values": [1]})", kBad,
              "expected a list of ints, got null");
  ExpectError(T, R"({"dtype": "int8", "shape": [1]})", kBad,
              "needs exactly one of \"values\" and \"base64\"");
  ExpectError(T, R"({"dtype": "int8", "shape": [1], "values": [1], "base64": "AQ=="})", kBad,
              "needs exactly one of");
  ExpectError(T, R"({"dtype": "int8", "shape": [1], "value": [1]})", kBad, "unknown key 'value'");
  ExpectError(T, R"({"dtype": "int8", "shape": [1], "values": 1})", kBad,
              "\"values\" must be a list, got an integer");
  ExpectError(T, R"({"dtype": "float32", "shape": [2], "base64": "AACAPwAAAE"})", kBad,
              "\"base64\" text length 10 is not a multiple of 4");
  ExpectError(T, R"({"dtype": "float32", "shape": [2], "base64": "AACAPwAAAE!="})", kBad,
              "\"base64\" is malformed at character 10 ('!')");
  ExpectError(T, R"({"dtype": "float32", "shape": [2], "base64": "AACAPw=="})", kBad,
              "\"base64\" holds 4 bytes but float32 [2] needs 8");
  ExpectError(T, R"({"dtype": "bool", "shape": [2], "base64": "AQI="})", kBad,
              "bool element 1 is 2, expected 0 or 1");
  ExpectError(T, R"({"dtype": "int8", "shape": [1048576, 1048576], "values": [0]})", kBad,
              "larger than the text form's limit");
  ExpectError(T,
              R"({"dtype": "int8", "shape": [4294967296, 4294967296, 4294967296], "values": [0]})",
              kBad, "larger than the text form's limit");
}

std::string WriteTensor(const grt_tensor* t) {
  char* text = nullptr;
  size_t len = 0;
  grt_status* s = grt_json_tensor_to_text(t, &text, &len);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  std::string out = text ? std::string(text, len) : "";
  free(text);
  return out;
}

struct OwnedTensor {
  grt_tensor* t = nullptr;
  ~OwnedTensor() { grt_tensor_free(t); }
};

TEST_F(JsonValue, WriterPicksTheForm) {
  OwnedTensor fill;
  int64_t dims[2] = {100, 100};
  ASSERT_EQ(grt_tensor_new(GRT_FLOAT32, 2, dims, &fill.t), nullptr);
  EXPECT_EQ(WriteTensor(fill.t), R"({"dtype": "float32", "shape": [100, 100], "values": [0]})");

  static_cast<float*>(grt_tensor_data(fill.t))[5] = 0.25f;  // no longer uniform, > 4096
  std::string big = WriteTensor(fill.t);
  EXPECT_EQ(big.find("\"values\""), std::string::npos);
  ASSERT_NE(big.find("\"base64\": \""), std::string::npos);
  OwnedTensor back;
  ASSERT_EQ(grt_json_tensor_from_text(big.data(), big.size(), &back.t), nullptr);
  ASSERT_EQ(grt_tensor_byte_size(back.t), grt_tensor_byte_size(fill.t));
  EXPECT_EQ(memcmp(grt_tensor_data(back.t), grt_tensor_data(fill.t), grt_tensor_byte_size(fill.t)),
            0);

  OwnedTensor nan;
  int64_t three = 3;
  ASSERT_EQ(grt_tensor_new(GRT_FLOAT16, 1, &three, &nan.t), nullptr);
  uint16_t* h = static_cast<uint16_t*>(grt_tensor_data(nan.t));
  h[0] = 0x3C00;
  h[1] = 0x7E00;  // NaN
  h[2] = 0xFC00;  // -inf
  EXPECT_EQ(WriteTensor(nan.t), R"({"dtype": "float16", "shape": [3], "base64": "ADwAfgD8"})");

  OwnedTensor neg_zero;
  ASSERT_EQ(grt_tensor_new(GRT_FLOAT32, 1, &three, &neg_zero.t), nullptr);
  static_cast<float*>(grt_tensor_data(neg_zero.t))[1] = -0.0f;  // bits differ: not a fill
  EXPECT_EQ(WriteTensor(neg_zero.t),
            R"({"dtype": "float32", "shape": [3], "values": [0, -0.0, 0]})");

  OwnedTensor small;
  int64_t n = 4096;
  ASSERT_EQ(grt_tensor_new(GRT_INT32, 1, &n, &small.t), nullptr);
  for (int i = 0; i < n; i++) static_cast<int32_t*>(grt_tensor_data(small.t))[i] = i;
  std::string s = WriteTensor(small.t);
  EXPECT_NE(s.find("\"values\": [0, 1, 2,"), std::string::npos);
  EXPECT_NE(s.find(", 4095]}"), std::string::npos);
}

// Canonical tensor spellings come back byte for byte, for every dtype.
TEST_F(JsonValue, TensorsRoundTripForEveryDtype) {
  const char* canonical[] = {
      R"({"dtype": "float16", "shape": [4], "values": [1, 0.1, 65500, -6e-8]})",
      R"({"dtype": "bfloat16", "shape": [3], "values": [1, 0.1, 3.39e38]})",
      R"({"dtype": "float32", "shape": [5], "values": [0.1, 1e-8, 3.4028235e38, -0.0, 1e-45]})",
      R"({"dtype": "float64", "shape": [3], "values": [0.1, 0.30000000000000004, 5e-324]})",
      R"({"dtype": "int8", "shape": [2], "values": [-128, 127]})",
      R"({"dtype": "int16", "shape": [2], "values": [-32768, 32767]})",
      R"({"dtype": "int32", "shape": [2, 1], "values": [-2147483648, 2147483647]})",
      R"({"dtype": "int64", "shape": [2], "values": [-9223372036854775808, 9223372036854775807]})",
      R"({"dtype": "uint8", "shape": [2], "values": [0, 255]})",
      R"({"dtype": "bool", "shape": [2], "values": [false, true]})",
      R"({"dtype": "float32", "shape": [2, 3], "values": [7.5]})",
      R"({"dtype": "float32", "shape": [2], "base64": "AADAfwAAgH8="})",
      R"({"dtype": "int64", "shape": [], "values": [-1]})",
      R"({"dtype": "uint8", "shape": [0], "values": []})",
  };
  for (const char* c : canonical) ExpectRoundTrip(GRT_ATTR_TENSOR, c);
}

}  // namespace
