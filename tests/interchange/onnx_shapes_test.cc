// Shape inference on ONNX import: lowerings that need a rank or a size get
// it from inferred shapes (MaxPool ceil_mode on a computed value, an LSTM's
// sequence length after a Transpose, LayerNormalization / Transpose without
// perm / Split along a negative axis with no value_info, Resize and
// training BatchNormalization of an Expand's output), shape arithmetic
// becomes constants, and a model whose declared shapes contradict the
// inferred ones fails at conversion naming the node, the value and both
// shapes. Results are checked against references computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "interchange/interchange.h"
}

namespace {

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

std::string Path(const char* name) { return std::string("tests/interchange/onnx/") + name; }

std::string Read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

grt_tensor* Tensor(grt_dtype t, std::vector<int64_t> dims, const void* data) {
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(t, (int32_t)dims.size(), dims.data(), &out)), "");
  memcpy(grt_tensor_data(out), data, grt_tensor_byte_size(out));
  return out;
}

// Loads, runs with the feeds, returns the fetches (caller frees).
std::vector<grt_tensor*> RunModel(const char* model,
                                  const std::vector<std::pair<const char*, grt_tensor*>>& feeds,
                                  const std::vector<const char*>& fetches) {
  grt_graph* g = nullptr;
  grt_session* s = nullptr;
  std::vector<grt_tensor*> out(fetches.size(), nullptr);
  EXPECT_EQ(Message(grt_graph_load((Path(model) + ".onnx").c_str(), &g)), "");
  if (!g) return out;
  EXPECT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
  if (s) {
    std::vector<grt_feed> f;
    for (auto& p : feeds) f.push_back({p.first, p.second});
    EXPECT_EQ(Message(grt_session_run(s, f.data(), (int32_t)f.size(), fetches.data(),
                                      (int32_t)fetches.size(), nullptr, 0, out.data(), nullptr)),
              "");
  }
  grt_session_free(s);
  grt_graph_free(g);
  return out;
}

void Collect(void* user, const char* value, const grt_shape* shape) {
  (*static_cast<std::map<std::string, std::vector<int64_t>>*>(user))[value] =
      shape->rank < 0 ? std::vector<int64_t>{-99}
                      : std::vector<int64_t>(shape->dims, shape->dims + shape->rank);
}

// Every value's inferred shape ({-99} for an unknown rank).
std::map<std::string, std::vector<int64_t>> Shapes(const char* model) {
  std::map<std::string, std::vector<int64_t>> out;
  std::string bytes = Read(Path(model) + ".onnx");
  grt_graph* g = nullptr;
  EXPECT_EQ(Message(grt_onnx_parse_shapes(bytes.data(), bytes.size(), Collect, &out, &g)), "");
  grt_graph_free(g);
  return out;
}

using Dims = std::vector<int64_t>;

TEST(OnnxShapes, CeilModePoolOnAComputedValueWithASymbolicBatch) {
  auto shapes = Shapes("shapes_ceil_pool");
  EXPECT_EQ(shapes["x"], (Dims{-1, 1, 5, 5}));
  EXPECT_EQ(shapes["r"], (Dims{-1, 1, 5, 5}));
  EXPECT_EQ(shapes["y"], (Dims{-1, 1, 3, 3}));
  for (int64_t batch : {1, 2}) {
    std::vector<float> x(batch * 25);
    for (size_t i = 0; i < x.size(); i++) x[i] = (float)((i * 7) % 11) - 4.0f;
    grt_tensor* xt = Tensor(GRT_FLOAT32, {batch, 1, 5, 5}, x.data());
    std::vector<grt_tensor*> out = RunModel("shapes_ceil_pool", {{"x", xt}}, {"y"});
    ASSERT_NE(out[0], nullptr);
    ASSERT_EQ(grt_tensor_dim(out[0], 0), batch);
    ASSERT_EQ(grt_tensor_dim(out[0], 2), 3);
    ASSERT_EQ(grt_tensor_dim(out[0], 3), 3);
    const float* y = static_cast<const float*>(grt_tensor_data(out[0]));
    for (int64_t b = 0; b < batch; b++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          float m = -1e30f;  // the last window holds the 5th row/column only
          for (int di = 0; di < 2; di++)
            for (int dj = 0; dj < 2; dj++)
              if (2 * i + di < 5 && 2 * j + dj < 5)
                m = std::max(m, std::max(0.0f, x[b * 25 + (2 * i + di) * 5 + 2 * j + dj]));
          EXPECT_EQ(y[b * 9 + i * 3 + j], m) << b << "," << i << "," << j;
        }
    grt_tensor_free(out[0]);
    grt_tensor_free(xt);
  }
}

float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

TEST(OnnxShapes, LstmSequenceLengthFromATransposedInput) {
  auto shapes = Shapes("shapes_lstm");
  EXPECT_EQ(shapes["xt"], (Dims{3, 2, 4}));
  EXPECT_EQ(shapes["Y"], (Dims{3, 1, 2, 2}));
  EXPECT_EQ(shapes["Y_h"], (Dims{1, 2, 2}));
  const int B = 2, T = 3, I = 4, H = 2;
  std::vector<float> x(B * T * I), w(4 * H * I), r(4 * H * H), bias(8 * H);
  for (size_t i = 0; i < x.size(); i++) x[i] = std::sin(0.7f * i);
  for (size_t i = 0; i < w.size(); i++) w[i] = 0.3f * std::cos(1.3f * i);
  for (size_t i = 0; i < r.size(); i++) r[i] = 0.2f * std::sin(0.9f * i + 1);
  for (size_t i = 0; i < bias.size(); i++) bias[i] = 0.05f * (float)i - 0.3f;
  grt_tensor* xt = Tensor(GRT_FLOAT32, {B, T, I}, x.data());
  grt_tensor* wt = Tensor(GRT_FLOAT32, {1, 4 * H, I}, w.data());
  grt_tensor* rt = Tensor(GRT_FLOAT32, {1, 4 * H, H}, r.data());
  grt_tensor* bt = Tensor(GRT_FLOAT32, {1, 8 * H}, bias.data());
  std::vector<grt_tensor*> out =
      RunModel("shapes_lstm", {{"x", xt}, {"W", wt}, {"R", rt}, {"B", bt}}, {"Y_h"});
  ASSERT_NE(out[0], nullptr);
  ASSERT_EQ(grt_tensor_num_elements(out[0]), B * H);
  const float* got = static_cast<const float*>(grt_tensor_data(out[0]));
  for (int b = 0; b < B; b++) {
    float h[H] = {0, 0}, c[H] = {0, 0};
    for (int t = 0; t < T; t++) {
      float g[4 * H];  // ONNX's gate order: i o f c
      for (int k = 0; k < 4 * H; k++) {
        float v = bias[k] + bias[4 * H + k];
        for (int j = 0; j < I; j++) v += x[(b * T + t) * I + j] * w[k * I + j];
        for (int j = 0; j < H; j++) v += h[j] * r[k * H + j];
        g[k] = v;
      }
      for (int j = 0; j < H; j++) {
        float in = Sigmoid(g[j]), o = Sigmoid(g[H + j]), f = Sigmoid(g[2 * H + j]);
        c[j] = f * c[j] + in * std::tanh(g[3 * H + j]);
        h[j] = o * std::tanh(c[j]);
      }
    }
    for (int j = 0; j < H; j++) EXPECT_NEAR(got[b * H + j], h[j], 1e-5) << b << "," << j;
  }
  grt_tensor_free(out[0]);
  for (grt_tensor* t : {xt, wt, rt, bt}) grt_tensor_free(t);
}

// The recurrence is one node looping at run time: a symbolic sequence
// length stays symbolic through import and binds per run.
TEST(OnnxShapes, LstmWithASymbolicSequenceLength) {
  auto shapes = Shapes("shapes_lstm_symbolic");
  EXPECT_EQ(shapes["Y"], (Dims{-1, 1, 1, 2}));
  for (int64_t steps : {1, 7}) {
    std::vector<float> x(steps * 4, 0.5f), w(8 * 4, 0.1f), r(8 * 2, -0.2f);
    grt_tensor* xt = Tensor(GRT_FLOAT32, {steps, 1, 4}, x.data());
    grt_tensor* wt = Tensor(GRT_FLOAT32, {1, 8, 4}, w.data());
    grt_tensor* rt = Tensor(GRT_FLOAT32, {1, 8, 2}, r.data());
    std::vector<grt_tensor*> out =
        RunModel("shapes_lstm_symbolic", {{"x", xt}, {"W", wt}, {"R", rt}}, {"Y"});
    ASSERT_NE(out[0], nullptr);
    EXPECT_EQ(grt_tensor_dim(out[0], 0), steps);
    // The first step from zero state: c = i g, h = o tanh(c), every gate's
    // pre-activation 4 * 0.1 * 0.5.
    const float* y = static_cast<const float*>(grt_tensor_data(out[0]));
    float gate = Sigmoid(0.2f), c = gate * std::tanh(0.2f);
    EXPECT_NEAR(y[0], gate * std::tanh(c), 1e-6);
    grt_tensor_free(out[0]);
    for (grt_tensor* t : {xt, wt, rt}) grt_tensor_free(t);
  }
}

TEST(OnnxShapes, LayerNormTransposeSplitNeedOnlyInferredRanks) {
  auto shapes = Shapes("shapes_layernorm");
  EXPECT_EQ(shapes["n"], (Dims{3, 2, 4}));
  EXPECT_EQ(shapes["t"], (Dims{4, 2, 3}));
  EXPECT_EQ(shapes["a"], (Dims{4, 2, 1}));
  EXPECT_EQ(shapes["b"], (Dims{4, 2, 2}));
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); i++) x[i] = std::cos(0.37f * i) * (float)(i % 5);
  const float scale[4] = {1, 2, 0.5f, -1}, bias[4] = {0, 0.25f, -0.5f, 1};
  float n[3][2][4];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) {
      double mean = 0, var = 0;
      for (int k = 0; k < 4; k++) mean += 2 * x[(i * 2 + j) * 4 + k] / 4.0;
      for (int k = 0; k < 4; k++) {
        double d = 2 * x[(i * 2 + j) * 4 + k] - mean;
        var += d * d / 4.0;
      }
      for (int k = 0; k < 4; k++)
        n[i][j][k] =
            (float)((2 * x[(i * 2 + j) * 4 + k] - mean) / std::sqrt(var + 0.001)) * scale[k] +
            bias[k];
    }
  grt_tensor* xt = Tensor(GRT_FLOAT32, {3, 2, 4}, x.data());
  std::vector<grt_tensor*> out = RunModel("shapes_layernorm", {{"x", xt}}, {"a", "b"});
  ASSERT_NE(out[0], nullptr);
  ASSERT_NE(out[1], nullptr);
  const float* a = static_cast<const float*>(grt_tensor_data(out[0]));
  const float* b = static_cast<const float*>(grt_tensor_data(out[1]));
  // t = transpose(n) is [4,2,3]; a = t[..., :1], b = t[..., 1:].
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 2; j++) {
      EXPECT_NEAR(a[k * 2 + j], n[0][j][k], 1e-4) << k << "," << j;
      for (int i = 1; i < 3; i++)
        EXPECT_NEAR(b[(k * 2 + j) * 2 + i - 1], n[i][j][k], 1e-4) << k << "," << j << "," << i;
    }
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_tensor_free(xt);
}

TEST(OnnxShapes, ResizeAndTrainingBatchNormOfAnExpand) {
  auto shapes = Shapes("shapes_resize_bn");
  EXPECT_EQ(shapes["e"], (Dims{2, 2, 1, 2}));
  // Resize's sizes come from float arithmetic at run time: only the rank.
  EXPECT_EQ(shapes["r"], (Dims{-1, -1, -1, -1}));
  EXPECT_EQ(shapes["bn"], (Dims{2, 2, 1, 2}));
  EXPECT_EQ(shapes["running_mean"], (Dims{2}));
  const float x[4] = {1, -2, 0.5f, 3};  // [1,2,1,2]: channel c holds x[2c], x[2c+1]
  grt_tensor* xt = Tensor(GRT_FLOAT32, {1, 2, 1, 2}, x);
  std::vector<grt_tensor*> out = RunModel("shapes_resize_bn", {{"x", xt}}, {"r", "bn"});
  ASSERT_NE(out[0], nullptr);
  ASSERT_NE(out[1], nullptr);
  const float* r = static_cast<const float*>(grt_tensor_data(out[0]));
  // nearest (half_pixel, round_prefer_floor) at scale 2: each value twice.
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 2; c++)
      for (int h = 0; h < 2; h++)
        for (int w = 0; w < 4; w++)
          EXPECT_EQ(r[((n * 2 + c) * 2 + h) * 4 + w], x[c * 2 + w / 2]) << n << c << h << w;
  const float* bn = static_cast<const float*>(grt_tensor_data(out[1]));
  const float scale[2] = {1.5f, -1}, bias[2] = {0.5f, 2};
  for (int c = 0; c < 2; c++) {
    double a = x[2 * c], b = x[2 * c + 1], m = (a + b) / 2;
    double var = ((a - m) * (a - m) + (b - m) * (b - m)) / 2;
    for (int n = 0; n < 2; n++)
      for (int w = 0; w < 2; w++)
        EXPECT_NEAR(bn[(n * 2 + c) * 2 + w],
                    (x[2 * c + w] - m) / std::sqrt(var + 0.01) * scale[c] + bias[c], 1e-5)
            << n << c << w;
  }
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_tensor_free(xt);
}

TEST(OnnxShapes, ShapeArithmeticBecomesConstants) {
  auto shapes = Shapes("shapes_subgraph");
  EXPECT_EQ(shapes["s"], (Dims{3}));
  EXPECT_EQ(shapes["target"], (Dims{2}));
  EXPECT_EQ(shapes["y"], (Dims{2, 12}));
  EXPECT_EQ(shapes["f"], (Dims{6, 4}));
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_load((Path("shapes_subgraph") + ".onnx").c_str(), &g)), "");
  // Shape, Gather, Unsqueeze and Concat were folded into Consts.
  for (const char* name : {"s", "n", "n1", "target"})
    EXPECT_STREQ(grt_graph_node_op(g, grt_graph_find_node(g, name)), "Const") << name;
  grt_graph_free(g);
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); i++) x[i] = (float)i;
  grt_tensor* xt = Tensor(GRT_FLOAT32, {2, 3, 4}, x.data());
  std::vector<grt_tensor*> out = RunModel("shapes_subgraph", {{"x", xt}}, {"y", "f"});
  ASSERT_NE(out[0], nullptr);
  EXPECT_EQ(grt_tensor_dim(out[0], 1), 12);
  EXPECT_EQ(grt_tensor_dim(out[1], 0), 6);
  EXPECT_EQ(memcmp(grt_tensor_data(out[0]), x.data(), x.size() * 4), 0);
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_tensor_free(xt);
}

TEST(OnnxShapes, ErrorsNameTheNodeTheValueAndBothShapes) {
  for (const char* c : {"shapes_conflict", "shapes_param_conflict"}) {
    SCOPED_TRACE(c);
    std::ifstream f(Path(c) + ".textproto");
    std::string line;
    std::getline(f, line);
    const std::string tag = "# expect: ";
    ASSERT_EQ(line.compare(0, tag.size(), tag), 0);
    grt_graph* g = nullptr;
    std::string m = Message(grt_graph_load((Path(c) + ".onnx").c_str(), &g));
    EXPECT_NE(m.find(line.substr(tag.size())), std::string::npos) << m;
    EXPECT_EQ(g, nullptr);
  }
}

}  // namespace
