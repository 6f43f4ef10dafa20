// Mirrored training with all_reduce COLLECTIVE (one NcclAllReduce group per
// variable) against the AddN all-reduce: the same trained variables on 2
// and 4 logical CPUs, every copy identical, and the graph really reducing
// through NcclAllReduce groups.
#include <gtest/gtest.h>

#include <cmath>
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

// A linear model with a weight and a bias: two variables, so two groups per
// step. No gradient reads a variable (the weight's is x^T g, the bias's a
// sum), so every read of a step comes before its updates and the training
// is deterministic; a model whose gradients read variables that another
// update may already be changing in place would race in either form.
const char* kModel = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,2]}},
 {"name":"y","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"w","op":"VariableV2","attrs":{"dtype":"float32","shape":[2,1]}},
 {"name":"w0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2,1],"values":[0.5,-1.25]}}},
 {"name":"w/Assign","op":"Assign","inputs":["w","w0"],"attrs":{"T":"float32"}},
 {"name":"v","op":"VariableV2","attrs":{"dtype":"float32","shape":[1]}},
 {"name":"v0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[1],"values":[0.2]}}},
 {"name":"v/Assign","op":"Assign","inputs":["v","v0"],"attrs":{"T":"float32"}},
 {"name":"mm","op":"MatMul","inputs":["x","w"],"attrs":{"T":"float32"}},
 {"name":"b","op":"Add","inputs":["mm","v"],"attrs":{"T":"float32"}},
 {"name":"yhat","op":"Squeeze","inputs":["b"],"attrs":{"T":"float32","squeeze_dims":[1]}},
 {"name":"d","op":"Sub","inputs":["yhat","y"],"attrs":{"T":"float32"}},
 {"name":"loss","op":"Square","inputs":["d"],"attrs":{"T":"float32"}}
]})";

const char* kDev[] = {"/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"};

grt_graph* Mirrored(int towers, grt_all_reduce_impl impl) {
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(kModel, strlen(kModel), &g);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
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
  st = grt_graph_replicate(g, &ro, &m);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_graph_free(g);
  grt_mirrored_train_options mo{};
  mo.loss = "loss";
  mo.towers = towers;
  mo.tower_devices = kDev;
  mo.all_reduce = impl;
  grt_optimizer_defaults(&mo.optimizer, "momentum", 0.05);
  st = grt_graph_add_mirrored_train_step(m, &mo);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  return m;
}

grt_tensor* Tensor(std::vector<int64_t> dims, const std::vector<float>& v) {
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t));
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

// Trains `steps` steps and returns every tower's copy of w and v.
std::vector<std::vector<float>> Train(grt_graph* m, int towers, int steps) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "cpu.devices", "4"));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(m, o, &s);
  grt_session_options_free(o);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  if (!s) return {};
  const char* init[] = {"init"};
  st = grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  std::vector<float> xs, ys;
  for (int i = 0; i < 8; i++) {
    float a = -1.5f + 0.4f * (float)i, b = 0.3f * (float)(i % 3) - 0.2f;
    xs.push_back(a);
    xs.push_back(b);
    ys.push_back(1.5f * a - 0.75f * b + 0.3f);
  }
  grt_tensor* x = Tensor({8, 2}, xs);
  grt_tensor* y = Tensor({8}, ys);
  grt_feed feeds[] = {{"x", x}, {"y", y}};
  const char* train[] = {"train"};
  for (int i = 0; i < steps; i++) {
    st = grt_session_run(s, feeds, 2, nullptr, 0, train, 1, nullptr, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
  }
  std::vector<std::vector<float>> out;
  for (int k = 0; k < towers; k++)
    for (const char* var : {"w", "v"}) {
      std::string name = k ? "tower_" + std::to_string(k) + "/" + var : var;
      const char* f[] = {name.c_str()};
      grt_tensor* t = nullptr;
      st = grt_session_run(s, nullptr, 0, f, 1, nullptr, 0, &t, nullptr);
      EXPECT_EQ(st, nullptr) << grt_status_message(st);
      grt_status_free(st);
      const float* p = t ? static_cast<const float*>(grt_tensor_data(t)) : nullptr;
      out.push_back(p ? std::vector<float>(p, p + grt_tensor_num_elements(t))
                      : std::vector<float>{});
      grt_tensor_free(t);
    }
  grt_tensor_free(x);
  grt_tensor_free(y);
  grt_session_free(s);
  return out;
}

void Check(int towers) {
  grt_graph* add_n = Mirrored(towers, GRT_ALL_REDUCE_ADD_N);
  grt_graph* coll = Mirrored(towers, GRT_ALL_REDUCE_COLLECTIVE);
  ASSERT_NE(add_n, nullptr);
  ASSERT_NE(coll, nullptr);
  // The collective graph reduces through one group per variable, one member
  // per tower; the AddN graph through none.
  int members = 0, add_ns = 0;
  for (int32_t i = 0; i < grt_graph_num_nodes(coll); i++) {
    if (strcmp(grt_graph_node_op(coll, i), "NcclAllReduce")) continue;
    const char* shared = "";
    ASSERT_OK(grt_graph_node_attr_string(coll, i, "shared_name", &shared));
    EXPECT_TRUE(!strcmp(shared, "allreduce/w") || !strcmp(shared, "allreduce/v")) << shared;
    members++;
  }
  for (int32_t i = 0; i < grt_graph_num_nodes(add_n); i++) {
    EXPECT_STRNE(grt_graph_node_op(add_n, i), "NcclAllReduce");
    add_ns += !strcmp(grt_graph_node_op(add_n, i), "AddN") &&
              !strncmp(grt_graph_node_name(add_n, i), "allreduce/", 10);
  }
  EXPECT_EQ(members, 2 * towers);
  EXPECT_EQ(add_ns, towers > 1 ? 2 * towers : 0);
  auto a = Train(add_n, towers, 25);
  auto b = Train(coll, towers, 25);
  ASSERT_EQ(a.size(), (size_t)(2 * towers));
  ASSERT_EQ(b.size(), a.size());
  for (size_t i = 0; i < a.size(); i++) {
    ASSERT_EQ(a[i].size(), b[i].size());
    ASSERT_FALSE(a[i].empty());
    // Every tower's copy is the same as tower 0's.
    EXPECT_EQ(b[i], b[i % 2]) << "copy " << i / 2;
    for (size_t j = 0; j < a[i].size(); j++)
      EXPECT_NEAR(b[i][j], a[i][j], 1e-5 * (1 + std::fabs(a[i][j])))
          << "copy " << i / 2 << " element " << j;
  }
  // It trained: w moved from its initial value.
  EXPECT_GT(std::fabs(b[0][0] - 0.5f), 1e-3);
  grt_graph_free(add_n);
  grt_graph_free(coll);
}

TEST(MirroredCollective, TwoTowersMatchAddN) { Check(2); }
TEST(MirroredCollective, FourTowersMatchAddN) { Check(4); }

TEST(MirroredCollective, AnUnknownAllReduceIsRefused) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kModel, strlen(kModel), &g));
  grt_mirrored_train_options mo{};
  mo.loss = "loss";
  mo.towers = 1;
  mo.tower_devices = kDev;
  mo.all_reduce = (grt_all_reduce_impl)7;
  grt_optimizer_defaults(&mo.optimizer, "sgd", 0.1);
  grt_status* st = grt_graph_add_mirrored_train_step(g, &mo);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("all_reduce 7"), std::string::npos);
  grt_status_free(st);
  grt_graph_free(g);
}

}  // namespace
