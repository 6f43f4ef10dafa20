// ONNX ops added for the conformance work, with their parameters fed at
// run time and results computed here: Dropout's training_mode and ratio,
// NegativeLogLikelihoodLoss with fed targets and weights, Mod's integer
// division-by-zero error, and GatherElements / ScatterElements on 1-D data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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
    grt_session_free(s);
    grt_graph_free(g);
  }
  // The run's error message ("" when it succeeds); out receives the fetches.
  std::string Run(const std::vector<std::pair<const char*, grt_tensor*>>& feeds,
                  const std::vector<const char*>& fetches, std::vector<grt_tensor*>* out) {
    std::vector<grt_feed> f;
    for (auto& p : feeds) f.push_back({p.first, p.second});
    out->assign(fetches.size(), nullptr);
    return Message(grt_session_run(s, f.data(), (int32_t)f.size(), fetches.data(),
                                   (int32_t)fetches.size(), nullptr, 0, out->data(), nullptr));
  }
};

grt_tensor* Tensor(grt_dtype t, std::vector<int64_t> dims, const void* data) {
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(t, (int32_t)dims.size(), dims.data(), &out)), "");
  memcpy(grt_tensor_data(out), data, grt_tensor_byte_size(out));
  return out;
}

TEST(OnnxOpsAdded, DropoutTrainingModeAndRatioFed) {
  Model m("dropout_training");
  ASSERT_NE(m.s, nullptr);
  std::vector<float> x(1000);
  for (int i = 0; i < 1000; i++) x[i] = 0.25f + (float)i;
  grt_tensor* xt = Tensor(GRT_FLOAT32, {1000}, x.data());
  struct Case {
    bool training;
    float ratio;
  };
  for (Case c : {Case{false, 0.5f}, Case{true, 0.0f}, Case{true, 0.5f}}) {
    SCOPED_TRACE(std::to_string(c.training) + " " + std::to_string(c.ratio));
    grt_tensor* rt = Tensor(GRT_FLOAT32, {}, &c.ratio);
    grt_tensor* tt = Tensor(GRT_BOOL, {}, &c.training);
    std::vector<grt_tensor*> out;
    ASSERT_EQ(m.Run({{"x", xt}, {"ratio", rt}, {"training", tt}}, {"y", "mask"}, &out), "");
    const float* y = (const float*)grt_tensor_data(out[0]);
    const bool* mask = (const bool*)grt_tensor_data(out[1]);
    int kept = 0;
    float scale = 1.0f / (1.0f - c.ratio);
    for (int i = 0; i < 1000; i++) {
      if (!c.training || c.ratio == 0) {
        ASSERT_EQ(y[i], x[i]) << i;
        ASSERT_TRUE(mask[i]) << i;
      } else {
        ASSERT_EQ(y[i], mask[i] ? x[i] * scale : 0.0f) << i;
      }
      kept += mask[i];
    }
    if (c.training && c.ratio == 0.5f) {
      EXPECT_GT(kept, 400);
      EXPECT_LT(kept, 600);
    }
    for (grt_tensor* t : out) grt_tensor_free(t);
    grt_tensor_free(rt);
    grt_tensor_free(tt);
  }
  grt_tensor_free(xt);
}

TEST(OnnxOpsAdded, NegativeLogLikelihoodWithFedTargetsAndWeights) {
  Model m("nll_fed");
  ASSERT_NE(m.s, nullptr);
  float x[2][3][2];
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 3; c++)
      for (int d = 0; d < 2; d++) x[n][c][d] = -0.1f * (float)(1 + n * 6 + c * 2 + d);
  const int64_t targets[2][2][2] = {{{0, 2}, {1, 1}}, {{2, 1}, {0, 0}}};
  const float weight[3] = {0.5f, 2.0f, 1.5f};
  int32_t a[3] = {7, -7, 9}, b[3] = {3, 3, -4};
  grt_tensor* xt = Tensor(GRT_FLOAT32, {2, 3, 2}, x);
  grt_tensor* wt = Tensor(GRT_FLOAT32, {3}, weight);
  grt_tensor* at = Tensor(GRT_INT32, {3}, a);
  grt_tensor* bt = Tensor(GRT_INT32, {3}, b);
  for (const auto& target : targets) {
    double sum = 0, wsum = 0;
    for (int n = 0; n < 2; n++)
      for (int d = 0; d < 2; d++) {
        int64_t c = target[n][d];
        if (c == 1) continue;  // ignore_index
        sum += -(double)x[n][c][d] * weight[c];
        wsum += weight[c];
      }
    grt_tensor* tt = Tensor(GRT_INT64, {2, 2}, target);
    std::vector<grt_tensor*> out;
    ASSERT_EQ(m.Run({{"x", xt}, {"target", tt}, {"weight", wt}, {"a", at}, {"b", bt}},
                    {"loss", "rem"}, &out),
              "");
    EXPECT_NEAR(*(const float*)grt_tensor_data(out[0]), sum / wsum, 1e-6);
    const int32_t* rem = (const int32_t*)grt_tensor_data(out[1]);
    for (int i = 0; i < 3; i++) {
      int32_t want = a[i] - (int32_t)std::floor((double)a[i] / b[i]) * b[i];
      EXPECT_EQ(rem[i], want) << i;
    }
    for (grt_tensor* t : out) grt_tensor_free(t);
    grt_tensor_free(tt);
  }
  // A zero divisor fed to the integer Mod is an error, not a crash.
  int32_t zero[3] = {3, 0, 1};
  grt_tensor* zt = Tensor(GRT_INT32, {3}, zero);
  std::vector<grt_tensor*> out;
  EXPECT_NE(m.Run({{"a", at}, {"b", zt}}, {"rem"}, &out).find("Integer division by zero"),
            std::string::npos);
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_tensor_free(zt);
  grt_tensor_free(xt);
  grt_tensor_free(wt);
  grt_tensor_free(at);
  grt_tensor_free(bt);
}

// 1-D GatherElements and ScatterElements import and run (they were refused
// with an internal "ConcatV2: attr 'N' is 1"): negative indices count from
// the end; a plain scatter replaces, reduction "add" adds.
TEST(OnnxOpsAdded, OneDimensionalGatherAndScatterElements) {
  Model m("elements_1d");
  ASSERT_NE(m.s, nullptr);
  const float x[5] = {10, 11, 12, 13, 14};
  const int64_t i[4] = {4, 0, -1, -5};
  const int32_t j[3] = {1, -1, 2};
  const float u[3] = {0.5f, 0.25f, 2};
  grt_tensor* xt = Tensor(GRT_FLOAT32, {5}, x);
  grt_tensor* it = Tensor(GRT_INT64, {4}, i);
  grt_tensor* jt = Tensor(GRT_INT32, {3}, j);
  grt_tensor* ut = Tensor(GRT_FLOAT32, {3}, u);
  std::vector<grt_tensor*> out;
  ASSERT_EQ(m.Run({{"x", xt}, {"i", it}, {"j", jt}, {"u", ut}}, {"g", "s", "sa"}, &out), "");
  const float want_g[4] = {14, 10, 14, 10};
  const float want_s[5] = {10, 0.5f, 2, 13, 0.25f};
  const float want_sa[5] = {10, 11.5f, 14, 13, 14.25f};
  ASSERT_EQ(grt_tensor_num_elements(out[0]), 4);
  ASSERT_EQ(grt_tensor_num_elements(out[1]), 5);
  ASSERT_EQ(grt_tensor_num_elements(out[2]), 5);
  for (int k = 0; k < 4; k++) EXPECT_EQ(((const float*)grt_tensor_data(out[0]))[k], want_g[k]) << k;
  for (int k = 0; k < 5; k++) {
    EXPECT_EQ(((const float*)grt_tensor_data(out[1]))[k], want_s[k]) << k;
    EXPECT_EQ(((const float*)grt_tensor_data(out[2]))[k], want_sa[k]) << k;
  }
  for (grt_tensor* t : out) grt_tensor_free(t);
  // An index out of range is an error, not a read outside the data.
  const int64_t bad[4] = {0, 5, 0, 0};
  grt_tensor* bt = Tensor(GRT_INT64, {4}, bad);
  std::string err = m.Run({{"x", xt}, {"i", bt}, {"j", jt}, {"u", ut}}, {"g"}, &out);
  EXPECT_NE(err, "");
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_tensor_free(bt);
  grt_tensor_free(xt);
  grt_tensor_free(it);
  grt_tensor_free(jt);
  grt_tensor_free(ut);
}

}  // namespace
