// Session option dims: an ONNX model's symbolic dimensions (dim_param,
// kept in its Placeholders' dim_names) bound to sizes when the session is
// made. The bound graph runs the same values with fewer nodes (the shape
// computations fold), refuses feeds of other sizes, and the option's
// mistakes are named.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "grt/grt.h"
#include "tests/models/compare.h"

namespace {

using grt_models::Message;

const char kModel[] = "tests/models/data/transformer_tiny";

grt_graph* Load() {
  grt_graph* g = nullptr;
  EXPECT_EQ(Message(grt_graph_load((std::string(kModel) + ".onnx").c_str(), &g)), "");
  return g;
}

// A session over g with `dims` ("" for none), or the error.
std::string NewSession(grt_graph* g, const char* dims, grt_session** s) {
  *s = nullptr;
  grt_session_options* o = nullptr;
  EXPECT_EQ(Message(grt_session_options_new(&o)), "");
  std::string err = Message(grt_session_options_set(o, "dims", dims));
  if (err.empty()) err = Message(grt_session_new(g, o, s));
  grt_session_options_free(o);
  return err;
}

// "optimizer: 825 -> 158 nodes in ..." of the session's report: the 158.
int OptimizedNodes(grt_session* s) {
  char buf[8192];
  grt_session_optimizer_report(s, buf, sizeof buf);
  const char* arrow = strstr(buf, "-> ");
  return arrow ? atoi(arrow + 3) : -1;
}

TEST(DimsOption, TheImporterKeepsTheNamesOnTheInput) {
  grt_graph* g = Load();
  ASSERT_NE(g, nullptr);
  int32_t in = grt_graph_find_node(g, "input");
  ASSERT_GE(in, 0);
  EXPECT_EQ(grt_graph_node_attr_type(g, in, "dim_names"), GRT_ATTR_LIST_STRING);
  grt_graph_free(g);
}

TEST(DimsOption, BoundGraphFoldsMoreAndMatchesPyTorch) {
  grt_graph* g = Load();
  ASSERT_NE(g, nullptr);
  grt_session *free_dims = nullptr, *bound = nullptr;
  ASSERT_EQ(NewSession(g, "", &free_dims), "");
  ASSERT_EQ(NewSession(g, "N=2", &bound), "");
  int before = OptimizedNodes(free_dims), after = OptimizedNodes(bound);
  EXPECT_GT(before, 0);
  EXPECT_GT(after, 0);
  EXPECT_LT(after, before) << "binding N should fold the shape computations";
  grt_tensor *in = nullptr, *ref = nullptr;
  std::string prefix = std::string(kModel) + ".b2";
  ASSERT_EQ(Message(grt_npy_read((prefix + ".in.npy").c_str(), &in)), "");
  ASSERT_EQ(Message(grt_npy_read((prefix + ".torch.npy").c_str(), &ref)), "");
  grt_feed feed = {"input", in};
  const char* fetch = "output";
  for (grt_session* s : {free_dims, bound}) {
    grt_tensor* out = nullptr;
    ASSERT_EQ(Message(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr)), "");
    EXPECT_EQ(grt_models::Compare(out, ref), "");
    grt_tensor_free(out);
  }
  grt_tensor_free(in);
  grt_tensor_free(ref);
  grt_session_free(free_dims);
  grt_session_free(bound);
  grt_graph_free(g);
}

// grt_graph_optimize (grt convert --optimize) binds them too. The pass
// symbolic_shapes folds the same shape arithmetic without a binding, so
// it is off for the comparison; on, the free graph is no larger.
TEST(DimsOption, AheadOfTimeOptimizationBindsThem) {
  grt_graph* g = Load();
  ASSERT_NE(g, nullptr);
  grt_session_options* o = nullptr;
  ASSERT_EQ(Message(grt_session_options_new(&o)), "");
  grt_graph *free_dims = nullptr, *bound = nullptr, *symbolic = nullptr;
  ASSERT_EQ(Message(grt_graph_optimize(g, o, &symbolic, nullptr)), "");
  ASSERT_EQ(Message(grt_session_options_set(o, "optimizer_off", "symbolic_shapes")), "");
  ASSERT_EQ(Message(grt_graph_optimize(g, o, &free_dims, nullptr)), "");
  ASSERT_EQ(Message(grt_session_options_set(o, "dims", "N=1")), "");
  ASSERT_EQ(Message(grt_graph_optimize(g, o, &bound, nullptr)), "");
  EXPECT_LT(grt_graph_num_nodes(bound), grt_graph_num_nodes(free_dims));
  EXPECT_LE(grt_graph_num_nodes(symbolic), grt_graph_num_nodes(bound));
  grt_graph_free(free_dims);
  grt_graph_free(bound);
  grt_graph_free(symbolic);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(DimsOption, AFeedOfAnotherSizeIsRefused) {
  grt_graph* g = Load();
  ASSERT_NE(g, nullptr);
  grt_session* s = nullptr;
  ASSERT_EQ(NewSession(g, "N=3", &s), "");
  grt_tensor* in = nullptr;
  ASSERT_EQ(Message(grt_npy_read((std::string(kModel) + ".b2.in.npy").c_str(), &in)), "");
  grt_feed feed = {"input", in};
  const char* fetch = "output";
  grt_tensor* out = nullptr;
  std::string err = Message(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr));
  EXPECT_NE(err.find("cannot feed a value of shape [2,"), std::string::npos) << err;
  EXPECT_NE(err.find("for a tensor of shape [3,"), std::string::npos) << err;
  grt_tensor_free(in);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(DimsOption, MistakesAreNamed) {
  grt_graph* g = Load();
  ASSERT_NE(g, nullptr);
  grt_session* s = nullptr;
  EXPECT_EQ(NewSession(g, "M=3", &s),
            "option dims: no input of the graph has a dimension named 'M' (the graph's: N)");
  EXPECT_EQ(s, nullptr);
  for (const char* bad : {"N", "N=", "=3", "N=-1", "N=3x", "N=1,", "N=1,N=2"}) {
    std::string err = NewSession(g, bad, &s);
    EXPECT_NE(err.find("option dims: "), std::string::npos) << bad << ": " << err;
    EXPECT_EQ(s, nullptr) << bad;
  }
  // A graph with no symbolic dimensions says so.
  const char* kPlain = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}}]})";
  grt_graph* plain = nullptr;
  ASSERT_EQ(Message(grt_graph_from_json(kPlain, strlen(kPlain), &plain)), "");
  EXPECT_EQ(NewSession(plain, "N=1", &s),
            "option dims: no input of the graph has a dimension named 'N' (the graph names none)");
  grt_graph_free(plain);
  grt_graph_free(g);
}

TEST(DimsOption, ADeclaredSizeThatDisagreesIsAnError) {
  const char* kJson = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[4,-1],
     "dim_names":["N","S"]}},
    {"name":"y","op":"Neg","inputs":["x"],"attrs":{"T":"float32"}}]})";
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_from_json(kJson, strlen(kJson), &g)), "");
  grt_session* s = nullptr;
  EXPECT_EQ(NewSession(g, "N=2", &s),
            "option dims: N=2, but node 'x' declares dimension 0 (N) as 4");
  ASSERT_EQ(NewSession(g, "S=5,N=4", &s), "");
  grt_tensor* x = nullptr;
  int64_t dims[2] = {4, 5};
  ASSERT_EQ(Message(grt_tensor_new(GRT_FLOAT32, 2, dims, &x)), "");
  memset(grt_tensor_data(x), 0, 4 * 5 * sizeof(float));
  grt_feed feed = {"x", x};
  const char* fetch = "y";
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr)), "");
  grt_tensor_free(out);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// A declared size of 0 is a size like any other (a check that took 0 for
// unknown let N=2 through here).
TEST(DimsOption, ADeclaredZeroThatDisagreesIsAnError) {
  const char* kJson = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[0,-1],
     "dim_names":["N","S"]}},
    {"name":"y","op":"Neg","inputs":["x"],"attrs":{"T":"float32"}}]})";
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_from_json(kJson, strlen(kJson), &g)), "");
  grt_session* s = nullptr;
  EXPECT_EQ(NewSession(g, "N=2", &s),
            "option dims: N=2, but node 'x' declares dimension 0 (N) as 0");
  ASSERT_EQ(NewSession(g, "N=0,S=3", &s), "");
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
