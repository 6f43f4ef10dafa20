// Training is deterministic: a model whose gradients read other variables
// (two layers: the first layer's gradient reads the second layer's weights)
// trained twice from the same start on the same batches ends with the same
// bits, with several threads running nodes. The optimizer's updates change
// variables in place, so an update must not start while a gradient still
// reads the variable it changes.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/training/grad_check.h"

namespace grt_test {
namespace {

#define EXPECT_OK(expr)                                 \
  do {                                                  \
    grt_status* st_ = (expr);                           \
    EXPECT_EQ(st_, nullptr) << grt_status_message(st_); \
    grt_status_free(st_);                               \
  } while (0)

std::string Values(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::string s;
  for (int i = 0; i < n; i++) s += (i ? "," : "") + std::to_string(u(rng));
  return s;
}

// x[B,32] -> tanh(x W1) [B,64] -> tanh(. W2) [B,64] -> . W3 [B,1]; loss = mean (yhat - y)^2.
std::string Model() {
  std::string v;
  auto var = [&](const char* name, int rows, int cols, uint32_t seed) {
    std::string shape = "[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
    v += std::string(R"({"name":")") + name +
         R"(","op":"VariableV2","attrs":{"dtype":"float32","shape":)" + shape + "}},\n";
    v +=
        std::string(R"({"name":")") + name +
        R"(/initial_value","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":)" +
        shape + R"(,"values":[)" + Values(rows * cols, seed) + "]}}},\n";
    v += std::string(R"({"name":")") + name + R"(/Assign","op":"Assign","inputs":[")" + name +
         R"(",")" + name + "/initial_value\"]},\n";
  };
  var("w1", 32, 64, 1);
  var("w2", 64, 64, 2);
  var("w3", 64, 1, 3);
  return "{\"format\":\"grt.graph\",\"version\":1,\"nodes\":[" + v + R"(
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,32]}},
  {"name":"y","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,1]}},
  {"name":"h1","op":"MatMul","inputs":["x","w1"]},
  {"name":"a1","op":"Tanh","inputs":["h1"]},
  {"name":"h2","op":"MatMul","inputs":["a1","w2"]},
  {"name":"a2","op":"Tanh","inputs":["h2"]},
  {"name":"yhat","op":"MatMul","inputs":["a2","w3"]},
  {"name":"diff","op":"Sub","inputs":["yhat","y"]},
  {"name":"loss","op":"Square","inputs":["diff"]}]})";
}

// Trains `steps` momentum steps on fixed batches; returns the variables' bytes.
std::string Train(const char* optimizer, int steps) {
  std::string text = Model();
  grt_graph* g = nullptr;
  EXPECT_OK(grt_graph_from_json(text.data(), text.size(), &g));
  if (!g) return "";
  grt_train_options o = {};
  o.loss = "loss";
  grt_optimizer_defaults(&o.optimizer, optimizer, 0.05);
  EXPECT_OK(grt_graph_add_train_step(g, &o));
  grt_session_options* so = nullptr;
  EXPECT_OK(grt_session_options_new(&so));
  EXPECT_OK(grt_session_options_set(so, "inter_op_threads", "4"));
  EXPECT_OK(grt_session_options_set(so, "intra_op_threads", "1"));
  grt_session* s = nullptr;
  EXPECT_OK(grt_session_new(g, so, &s));
  grt_session_options_free(so);
  std::string bytes;
  if (s) {
    const char* init = "init";
    EXPECT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, &init, 1, nullptr, nullptr));
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    grt_tensor* xt = Tensor(GRT_FLOAT32, {16, 32}, {0});
    grt_tensor* yt = Tensor(GRT_FLOAT32, {16, 1}, {0});
    const char* feeds[2] = {"x", "y"};
    const char* train = "train";
    for (int step = 0; step < steps; step++) {
      float* xv = static_cast<float*>(grt_tensor_data(xt));
      float* yv = static_cast<float*>(grt_tensor_data(yt));
      for (int i = 0; i < 16 * 32; i++) xv[i] = u(rng);
      for (int i = 0; i < 16; i++) yv[i] = xv[i * 32] * xv[i * 32 + 1];
      grt_feed in[2] = {{feeds[0], xt}, {feeds[1], yt}};
      EXPECT_OK(grt_session_run(s, in, 2, nullptr, 0, &train, 1, nullptr, nullptr));
    }
    grt_tensor_free(xt);
    grt_tensor_free(yt);
    const char* fetch[3] = {"w1", "w2", "w3"};
    grt_tensor* out[3] = {nullptr, nullptr, nullptr};
    EXPECT_OK(grt_session_run(s, nullptr, 0, fetch, 3, nullptr, 0, out, nullptr));
    for (grt_tensor* t : out)
      if (t) {
        bytes.append(static_cast<const char*>(grt_tensor_data(t)), grt_tensor_byte_size(t));
        grt_tensor_free(t);
      }
    grt_session_free(s);
  }
  grt_graph_free(g);
  return bytes;
}

TEST(Determinism, TwoTrainingsFromOneStartEndBitIdentical) {
  for (const char* opt : {"momentum", "adam", "sgd"}) {
    std::string first = Train(opt, 150);
    ASSERT_FALSE(first.empty());
    for (int again = 0; again < 3; again++)
      ASSERT_TRUE(Train(opt, 150) == first)
          << opt << ": training " << again + 2 << " ended with different variables";
  }
}

}  // namespace
}  // namespace grt_test
