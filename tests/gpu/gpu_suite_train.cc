// The GPU suite, training: the mirrored training step (docs/parallel.md)
// with its two towers on two GPUs (two logical GPUs of one card when the
// machine has one), the variables, Adam's updates and the copy-and-reduce
// all-reduce on the GPUs. After 20 steps the GPU copies must be bitwise
// equal to each other and agree with the same graph on two CPU devices.
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs
// both halves on CPU devices).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuTrain : public GpuSuite {};

// The seeds' polynomial model; loss per example (as tests/parallel).
const char* kModel = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"y","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"w","op":"VariableV2","attrs":{"dtype":"float32","shape":[3,1]}},
 {"name":"w0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3,1],"values":[0.5,-1.25,2]}}},
 {"name":"w/Assign","op":"Assign","inputs":["w","w0"],"attrs":{"T":"float32"}},
 {"name":"sq","op":"Square","inputs":["x"],"attrs":{"T":"float32"}},
 {"name":"one","op":"OnesLike","inputs":["x"],"attrs":{"T":"float32"}},
 {"name":"f","op":"Pack","inputs":["sq","x","one"],"attrs":{"N":3,"T":"float32","axis":1}},
 {"name":"mm","op":"MatMul","inputs":["f","w"],"attrs":{"T":"float32"}},
 {"name":"yhat","op":"Squeeze","inputs":["mm"],"attrs":{"T":"float32","squeeze_dims":[1]}},
 {"name":"d","op":"Sub","inputs":["yhat","y"],"attrs":{"T":"float32"}},
 {"name":"loss","op":"Square","inputs":["d"],"attrs":{"T":"float32"}}
]})";

std::vector<float> Fetch(grt_session* s, const std::string& name) {
  grt_tensor* t = nullptr;
  const char* f[] = {name.c_str()};
  grt_status* st = grt_session_run(s, nullptr, 0, f, 1, nullptr, 0, &t, nullptr);
  EXPECT_EQ(st, nullptr) << name << ": " << grt_status_message(st);
  grt_status_free(st);
  if (!t) return {};
  t = Detach(t);
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  std::vector<float> v(p, p + grt_tensor_num_elements(t));
  grt_tensor_free(t);
  return v;
}

// w and tower_1/w after `steps` Adam steps of the mirrored graph on `dev`.
std::vector<std::vector<float>> Train(const char* const dev[2], bool gpus, int steps) {
  grt_graph* g = nullptr;
  EXPECT_EQ(grt_graph_from_json(kModel, strlen(kModel), &g), nullptr);
  const char* inputs[] = {"x", "y"};
  const char* outputs[] = {"loss"};
  grt_replicate_options ro{};
  ro.towers = 2;
  ro.tower_devices = dev;
  ro.n_tower_devices = 2;
  ro.inputs = inputs;
  ro.n_inputs = 2;
  ro.outputs = outputs;
  ro.n_outputs = 1;
  ro.mirrored = true;
  grt_graph* m = nullptr;
  grt_status* st = grt_graph_replicate(g, &ro, &m);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_mirrored_train_options mo{};
  mo.loss = "loss";
  mo.towers = 2;
  mo.tower_devices = dev;
  grt_optimizer_defaults(&mo.optimizer, "adam", 0.1);
  if (!st) st = grt_graph_add_mirrored_train_step(m, &mo);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "cpu.devices", "2"));
  // Ops without a GPU row (none expected) may fall back to the CPU.
  grt_status_free(grt_session_options_set(o, "allow_soft_placement", "true"));
  if (gpus && Gpus() < 2)
    grt_status_free(grt_session_options_set(o, "gpu.virtual_devices", "1024,1024"));
  grt_session* s = nullptr;
  st = grt_session_new(m, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  std::vector<std::vector<float>> out;
  if (s) {
    const char* init[] = {"init"};
    st = grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    int64_t n = 8;
    grt_tensor *x = nullptr, *y = nullptr;
    grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, &n, &x));
    grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, &n, &y));
    const float xs[8] = {-3, -2, -1, -0.5f, 0.25f, 1, 2.5f, 4};
    for (int i = 0; i < 8; i++) {
      static_cast<float*>(grt_tensor_data(x))[i] = xs[i];
      static_cast<float*>(grt_tensor_data(y))[i] = 5 * xs[i] * xs[i] + 3;
    }
    grt_feed feeds[] = {{"x", x}, {"y", y}};
    const char* train[] = {"train"};
    for (int k = 0; k < steps; k++) {
      st = grt_session_run(s, feeds, 2, nullptr, 0, train, 1, nullptr, nullptr);
      EXPECT_EQ(st, nullptr) << "step " << k << ": " << grt_status_message(st);
      grt_status_free(st);
    }
    out.push_back(Fetch(s, "w"));
    out.push_back(Fetch(s, "tower_1/w"));
    grt_tensor_free(x);
    grt_tensor_free(y);
    grt_session_free(s);
  }
  grt_session_options_free(o);
  grt_graph_free(m);
  grt_graph_free(g);
  return out;
}

TEST_F(GpuTrain, MirroredAdamOnTwoGpusMatchesTwoCpuDevices) {
  static const char* kGpu[] = {"/device:GPU:0", "/device:GPU:1"};
  static const char* kCpu[] = {"/cpu:0", "/cpu:1"};
  auto gpu = Train(Dry() ? kCpu : kGpu, !Dry(), 20);
  auto cpu = Train(kCpu, false, 20);
  ASSERT_EQ(gpu.size(), 2u);
  ASSERT_EQ(cpu.size(), 2u);
  ASSERT_EQ(gpu[0].size(), 3u);
  ASSERT_EQ(gpu[1].size(), 3u);
  EXPECT_EQ(memcmp(gpu[0].data(), gpu[1].data(), 3 * sizeof(float)), 0) << "the GPU copies differ";
  for (int i = 0; i < 3; i++)
    EXPECT_NEAR(gpu[0][i], cpu[0][i], 1e-4 * (1 + std::fabs(cpu[0][i]))) << i;
  EXPECT_NE(cpu[0], std::vector<float>({0.5f, -1.25f, 2}));  // it trained
}

}  // namespace
