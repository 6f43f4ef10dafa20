// Mirrored training: every tower keeps its own copy of the variables,
// gradients are all-reduced on every device, and each copy applies the same
// update. The copies stay bitwise identical step after step, and match one
// device trained on the whole batch.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

// The seeds' polynomial model; loss per example.
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

grt_graph* Model() {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(kModel, strlen(kModel), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

grt_tensor* Vec(const std::vector<float>& v) {
  int64_t n = (int64_t)v.size();
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, &n, &t));
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

struct Trainer {
  grt_session* s = nullptr;
  grt_tensor *x = nullptr, *y = nullptr;
  explicit Trainer(grt_graph* g) {
    grt_session_options* o = nullptr;
    grt_status_free(grt_session_options_new(&o));
    grt_status_free(grt_session_options_set(o, "cpu.devices", "4"));
    grt_status* st = grt_session_new(g, o, &s);
    grt_session_options_free(o);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    const char* init[] = {"init"};
    st = grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    std::vector<float> xs = {-3, -2, -1, -0.5f, 0.25f, 1, 2.5f, 4}, ys;
    for (float v : xs) ys.push_back(5 * v * v + 3);
    x = Vec(xs);
    y = Vec(ys);
  }
  ~Trainer() {
    grt_tensor_free(x);
    grt_tensor_free(y);
    grt_session_free(s);
  }
  void Step() {
    grt_feed feeds[] = {{"x", x}, {"y", y}};
    const char* train[] = {"train"};
    ASSERT_OK(grt_session_run(s, feeds, 2, nullptr, 0, train, 1, nullptr, nullptr));
  }
  std::vector<float> Get(const std::string& name) {
    grt_tensor* t = nullptr;
    const char* f[] = {name.c_str()};
    grt_status* st = grt_session_run(s, nullptr, 0, f, 1, nullptr, 0, &t, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    if (!t) return {};
    const float* p = static_cast<const float*>(grt_tensor_data(t));
    std::vector<float> v(p, p + grt_tensor_num_elements(t));
    grt_tensor_free(t);
    return v;
  }
};

void CheckMirrored(int towers, const char* optimizer, double lr) {
  static const char* kDev[] = {"/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"};
  grt_graph* g = Model();
  // One device, the whole batch.
  grt_graph* one = Model();
  grt_train_options to{};
  to.loss = "loss";
  grt_optimizer_defaults(&to.optimizer, optimizer, lr);
  ASSERT_OK(grt_graph_add_train_step(one, &to));
  // Mirrored towers.
  const char* inputs[] = {"x", "y"};
  const char* outputs[] = {"loss"};
  grt_replicate_options ro{};
  ro.towers = towers;
  ro.tower_devices = kDev;
  ro.n_tower_devices = towers;
  ro.inputs = inputs;
  ro.n_inputs = 2;
  ro.outputs = outputs;
  ro.n_outputs = 1;
  ro.mirrored = true;
  grt_graph* m = nullptr;
  ASSERT_OK(grt_graph_replicate(g, &ro, &m));
  grt_mirrored_train_options mo{};
  mo.loss = "loss";
  mo.towers = towers;
  mo.tower_devices = kDev;
  grt_optimizer_defaults(&mo.optimizer, optimizer, lr);
  ASSERT_OK(grt_graph_add_mirrored_train_step(m, &mo));
  {
    Trainer a(one), b(m);
    for (int step = 1; step <= 40; step++) {
      a.Step();
      b.Step();
      std::vector<float> ref = a.Get("w"), w0 = b.Get("w");
      ASSERT_EQ(w0.size(), 3u);
      for (int k = 1; k < towers; k++) {
        std::vector<float> wk = b.Get("tower_" + std::to_string(k) + "/w");
        ASSERT_EQ(memcmp(w0.data(), wk.data(), 3 * sizeof(float)), 0)
            << "copy " << k << " differs after step " << step;
      }
      for (int i = 0; i < 3; i++)
        EXPECT_NEAR(w0[i], ref[i], 1e-4 * (1 + std::abs(ref[i]))) << "step " << step;
    }
    EXPECT_NE(a.Get("w"), std::vector<float>({0.5f, -1.25f, 2}));  // it trained
  }
  // The copies and the reductions are on the towers' devices.
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "cpu.devices", "4"));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(m, o, &s));
  const grt_plan* plan = grt_session_plan(s);
  for (int k = 0; k < towers; k++) {
    std::string copy = k ? "tower_" + std::to_string(k) + "/w" : "w";
    std::string sum = "allreduce/w/sum_" + std::to_string(k);
    for (const std::string& name : {copy, sum}) {
      int32_t i = -1;
      for (int32_t j = 0; j < grt_graph_num_nodes(m); j++)
        if (name == grt_graph_node_name(m, j)) i = j;
      ASSERT_GE(i, 0) << name;
      std::string dev = grt_plan_node_device_name(plan, i);
      EXPECT_NE(dev.find("CPU:" + std::to_string(k)), std::string::npos) << name << " on " << dev;
    }
  }
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(m);
  grt_graph_free(one);
  grt_graph_free(g);
}

// Adam, and plain SGD, whose update scales with the gradient: a sum where a
// mean belongs (or the reverse) would not match one device.
TEST(Mirrored, TwoTowersStayIdenticalAndMatchOneDevice) {
  CheckMirrored(2, "adam", 0.1);
  CheckMirrored(2, "sgd", 1e-4);
}
TEST(Mirrored, FourTowersStayIdenticalAndMatchOneDevice) {
  CheckMirrored(4, "adam", 0.1);
  CheckMirrored(4, "sgd", 1e-4);
}

TEST(Mirrored, NeedsTowerDevicesAndNoVariableDevice) {
  grt_graph* g = Model();
  const char* inputs[] = {"x", "y"};
  const char* outputs[] = {"loss"};
  grt_replicate_options ro{};
  ro.towers = 2;
  ro.inputs = inputs;
  ro.n_inputs = 2;
  ro.outputs = outputs;
  ro.n_outputs = 1;
  ro.mirrored = true;
  grt_graph* m = nullptr;
  grt_status* st = grt_graph_replicate(g, &ro, &m);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(
      std::string(grt_status_message(st)).find("mirrored variables live on the tower devices"),
      std::string::npos);
  grt_status_free(st);
  grt_graph_free(g);
}

}  // namespace

namespace {

// A copy starts from the variable's initialised value: its initialiser reads
// an Identity of the variable that runs after the variable's own
// initialiser. Reading the variable directly let a cross-device Send copy it
// before it was initialised (seen on GPUs, where the copy is taken when the
// Send runs).
TEST(Mirrored, CopiesStartFromTheInitialisedValue) {
  grt_graph* g = Model();
  const char* inputs[] = {"x", "y"};
  const char* outputs[] = {"loss"};
  const char* devices[] = {"/cpu:0", "/cpu:1"};
  grt_replicate_options ro{};
  ro.towers = 2;
  ro.tower_devices = devices;
  ro.n_tower_devices = 2;
  ro.inputs = inputs;
  ro.n_inputs = 2;
  ro.outputs = outputs;
  ro.n_outputs = 1;
  ro.mirrored = true;
  grt_graph* m = nullptr;
  ASSERT_OK(grt_graph_replicate(g, &ro, &m));
  int32_t init = grt_graph_find_node(m, "tower_1/w/mirror_init");
  ASSERT_GE(init, 0);
  ASSERT_EQ(grt_graph_node_num_inputs(m, init), 2);
  int32_t k = -1;
  std::string source = grt_graph_node_input(m, init, 1, &k);
  EXPECT_EQ(source, "w/mirror_value");
  int32_t value = grt_graph_find_node(m, source.c_str());
  ASSERT_GE(value, 0);
  EXPECT_STREQ(grt_graph_node_op(m, value), "Identity");
  EXPECT_STREQ(grt_graph_node_device(m, value), "/cpu:0");
  EXPECT_STREQ(grt_graph_node_input(m, value, 0, &k), "w");
  ASSERT_EQ(grt_graph_node_num_control_inputs(m, value), 1);
  EXPECT_STREQ(grt_graph_node_control_input(m, value, 0), "w/Assign");
  grt_graph_free(m);
  grt_graph_free(g);
}

}  // namespace
