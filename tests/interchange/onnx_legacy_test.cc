// ONNX models of old opsets import with their old meaning (onnx_legacy.c):
// consumed_inputs, the binary ops' broadcast/axis, Reshape's shape and
// Slice's starts/ends/axes attributes, Cast naming its type, Concat's
// default axis, BatchNormalization/Dropout's is_test, PRelu's per-channel
// slope, Gemm's broadcast, Upsample's scales and TopK's k attributes; what
// has no newer equivalent is refused with one line naming the opsets.
// Softmax and LogSoftmax before opset 13 flatten to 2D at their axis.
// Also ONNX Div on integers: truncation toward zero on every integer type
// (negative operands, the most negative value over -1 wrapping), and a fed
// zero divisor an error naming the node, never a SIGFPE. Results are
// computed here from the inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

struct Model {
  grt_graph* g = nullptr;
  grt_session* s = nullptr;
  explicit Model(const char* name) {
    std::string path = std::string("tests/interchange/onnx/") + name + ".onnx";
    EXPECT_EQ(Message(grt_graph_load(path.c_str(), &g)), "");
    if (g) {
      EXPECT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
    }
  }
  ~Model() {
    for (grt_tensor* t : out) grt_tensor_free(t);
    grt_session_free(s);
    grt_graph_free(g);
  }
  // The run's error message ("" when it succeeds); the fetches land in out.
  std::string Run(const std::vector<std::pair<const char*, grt_tensor*>>& feeds,
                  const std::vector<const char*>& fetches) {
    for (grt_tensor* t : out) grt_tensor_free(t);
    std::vector<grt_feed> f;
    for (auto& p : feeds) f.push_back({p.first, p.second});
    out.assign(fetches.size(), nullptr);
    return Message(grt_session_run(s, f.data(), (int32_t)f.size(), fetches.data(),
                                   (int32_t)fetches.size(), nullptr, 0, out.data(), nullptr));
  }
  std::vector<int64_t> Dims(int k) const {
    std::vector<int64_t> d;
    for (int32_t i = 0; i < grt_tensor_rank(out[k]); i++) d.push_back(grt_tensor_dim(out[k], i));
    return d;
  }
  template <typename T>
  const T* Data(int k) const {
    return static_cast<const T*>(grt_tensor_data(out[k]));
  }
  std::vector<grt_tensor*> out;
};

grt_tensor* Tensor(grt_dtype t, std::vector<int64_t> dims, const void* data) {
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(t, (int32_t)dims.size(), dims.data(), &out)), "");
  memcpy(grt_tensor_data(out), data, grt_tensor_byte_size(out));
  return out;
}

using Dims = std::vector<int64_t>;

TEST(OnnxLegacy, Opset3BroadcastAxisReshapeCastConcat) {
  Model m("legacy_opset3");
  ASSERT_NE(m.s, nullptr);
  float x[24];
  for (int i = 0; i < 24; i++) x[i] = (float)i * 0.75f - 6;
  const float v[3] = {-5.5f, 0.25f, 3};
  const float w[4] = {1, -1, 2, 0.5f};
  grt_tensor* xt = Tensor(GRT_FLOAT32, {2, 3, 4}, x);
  grt_tensor* vt = Tensor(GRT_FLOAT32, {3}, v);
  ASSERT_EQ(m.Run({{"x", xt}, {"v", vt}}, {"cat", "m"}), "");
  // cat = Concat_axis1(c, c), c = int32(Reshape(Relu(x + v[j]), [4, 6])).
  ASSERT_EQ(m.Dims(0), Dims({4, 12}));
  const int32_t* cat = m.Data<int32_t>(0);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 12; c++) {
      int flat = r * 6 + c % 6;
      float a = x[flat] + v[(flat / 4) % 3];
      EXPECT_EQ(cat[r * 12 + c], (int32_t)(a > 0 ? a : 0)) << r << "," << c;
    }
  // m = x * w over the last axis (broadcast=1 without an axis).
  ASSERT_EQ(m.Dims(1), Dims({2, 3, 4}));
  for (int i = 0; i < 24; i++) EXPECT_FLOAT_EQ(m.Data<float>(1)[i], x[i] * w[i % 4]) << i;
  grt_tensor_free(xt);
  grt_tensor_free(vt);
}

TEST(OnnxLegacy, Opset6BatchNormDropoutPReluGemmSub) {
  Model m("legacy_opset6");
  ASSERT_NE(m.s, nullptr);
  const float x[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  const float g[4] = {1, 2, 3, 4};
  grt_tensor* xt = Tensor(GRT_FLOAT32, {1, 2, 2, 2}, x);
  grt_tensor* gt = Tensor(GRT_FLOAT32, {2, 2}, g);
  ASSERT_EQ(m.Run({{"x", xt}, {"g", gt}}, {"p", "gemm", "centered"}), "");
  const float scale[2] = {2, 0.5f}, bias[2] = {1, -1}, mean[2] = {0.25f, -2}, var[2] = {3.5f, 1.5f};
  const float slope[2] = {0.1f, 0.5f};
  ASSERT_EQ(m.Dims(0), Dims({1, 2, 2, 2}));
  ASSERT_EQ(m.Dims(2), Dims({1, 2, 2, 2}));
  for (int i = 0; i < 8; i++) {
    int c = i / 4;
    double bn = (x[i] - mean[c]) / std::sqrt(var[c] + 0.5) * scale[c] + bias[c];
    EXPECT_NEAR(m.Data<float>(0)[i], bn > 0 ? bn : bn * slope[c], 1e-5) << i;
    EXPECT_FLOAT_EQ(m.Data<float>(2)[i], x[i] - mean[c]) << i;
  }
  const float W[2][3] = {{1, 2, 3}, {-1, 0, 1}}, C[3] = {0.5f, -0.5f, 2};
  ASSERT_EQ(m.Dims(1), Dims({2, 3}));
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      EXPECT_FLOAT_EQ(m.Data<float>(1)[i * 3 + j],
                      g[i * 2] * W[0][j] + g[i * 2 + 1] * W[1][j] + C[j]);
  grt_tensor_free(xt);
  grt_tensor_free(gt);
}

TEST(OnnxLegacy, Opset8UpsampleScalesAttrAndSpatialBatchNorm) {
  Model m("legacy_opset8");
  ASSERT_NE(m.s, nullptr);
  const float x[4] = {1, 2, 3, 4};
  grt_tensor* xt = Tensor(GRT_FLOAT32, {1, 1, 2, 2}, x);
  ASSERT_EQ(m.Run({{"x", xt}}, {"up", "bn"}), "");
  ASSERT_EQ(m.Dims(0), Dims({1, 1, 4, 6}));
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 6; c++)
      EXPECT_EQ(m.Data<float>(0)[r * 6 + c], x[(r / 2) * 2 + c / 3]) << r << "," << c;
  for (int i = 0; i < 4; i++)
    EXPECT_NEAR(m.Data<float>(1)[i], (x[i] - 0.5) / std::sqrt(4 + 1e-5) * 2 + 1, 1e-5);
  grt_tensor_free(xt);
}

TEST(OnnxLegacy, Opset9SliceAndTopKAttributes) {
  Model m("legacy_opset9");
  ASSERT_NE(m.s, nullptr);
  float x[15];
  for (int i = 0; i < 15; i++) x[i] = (float)((i * 7) % 15);
  grt_tensor* xt = Tensor(GRT_FLOAT32, {3, 5}, x);
  ASSERT_EQ(m.Run({{"x", xt}}, {"inner", "rows", "top", "top_i"}), "");
  // inner = x[1:1000, -3:-1]; rows = x[0:2] (axes default to 0..).
  ASSERT_EQ(m.Dims(0), Dims({2, 2}));
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++) EXPECT_EQ(m.Data<float>(0)[r * 2 + c], x[(r + 1) * 5 + 2 + c]);
  ASSERT_EQ(m.Dims(1), Dims({2, 5}));
  EXPECT_EQ(memcmp(m.Data<float>(1), x, 10 * sizeof(float)), 0);
  // top 2 of each row, largest first, with their indices.
  ASSERT_EQ(m.Dims(2), Dims({3, 2}));
  for (int r = 0; r < 3; r++) {
    int best = 0, second = -1;
    for (int c = 1; c < 5; c++)
      if (x[r * 5 + c] > x[r * 5 + best]) best = c;
    for (int c = 0; c < 5; c++)
      if (c != best && (second < 0 || x[r * 5 + c] > x[r * 5 + second])) second = c;
    EXPECT_EQ(m.Data<float>(2)[r * 2], x[r * 5 + best]);
    EXPECT_EQ(m.Data<float>(2)[r * 2 + 1], x[r * 5 + second]);
    EXPECT_EQ(m.Data<int64_t>(3)[r * 2], best);
    EXPECT_EQ(m.Data<int64_t>(3)[r * 2 + 1], second);
  }
  grt_tensor_free(xt);
}

// Opset 10: Clip's bounds are attributes (read as inputs, the opset-11
// form, they were no bounds at all); Flatten's default axis is 1.
TEST(OnnxLegacy, Opset10ClipAttributesAndFlattenDefaultAxis) {
  Model m("legacy_opset10");
  ASSERT_NE(m.s, nullptr);
  float x[24];
  for (int i = 0; i < 24; i++) x[i] = (float)(i - 12) / 8.0f;
  grt_tensor* xt = Tensor(GRT_FLOAT32, {2, 3, 4}, x);
  ASSERT_EQ(m.Run({{"x", xt}}, {"clipped", "flat"}), "");
  ASSERT_EQ(m.Dims(0), Dims({2, 3, 4}));
  for (int i = 0; i < 24; i++)
    EXPECT_EQ(m.Data<float>(0)[i], std::min(std::max(x[i], -0.5f), 0.25f));
  ASSERT_EQ(m.Dims(1), Dims({2, 12}));
  EXPECT_EQ(memcmp(m.Data<float>(1), x, sizeof x), 0);
  grt_tensor_free(xt);
}

// Softmax (or LogSoftmax) of x over axes [first, last] taken together: the
// values whose indices differ only there are normalised as one.
std::vector<float> SoftmaxOver(const std::vector<float>& x, const Dims& dims, int first, int last,
                               bool log) {
  int64_t pre = 1, mid = 1, post = 1;
  for (int a = 0; a < static_cast<int>(dims.size()); a++)
    (a < first ? pre : a <= last ? mid : post) *= dims[a];
  std::vector<float> y(x.size());
  for (int64_t p = 0; p < pre; p++)
    for (int64_t q = 0; q < post; q++) {
      auto at = [&](int64_t m) { return (p * mid + m) * post + q; };
      double mx = -INFINITY, sum = 0;
      for (int64_t m = 0; m < mid; m++) mx = std::max(mx, (double)x[at(m)]);
      for (int64_t m = 0; m < mid; m++) sum += std::exp(x[at(m)] - mx);
      for (int64_t m = 0; m < mid; m++)
        y[at(m)] = (float)(log ? x[at(m)] - mx - std::log(sum) : std::exp(x[at(m)] - mx) / sum);
    }
  return y;
}

// Before opset 13, Softmax and LogSoftmax flatten their input to 2D at
// `axis` (default 1) and normalise each row; from 13 they normalise over
// `axis` (default -1) alone. Each output is checked against the old meaning
// and, so the case can tell them apart, shown to differ from the new one.
// Dropping the opset-dependent default (and the flattening) was planted by
// hand and caught here.
void ExpectSoftmax(Model& m, int k, const std::vector<float>& x, const Dims& dims, int axis,
                   bool log, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(m.Dims(k), dims);
  int rank = static_cast<int>(dims.size());
  std::vector<float> old_way = SoftmaxOver(x, dims, axis, rank - 1, log);
  std::vector<float> new_way = SoftmaxOver(x, dims, axis, axis, log);
  float apart = 0;
  for (size_t i = 0; i < x.size(); i++) {
    EXPECT_NEAR(m.Data<float>(k)[i], old_way[i], 1e-5f) << i;
    apart = std::max(apart, std::fabs(old_way[i] - new_way[i]));
  }
  EXPECT_GT(apart, 0.05f) << "this case does not tell the two meanings apart";
}

TEST(OnnxLegacy, Opset11And12SoftmaxFlattenAtTheAxis) {
  {
    Model m("legacy_softmax_opset11");
    ASSERT_NE(m.s, nullptr);
    std::vector<float> x(24);
    for (int i = 0; i < 24; i++) x[i] = std::sin(i * 1.3f) * 2;
    grt_tensor* xt = Tensor(GRT_FLOAT32, {2, 3, 4}, x.data());
    ASSERT_EQ(m.Run({{"x", xt}}, {"sm", "lsm"}), "");
    ExpectSoftmax(m, 0, x, {2, 3, 4}, 1, false, "Softmax, default axis, opset 11");
    ExpectSoftmax(m, 1, x, {2, 3, 4}, 1, true, "LogSoftmax, default axis, opset 11");
    grt_tensor_free(xt);
  }
  {
    Model m("legacy_softmax_opset12");
    ASSERT_NE(m.s, nullptr);
    std::vector<float> x(24);
    for (int i = 0; i < 24; i++) x[i] = std::cos(i * 0.7f) * 3 - 1;
    grt_tensor* xt = Tensor(GRT_FLOAT32, {2, 2, 3, 2}, x.data());
    ASSERT_EQ(m.Run({{"x", xt}}, {"sm1", "lsm2"}), "");
    ExpectSoftmax(m, 0, x, {2, 2, 3, 2}, 1, false, "Softmax, axis 1, opset 12");
    ExpectSoftmax(m, 1, x, {2, 2, 3, 2}, 2, true, "LogSoftmax, axis -2, opset 12");
    grt_tensor_free(xt);
  }
}

TEST(OnnxLegacy, RefusedInOneLineNamingTheOpsets) {
  for (const char* c : {"legacy_dropout_training", "legacy_tile", "newer_opset"}) {
    SCOPED_TRACE(c);
    std::string base = std::string("tests/interchange/onnx/") + c;
    std::ifstream f(base + ".textproto");
    std::string line;
    std::getline(f, line);
    const std::string tag = "# expect: ";
    ASSERT_EQ(line.compare(0, tag.size(), tag), 0);
    grt_graph* g = nullptr;
    std::string m = Message(grt_graph_load((base + ".onnx").c_str(), &g));
    EXPECT_NE(m.find(line.substr(tag.size())), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(g, nullptr);
  }
}

TEST(OnnxIntegerDiv, TruncatesTowardZeroAndZeroDivisorIsAnError) {
  Model m("int_div");
  ASSERT_NE(m.s, nullptr);
  const int64_t a[6] = {7, -7, 9, -9, -9, INT64_MIN};
  const int64_t b[3] = {2, -4, -1};
  grt_tensor* at = Tensor(GRT_INT64, {2, 3}, a);
  grt_tensor* bt = Tensor(GRT_INT64, {3}, b);
  ASSERT_EQ(m.Run({{"a", at}, {"b", bt}}, {"q"}), "");
  // INT64_MIN / -1 is defined as it wraps: INT64_MIN.
  const int64_t want[6] = {3, 1, -9, -4, 2, INT64_MIN};
  ASSERT_EQ(m.Dims(0), Dims({2, 3}));
  for (int i = 0; i < 6; i++) EXPECT_EQ(m.Data<int64_t>(0)[i], want[i]) << i;
  const int64_t z[3] = {1, 0, 1};
  grt_tensor* zt = Tensor(GRT_INT64, {3}, z);
  std::string err = m.Run({{"a", at}, {"b", zt}}, {"q"});
  EXPECT_NE(err.find("Integer division by zero"), std::string::npos) << err;
  EXPECT_NE(err.find("node 'q'"), std::string::npos) << err;
  grt_tensor_free(at);
  grt_tensor_free(bt);
  grt_tensor_free(zt);
}

// Div on int32, int16, int8 and uint8: C's truncated quotient (ONNX's
// integer Div; TensorFlow's TruncateDiv, not FloorDiv: -7 / 2 is -3, not
// -4), the most negative value over -1 wraps to itself instead of trapping,
// and a zero divisor is an error for each type.
template <typename T>
void ExpectTruncatedDivision(Model& m, const char* sfx, grt_dtype dt, const T (&a)[6],
                             const T (&b)[3]) {
  SCOPED_TRACE(sfx);
  std::string an = std::string("a_") + sfx, bn = std::string("b_") + sfx,
              qn = std::string("q_") + sfx;
  grt_tensor* at = Tensor(dt, {2, 3}, a);
  grt_tensor* bt = Tensor(dt, {3}, b);
  ASSERT_EQ(m.Run({{an.c_str(), at}, {bn.c_str(), bt}}, {qn.c_str()}), "");
  ASSERT_EQ(m.Dims(0), Dims({2, 3}));
  for (int i = 0; i < 6; i++) {
    int64_t x = a[i], y = b[i % 3];
    // Truncation, computed wide; INT_MIN / -1 is INT_MIN once narrowed.
    T want = y == -1 ? (T)(0 - (uint64_t)x) : (T)(x / y);
    EXPECT_EQ((int64_t)m.Data<T>(0)[i], (int64_t)want) << a[i] << " / " << b[i % 3];
  }
  T z[3] = {1, 0, 1};
  grt_tensor* zt = Tensor(dt, {3}, z);
  std::string err = m.Run({{an.c_str(), at}, {bn.c_str(), zt}}, {qn.c_str()});
  EXPECT_NE(err.find("Integer division by zero"), std::string::npos) << err;
  EXPECT_NE(err.find(qn), std::string::npos) << err;
  grt_tensor_free(at);
  grt_tensor_free(bt);
  grt_tensor_free(zt);
}

TEST(OnnxIntegerDiv, NarrowTypesTruncateWrapAndRefuseZero) {
  Model m("int_div_narrow");
  ASSERT_NE(m.s, nullptr);
  ExpectTruncatedDivision<int32_t>(m, "i32", GRT_INT32, {7, -7, INT32_MIN, -9, 9, INT32_MIN},
                                   {2, -4, -1});
  ExpectTruncatedDivision<int16_t>(m, "i16", GRT_INT16, {7, -7, INT16_MIN, -9, 9, INT16_MIN},
                                   {2, -4, -1});
  ExpectTruncatedDivision<int8_t>(m, "i8", GRT_INT8, {7, -7, INT8_MIN, -9, 9, INT8_MIN},
                                  {2, -4, -1});
  ExpectTruncatedDivision<uint8_t>(m, "u8", GRT_UINT8, {7, 255, 200, 9, 0, 128}, {2, 4, 255});
  // The values checked by hand for int32: -7 / 2 = -3, 7 / -4 = -1.
  Model h("int_div_narrow");
  const int32_t a[6] = {-7, 7, 1, 0, 0, 0}, b[3] = {2, -4, 3};
  grt_tensor* at = Tensor(GRT_INT32, {2, 3}, a);
  grt_tensor* bt = Tensor(GRT_INT32, {3}, b);
  ASSERT_EQ(h.Run({{"a_i32", at}, {"b_i32", bt}}, {"q_i32"}), "");
  EXPECT_EQ(h.Data<int32_t>(0)[0], -3);
  EXPECT_EQ(h.Data<int32_t>(0)[1], -1);
  EXPECT_EQ(h.Data<int32_t>(0)[2], 0);
  grt_tensor_free(at);
  grt_tensor_free(bt);
}

}  // namespace
