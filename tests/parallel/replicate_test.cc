// Towers (grt_graph_replicate): the seeds' polynomial model split over two
// and four logical CPUs computes what the one-device graph computes;
// variables are shared, not cloned, and placed as asked; bad requests are
// errors naming the node.
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

std::string Msg(grt_status* s) {
  if (!s) return "";
  std::string m = grt_status_message(s);
  grt_status_free(s);
  return m;
}

// The seeds' model: loss = (squeeze([x^2, x, 1] @ w) - y)^2 per example;
// `mean` reduces it outside the towers. A second variable `v` (bigger)
// only feeds `extra`, outside the towers.
const char* kModel = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"y","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"w","op":"VariableV2","attrs":{"dtype":"float32","shape":[3,1]}},
 {"name":"v","op":"VariableV2","attrs":{"dtype":"float32","shape":[64]}},
 {"name":"u","op":"VariableV2","attrs":{"dtype":"float32","shape":[2]}},
 {"name":"w0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3,1],"values":[0.5,-1.25,2]}}},
 {"name":"init","op":"Assign","inputs":["w","w0"],"attrs":{"T":"float32"}},
 {"name":"sq","op":"Square","inputs":["x"],"attrs":{"T":"float32"}},
 {"name":"one","op":"OnesLike","inputs":["x"],"attrs":{"T":"float32"}},
 {"name":"f","op":"Pack","inputs":["sq","x","one"],"attrs":{"N":3,"T":"float32","axis":1}},
 {"name":"mm","op":"MatMul","inputs":["f","w"],"attrs":{"T":"float32"}},
 {"name":"yhat","op":"Squeeze","inputs":["mm"],"attrs":{"T":"float32","squeeze_dims":[1]}},
 {"name":"d","op":"Sub","inputs":["yhat","y"],"attrs":{"T":"float32"}},
 {"name":"loss","op":"Square","inputs":["d"],"attrs":{"T":"float32"}},
 {"name":"axis","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[1],"values":[0]}}},
 {"name":"mean","op":"Mean","inputs":["loss","axis"],"attrs":{"T":"float32","Tidx":"int32"}}
]})";

// `side` (outside the towers) uses mm, a tower node that is not an output.
grt_graph* Model(bool side = false) {
  std::string text = kModel;
  if (side)
    text.insert(text.rfind(']'),
                R"(,{"name":"side","op":"Identity","inputs":["mm"],"attrs":{"T":"float32"}})");
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.data(), text.size(), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

struct Towers {
  std::vector<const char*> devices, inputs, outputs, ps;
  grt_replicate_options o{};
  explicit Towers(int n) {
    static const char* kDev[] = {"/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"};
    for (int i = 0; i < n; i++) devices.push_back(kDev[i]);
    inputs.push_back("x");
    inputs.push_back("y");
    outputs.push_back("loss");
    o.towers = n;
  }
  grt_replicate_options* Opts() {
    o.tower_devices = devices.data();
    o.n_tower_devices = (int32_t)devices.size();
    o.inputs = inputs.data();
    o.n_inputs = (int32_t)inputs.size();
    o.outputs = outputs.data();
    o.n_outputs = (int32_t)outputs.size();
    o.ps_devices = ps.data();
    o.n_ps_devices = (int32_t)ps.size();
    return &o;
  }
};

int32_t Find(grt_graph* g, const char* name) {
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++)
    if (strcmp(grt_graph_node_name(g, i), name) == 0) return i;
  return -1;
}

grt_tensor* Vec(const std::vector<float>& v) {
  int64_t n = (int64_t)v.size();
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, &n, &t));
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

// Runs init, then fetches loss and mean for a batch of 8.
void RunModel(grt_graph* g, std::vector<float>* loss, float* mean) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "cpu.devices", "4"));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  grt_session_options_free(o);
  ASSERT_EQ(st, nullptr) << grt_status_message(st);
  const char* init[] = {"init"};
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr));
  std::vector<float> xs = {-3, -2, -1, -0.5f, 0.25f, 1, 2.5f, 4}, ys;
  for (float x : xs) ys.push_back(5 * x * x + 3);
  grt_tensor *tx = Vec(xs), *ty = Vec(ys);
  grt_feed feeds[] = {{"x", tx}, {"y", ty}};
  const char* fetches[] = {"loss", "mean"};
  grt_tensor* out[2] = {nullptr, nullptr};
  ASSERT_OK(grt_session_run(s, feeds, 2, fetches, 2, nullptr, 0, out, nullptr));
  const float* p = static_cast<const float*>(grt_tensor_data(out[0]));
  loss->assign(p, p + grt_tensor_num_elements(out[0]));
  *mean = *static_cast<const float*>(grt_tensor_data(out[1]));
  for (auto* t : out) grt_tensor_free(t);
  grt_tensor_free(tx);
  grt_tensor_free(ty);
  grt_session_free(s);
}

TEST(Replicate, TowersComputeWhatOneDeviceComputes) {
  grt_graph* g = Model();
  std::vector<float> ref;
  float ref_mean = 0;
  RunModel(g, &ref, &ref_mean);
  // The reference in float64, from the formula.
  std::vector<float> xs = {-3, -2, -1, -0.5f, 0.25f, 1, 2.5f, 4};
  double sum = 0;
  for (size_t i = 0; i < xs.size(); i++) {
    double x = xs[i], yhat = 0.5 * x * x - 1.25 * x + 2, d = yhat - (5 * x * x + 3);
    EXPECT_NEAR(ref[i], d * d, 1e-3 * (1 + d * d));
    sum += d * d;
  }
  EXPECT_NEAR(ref_mean, sum / 8, 1e-3 * sum / 8);
  for (int n : {1, 2, 4}) {
    Towers t(n);
    grt_graph* r = nullptr;
    ASSERT_OK(grt_graph_replicate(g, t.Opts(), &r));
    std::vector<float> loss;
    float mean = 0;
    RunModel(r, &loss, &mean);
    ASSERT_EQ(loss.size(), ref.size());
    for (size_t i = 0; i < ref.size(); i++) EXPECT_NEAR(loss[i], ref[i], 1e-5f * (1 + ref[i]));
    EXPECT_NEAR(mean, ref_mean, 1e-5f * ref_mean);
    // The towers: each model node once per tower on its device; the
    // variables and everything outside the towers once, by their names.
    for (int k = 0; k < n; k++) {
      std::string mm = "tower_" + std::to_string(k) + "/mm";
      int32_t i = Find(r, mm.c_str());
      ASSERT_GE(i, 0) << mm;
      EXPECT_STREQ(grt_graph_node_device(r, i), t.devices[k]);
    }
    EXPECT_LT(Find(r, "tower_0/w"), 0);
    EXPECT_LT(Find(r, "tower_0/x"), 0);
    EXPECT_LT(Find(r, "tower_0/mean"), 0);
    EXPECT_GE(Find(r, "w"), 0);
    EXPECT_STREQ(grt_graph_node_op(r, Find(r, "loss")), n > 1 ? "ConcatV2" : "Identity");
    EXPECT_STREQ(grt_graph_node_op(r, Find(r, "tower_split/x")), "Split");
    grt_graph_free(r);
  }
  grt_graph_free(g);
}

TEST(Replicate, VariablesOnOneDeviceOrSpreadByTheGreedySetter) {
  grt_graph* g = Model();
  Towers t(2);
  t.o.variables_on = "/cpu:3";
  grt_graph* r = nullptr;
  ASSERT_OK(grt_graph_replicate(g, t.Opts(), &r));
  for (const char* v : {"w", "v", "u"})
    EXPECT_STREQ(grt_graph_node_device(r, Find(r, v)), "/cpu:3");
  grt_graph_free(r);
  // Greedy by bytes, in graph order: w (12 B) -> ps0; v (256 B) -> ps1;
  // u (8 B) -> ps0 (12 < 256).
  Towers p(2);
  p.ps = {"/cpu:2", "/cpu:3"};
  p.o.ps_strategy = GRT_PS_GREEDY;
  ASSERT_OK(grt_graph_replicate(g, p.Opts(), &r));
  EXPECT_STREQ(grt_graph_node_device(r, Find(r, "w")), "/cpu:2");
  EXPECT_STREQ(grt_graph_node_device(r, Find(r, "v")), "/cpu:3");
  EXPECT_STREQ(grt_graph_node_device(r, Find(r, "u")), "/cpu:2");
  std::vector<float> loss;
  float mean;
  RunModel(r, &loss, &mean);
  EXPECT_EQ(loss.size(), 8u);
  grt_graph_free(r);
  grt_graph_free(g);
}

TEST(Replicate, BadRequestsNameTheNode) {
  grt_graph* g = Model();
  grt_graph* r = nullptr;
  Towers a(2);
  a.outputs = {"mean"};  // a scalar
  EXPECT_NE(Msg(grt_graph_replicate(g, a.Opts(), &r)).find("output 'mean' is a scalar"),
            std::string::npos);
  Towers b(2);
  b.outputs = {"d"};  // `loss` stays outside but uses nothing else; fine
  ASSERT_OK(grt_graph_replicate(g, b.Opts(), &r));
  grt_graph_free(r);
  grt_graph* gs = Model(/*side=*/true);
  std::string m = Msg(grt_graph_replicate(gs, a.Opts(), &r));
  a.outputs = {"loss"};
  m = Msg(grt_graph_replicate(gs, a.Opts(), &r));
  EXPECT_EQ(r, nullptr);
  EXPECT_NE(m.find("node 'side' uses 'mm', which the towers compute once per tower"),
            std::string::npos)
      << m;
  grt_graph_free(gs);
  Towers c(2);
  c.inputs = {"x", "nope"};
  m = Msg(grt_graph_replicate(g, c.Opts(), &r));
  EXPECT_NE(m.find("input 'nope': the graph has no node 'nope'"), std::string::npos) << m;
  Towers d(2);
  d.outputs = {"w"};
  m = Msg(grt_graph_replicate(g, d.Opts(), &r));
  EXPECT_NE(m.find("output 'w' is an input or a variable"), std::string::npos) << m;
  Towers e(3);
  e.devices.pop_back();
  m = Msg(grt_graph_replicate(g, e.Opts(), &r));
  EXPECT_NE(m.find("3 towers but 2 tower devices"), std::string::npos) << m;
  Towers f(2);
  f.outputs = {"loss:1"};  // loss has one output
  m = Msg(grt_graph_replicate(g, f.Opts(), &r));
  EXPECT_NE(m.find("output 'loss:1': node 'loss' has 1 outputs"), std::string::npos) << m;
  Towers none(0);
  none.devices.clear();
  m = Msg(grt_graph_replicate(g, none.Opts(), &r));
  EXPECT_NE(m.find("towers must be at least 1"), std::string::npos) << m;
  Towers both(2);  // a variables device and one ps device
  both.o.variables_on = "/cpu:3";
  both.ps = {"/cpu:2"};
  m = Msg(grt_graph_replicate(g, both.Opts(), &r));
  EXPECT_NE(m.find("give the variables one device or ps devices, not both"), std::string::npos)
      << m;
  EXPECT_EQ(r, nullptr);
  grt_graph_free(g);
}

}  // namespace
