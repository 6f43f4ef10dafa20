// A session with the graph optimizer on (runtime/session/optimize.c,
// optimizer/DESIGN.md): the optimized graph serves the runs it can, the
// user's graph (the fallback) the others, both share the variables, and
// results are those of the graph as written. The passes themselves are
// tested in tests/optimizer/.
#include <gtest/gtest.h>

#include <cstdlib>
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

// x -> id1 -> r = Relu -> id2 -> out = Neg, and a variable v read through
// v/read (an Identity) into y = v/read * x, initialised by `init`.
const char kGraph[] = R"({"format":"grt.graph","version":1,"nodes":[
{"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}},
{"name":"id1","op":"Identity","inputs":["x"],"attrs":{"T":"float32"}},
{"name":"r","op":"Relu","inputs":["id1"],"attrs":{"T":"float32"}},
{"name":"id2","op":"Identity","inputs":["r"],"attrs":{"T":"float32"}},
{"name":"out","op":"Neg","inputs":["id2"],"attrs":{"T":"float32"}},
{"name":"v","op":"VariableV2","attrs":{"dtype":"float32","shape":[2]}},
{"name":"v/init","op":"Const","attrs":{"dtype":"float32",
  "value":{"dtype":"float32","shape":[2],"values":[3,4]}}},
{"name":"init","op":"Assign","inputs":["v","v/init"],"attrs":{"T":"float32"}},
{"name":"v/read","op":"Identity","inputs":["v"],"attrs":{"T":"float32"}},
{"name":"y","op":"Mul","inputs":["v/read","id1"],"attrs":{"T":"float32"}}
]})";

struct Fixture : ::testing::Test {
  grt_graph* g = nullptr;
  grt_session_options* o = nullptr;
  grt_session* s = nullptr;
  grt_tensor* x = nullptr;

  void SetUp() override {
    ASSERT_OK(grt_graph_from_json(kGraph, sizeof kGraph - 1, &g));
    ASSERT_OK(grt_session_options_new(&o));
    int64_t dims[] = {2};
    ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
    float* p = static_cast<float*>(grt_tensor_data(x));
    p[0] = 1.5f;
    p[1] = -2.0f;
  }
  void TearDown() override {
    grt_session_free(s);
    grt_session_options_free(o);
    grt_graph_free(g);
    grt_tensor_free(x);
  }
  std::vector<float> Run(const char* fetch, const char* feed = "x") {
    grt_feed f = {feed, x};
    grt_tensor* out = nullptr;
    grt_status* st = grt_session_run(s, &f, 1, &fetch, 1, nullptr, 0, &out, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    std::vector<float> v;
    if (!out) return v;
    const float* d = static_cast<const float*>(grt_tensor_data(out));
    v.assign(d, d + grt_tensor_num_elements(out));
    grt_tensor_free(out);
    return v;
  }
  std::string Report() {
    char buf[4096];
    grt_session_optimizer_report(s, buf, sizeof buf);
    return buf;
  }
};

TEST_F(Fixture, OptimizedGraphServesAndFallbackAnswersTheRest) {
  ASSERT_OK(grt_session_new(g, o, &s));
  EXPECT_NE(Report().find("identity"), std::string::npos) << Report();
  // The plan is the user's graph's: every node of it, the Identities too.
  EXPECT_EQ(grt_plan_num_nodes(grt_session_plan(s)), grt_graph_num_nodes(g));
  EXPECT_EQ(Run("out"), (std::vector<float>{-1.5f, -0.0f}));
  // id1 and id2 are gone from the optimized graph: these run as written.
  EXPECT_EQ(Run("id2"), (std::vector<float>{1.5f, 0.0f}));
  EXPECT_EQ(Run("id1"), (std::vector<float>{1.5f, -2.0f}));
  // Feeding an intermediate the optimizer removed keeps its meaning.
  EXPECT_EQ(Run("out", "id2"), (std::vector<float>{-1.5f, 2.0f}));
  EXPECT_EQ(Run("out", "r"), (std::vector<float>{-1.5f, 2.0f}));
}

TEST_F(Fixture, VariablesAreSharedWithTheFallback) {
  ASSERT_OK(grt_session_new(g, o, &s));
  const char* init = "init";
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, &init, 1, nullptr, nullptr));
  EXPECT_EQ(Run("y"), (std::vector<float>{4.5f, -8.0f}));      // optimized: v/read gone
  EXPECT_EQ(Run("v/read"), (std::vector<float>{3.0f, 4.0f}));  // fallback
  EXPECT_EQ(Run("y"), (std::vector<float>{4.5f, -8.0f}));
}

TEST_F(Fixture, CallablesByTheUsersHandles) {
  ASSERT_OK(grt_session_new(g, o, &s));
  grt_output in, out_served, out_fallback;
  ASSERT_OK(grt_graph_output(g, "x", &in));
  ASSERT_OK(grt_graph_output(g, "out", &out_served));
  ASSERT_OK(grt_graph_output(g, "id2", &out_fallback));
  for (grt_output fetch : {out_served, out_fallback}) {
    grt_callable* c = nullptr;
    ASSERT_OK(grt_session_make_callable(s, &in, 1, &fetch, 1, nullptr, 0, &c));
    grt_tensor* res = nullptr;
    ASSERT_OK(grt_callable_run(c, &x, &res, nullptr));
    const float* d = static_cast<const float*>(grt_tensor_data(res));
    EXPECT_EQ(d[0], fetch.node == out_served.node ? -1.5f : 1.5f);
    grt_tensor_free(res);
    grt_callable_free(c);
  }
}

TEST_F(Fixture, SwitchedOffRunsTheGraphAsWritten) {
  ASSERT_OK(grt_session_options_set(o, "optimizer_off", "identity"));
  ASSERT_OK(grt_session_new(g, o, &s));
  EXPECT_NE(Report().find("identity"), std::string::npos);
  EXPECT_NE(Report().find("off"), std::string::npos) << Report();
  EXPECT_EQ(Run("out"), (std::vector<float>{-1.5f, -0.0f}));
  grt_session_free(s);
  s = nullptr;
  ASSERT_OK(grt_session_options_set(o, "optimizer_off", "all"));
  ASSERT_OK(grt_session_new(g, o, &s));
  EXPECT_EQ(Report(), "optimizer: off (session option rewrite or optimizer_off)\n");
  EXPECT_EQ(Run("out"), (std::vector<float>{-1.5f, -0.0f}));
  grt_session_free(s);
  s = nullptr;
  ASSERT_OK(grt_session_options_set(o, "optimizer_off", ""));
  ASSERT_OK(grt_session_options_set(o, "rewrite", "false"));
  ASSERT_OK(grt_session_new(g, o, &s));
  EXPECT_NE(Report().find("optimizer: off"), std::string::npos) << Report();
}

TEST_F(Fixture, UnknownPassIsAnError) {
  grt_status* st = grt_session_options_set(o, "optimizer_off", "identity,nonsense");
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("unknown optimizer pass 'nonsense'"),
            std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
}

TEST_F(Fixture, OptimizeAheadOfTime) {
  grt_graph* opt = nullptr;
  char* report = nullptr;
  ASSERT_OK(grt_graph_optimize(g, o, &opt, &report));
  ASSERT_NE(report, nullptr);
  EXPECT_NE(std::string(report).find("identity"), std::string::npos);
  free(report);
  EXPECT_LT(grt_graph_find_node(opt, "id1"), 0);
  EXPECT_LT(grt_graph_find_node(opt, "id2"), 0);
  EXPECT_GE(grt_graph_find_node(opt, "out"), 0);
  // v/read has a use and is on v's device: it goes too; the variable stays.
  EXPECT_GE(grt_graph_find_node(opt, "v"), 0);
  EXPECT_GE(grt_graph_find_node(opt, "init"), 0);
  grt_graph_free(opt);
}

}  // namespace
