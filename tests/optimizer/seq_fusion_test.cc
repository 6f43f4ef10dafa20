// Passes layer_norm and gelu, and their kernels (_LayerNorm, _Gelu): each
// pattern fused (the optimized graph's ops, the report) and computing what
// the graph as written computes; runs the fusion cannot serve (a fetched or
// shared intermediate) falling back; the kernels against double-precision
// references.
#include <cmath>
#include <string>
#include <vector>

#include "tests/optimizer/seq_graph.h"

using namespace seqtest;

namespace {

// The ONNX importer's LayerNormalization over the axes from `axis` on.
std::vector<std::string> ImporterLayerNorm(const std::vector<int64_t>& dims, int axis,
                                           const std::vector<int64_t>& pdims, bool affine) {
  std::vector<int64_t> axes;
  int64_t n = 1;
  for (int a = axis; a < (int)dims.size(); a++) axes.push_back(a), n *= dims[a];
  std::vector<std::string> g = {Placeholder("x", dims),
                                ConstI("axes", axes),
                                Node("mean", "Mean", {"x", "axes"},
                                     "\"T\":\"float32\",\"Tidx\":\"int64\",\"keep_dims\":true"),
                                Node("d", "Sub", {"x", "mean"}, "\"T\":\"float32\""),
                                Node("sq", "Square", {"d"}, "\"T\":\"float32\""),
                                Node("var", "Mean", {"sq", "axes"},
                                     "\"T\":\"float32\",\"Tidx\":\"int64\",\"keep_dims\":true"),
                                ConstF("eps", {}, {1e-5f}),
                                Node("ve", "AddV2", {"var", "eps"}, "\"T\":\"float32\""),
                                Node("inv", "Rsqrt", {"ve"}, "\"T\":\"float32\""),
                                Node("norm", "Mul", {"d", "inv"}, "\"T\":\"float32\"")};
  if (affine) {
    g.push_back(ConstF("gamma", pdims, Random(n, 7, 0.5f, 1.0f)));
    g.push_back(ConstF("beta", pdims, Random(n, 8)));
    g.push_back(Node("scaled", "Mul", {"norm", "gamma"}, "\"T\":\"float32\""));
    g.push_back(Node("y", "AddV2", {"scaled", "beta"}, "\"T\":\"float32\""));
  } else {
    g.push_back(Node("y", "Identity", {"norm"}, "\"T\":\"float32\""));
  }
  return g;
}

// torch's opset-13 export: ReduceMean, Sub, Pow 2, ReduceMean, Add, Sqrt, Div.
std::vector<std::string> TorchLayerNorm(int64_t rows, int64_t n) {
  return {Placeholder("x", {rows, n}),
          ConstI("axes", {-1}),
          Node("mean", "Mean", {"x", "axes"},
               "\"T\":\"float32\",\"Tidx\":\"int64\",\"keep_dims\":true"),
          Node("d", "Sub", {"x", "mean"}, "\"T\":\"float32\""),
          ConstF("two", {}, {2.0f}),
          Node("sq", "Pow", {"d", "two"}, "\"T\":\"float32\""),
          Node("var", "Mean", {"sq", "axes"},
               "\"T\":\"float32\",\"Tidx\":\"int64\",\"keep_dims\":true"),
          ConstF("eps", {}, {1e-6f}),
          Node("ve", "AddV2", {"var", "eps"}, "\"T\":\"float32\""),
          Node("std", "Sqrt", {"ve"}, "\"T\":\"float32\""),
          Node("norm", "RealDiv", {"d", "std"}, "\"T\":\"float32\""),
          ConstF("gamma", {n}, Random(n, 3, 0.5f, 1.0f)),
          Node("scaled", "Mul", {"gamma", "norm"}, "\"T\":\"float32\""),
          ConstF("beta", {n}, Random(n, 4)),
          Node("y", "AddV2", {"beta", "scaled"}, "\"T\":\"float32\"")};
}

void ExpectSame(grt_graph* g, const std::vector<int64_t>& dims, const std::vector<std::string>& f,
                float tol, uint32_t seed = 1, float shift = 0) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<float> x = Random(total, seed, 2.0f, shift);
  Result plain = RunGraph(g, false, "x", x, dims, f);
  Result opt = RunGraph(g, true, "x", x, dims, f);
  ASSERT_TRUE(plain.ok && opt.ok);
  ASSERT_EQ(plain.values.size(), opt.values.size());
  for (size_t k = 0; k < plain.values.size(); k++) ExpectNear(plain.values[k], opt.values[k], tol);
}

TEST(LayerNormPass, ImporterFormFusesAndMatches) {
  std::vector<int64_t> dims = {2, 5, 24};
  grt_graph* g = Parse(Graph(ImporterLayerNorm(dims, 2, {24}, true)));
  ASSERT_NE(g, nullptr);
  std::string report;
  EXPECT_EQ(CountOps(g, "_LayerNorm", &report), 1);
  EXPECT_NE(report.find("1 layer normalizations into _LayerNorm"), std::string::npos) << report;
  EXPECT_EQ(CountOps(g, "Mean"), 0);
  EXPECT_EQ(CountOps(g, "Rsqrt"), 0);
  ExpectSame(g, dims, {"y"}, 2e-5f);
  // A large mean over a small spread: the two-step variance keeps it.
  ExpectSame(g, dims, {"y"}, 5e-4f, 2, 1000.0f);
  Result r = RunGraph(g, true, "x", Random(240, 1), dims, {"y"});
  EXPECT_NE(r.report.find("layer_norm"), std::string::npos) << r.report;
  grt_graph_free(g);
}

TEST(LayerNormPass, TwoTrailingAxesWithMatrixGamma) {
  std::vector<int64_t> dims = {3, 4, 6};
  grt_graph* g = Parse(Graph(ImporterLayerNorm(dims, 1, {4, 6}, true)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_LayerNorm"), 1);
  ExpectSame(g, dims, {"y"}, 2e-5f);
  grt_graph_free(g);
}

TEST(LayerNormPass, WithoutScaleAndShift) {
  std::vector<int64_t> dims = {4, 33};
  grt_graph* g = Parse(Graph(ImporterLayerNorm(dims, 1, {}, false)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_LayerNorm"), 1);
  ExpectSame(g, dims, {"y"}, 2e-5f);
  grt_graph_free(g);
}

TEST(LayerNormPass, TorchOpset13Form) {
  grt_graph* g = Parse(Graph(TorchLayerNorm(6, 40)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_LayerNorm"), 1);
  EXPECT_EQ(CountOps(g, "Pow"), 0);
  ExpectSame(g, {6, 40}, {"y"}, 2e-5f);
  grt_graph_free(g);
}

TEST(LayerNormPass, FetchedIntermediateFallsBack) {
  grt_graph* g = Parse(Graph(TorchLayerNorm(6, 40)));
  ASSERT_NE(g, nullptr);
  // The variance is swallowed by the fusion: the run uses the graph as written.
  ExpectSame(g, {6, 40}, {"y", "var", "std"}, 2e-5f);
  grt_graph_free(g);
}

TEST(LayerNormPass, SharedIntermediateIsNotFused) {
  std::vector<std::string> nodes = TorchLayerNorm(6, 40);
  nodes.push_back(Node("other", "Neg", {"std"}, "\"T\":\"float32\""));
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_LayerNorm"), 0);
  ExpectSame(g, {6, 40}, {"y", "other"}, 0.0f);
  grt_graph_free(g);
}

TEST(LayerNormPass, FeedingTheFusedOutput) {
  std::vector<std::string> nodes = TorchLayerNorm(2, 8);
  nodes.push_back(ConstF("three", {}, {3.0f}));
  nodes.push_back(Node("z", "Mul", {"y", "three"}, "\"T\":\"float32\""));
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  std::vector<float> y = Random(16, 9);
  for (bool rewrite : {false, true}) {
    Result r = RunGraph(g, rewrite, "y", y, {2, 8}, {"z"});
    ASSERT_TRUE(r.ok);
    for (size_t i = 0; i < y.size(); i++) EXPECT_EQ(r.values[0][i], y[i] * 3.0f);
  }
  grt_graph_free(g);
}

// GELU's Erf form in the three orders exporters write it.
std::vector<std::string> Gelu(int variant) {
  std::vector<std::string> g = {Placeholder("x", {3, 50}), ConstF("half", {}, {0.5f}),
                                ConstF("one", {}, {1.0f})};
  if (variant == 1) {
    g.push_back(ConstF("rs2", {}, {0.70710677f}));
    g.push_back(Node("t", "Mul", {"rs2", "x"}, "\"T\":\"float32\""));
  } else {
    g.push_back(ConstF("s2", {}, {1.4142135f}));
    g.push_back(Node("t", "RealDiv", {"x", "s2"}, "\"T\":\"float32\""));
  }
  g.push_back(Node("e", "Erf", {"t"}, "\"T\":\"float32\""));
  g.push_back(Node("a", "AddV2", {"e", "one"}, "\"T\":\"float32\""));
  if (variant == 0) {  // torch: (x * a) * 0.5
    g.push_back(Node("p", "Mul", {"x", "a"}, "\"T\":\"float32\""));
    g.push_back(Node("y", "Mul", {"p", "half"}, "\"T\":\"float32\""));
  } else if (variant == 1) {  // (a * 0.5) * x
    g.push_back(Node("p", "Mul", {"a", "half"}, "\"T\":\"float32\""));
    g.push_back(Node("y", "Mul", {"x", "p"}, "\"T\":\"float32\""));
  } else {  // (x * 0.5) * a
    g.push_back(Node("h", "Mul", {"x", "half"}, "\"T\":\"float32\""));
    g.push_back(Node("y", "Mul", {"h", "a"}, "\"T\":\"float32\""));
  }
  g.push_back(Node("out", "Neg", {"y"}, "\"T\":\"float32\""));
  return g;
}

TEST(GeluPass, ErfFormsFuseAndMatch) {
  for (int v = 0; v < 3; v++) {
    grt_graph* g = Parse(Graph(Gelu(v)));
    ASSERT_NE(g, nullptr);
    std::string report;
    EXPECT_EQ(CountOps(g, "_Gelu", &report), 1) << "variant " << v;
    EXPECT_EQ(CountOps(g, "Erf"), 0) << "variant " << v;
    EXPECT_NE(report.find("GELU chains"), std::string::npos) << report;
    ExpectSame(g, {3, 50}, {"out"}, 1e-6f);
    ExpectSame(g, {3, 50}, {"y"}, 1e-6f);
    ExpectSame(g, {3, 50}, {"out", "e"}, 1e-6f);  // e swallowed: fallback
    grt_graph_free(g);
  }
}

// GELU's tanh form: torch's approximate='tanh' export (x^3 as x * (x * x),
// constants on the left) and TensorFlow's gelu(approximate=True) (Pow(x, 3),
// the half taken first).
std::vector<std::string> GeluTanh(bool torch) {
  std::vector<std::string> g = {Placeholder("x", {3, 50}), ConstF("half", {}, {0.5f}),
                                ConstF("one", {}, {1.0f}), ConstF("kappa", {}, {0.044715f}),
                                ConstF("beta", {}, {0.7978845608f})};
  const char* t = "\"T\":\"float32\"";
  if (torch) {
    g.push_back(Node("xx", "Mul", {"x", "x"}, t));
    g.push_back(Node("x3", "Mul", {"x", "xx"}, t));
  } else {
    g.push_back(ConstF("three", {}, {3.0f}));
    g.push_back(Node("x3", "Pow", {"x", "three"}, t));
  }
  g.push_back(Node("w", "Mul", {"kappa", "x3"}, t));
  g.push_back(Node("u", "AddV2",
                   torch ? std::vector<std::string>{"x", "w"} : std::vector<std::string>{"w", "x"},
                   t));
  g.push_back(Node("z", "Mul", {"beta", "u"}, t));
  g.push_back(Node("th", "Tanh", {"z"}, t));
  g.push_back(Node("a", "AddV2", {"one", "th"}, t));
  if (torch) {
    g.push_back(Node("p", "Mul", {"x", "a"}, t));
    g.push_back(Node("y", "Mul", {"half", "p"}, t));
  } else {
    g.push_back(Node("h", "Mul", {"half", "x"}, t));
    g.push_back(Node("y", "Mul", {"h", "a"}, t));
  }
  g.push_back(Node("out", "Neg", {"y"}, t));
  return g;
}

TEST(GeluPass, TanhFormsFuseAndMatch) {
  for (bool torch : {true, false}) {
    grt_graph* g = Parse(Graph(GeluTanh(torch)));
    ASSERT_NE(g, nullptr);
    std::string report;
    EXPECT_EQ(CountOps(g, "_Gelu", &report), 1) << "torch " << torch;
    EXPECT_EQ(CountOps(g, "Tanh"), 0);
    EXPECT_NE(report.find("1 tanh form"), std::string::npos) << report;
    ExpectSame(g, {3, 50}, {"out"}, 2e-6f);
    ExpectSame(g, {3, 50}, {"out", "th"}, 2e-6f);  // th swallowed: fallback
    grt_graph_free(g);
  }
}

TEST(GeluPass, TanhFormWithWrongCubeIsNotFused) {
  std::vector<std::string> nodes = GeluTanh(false);
  for (auto& n : nodes)
    if (n.find("\"name\":\"three\"") != std::string::npos) n = ConstF("three", {}, {2.0f});
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_Gelu"), 0);
  grt_graph_free(g);
}

TEST(GeluPass, WrongConstantIsNotFused) {
  std::vector<std::string> nodes = Gelu(0);
  for (auto& n : nodes)
    if (n.find("\"name\":\"half\"") != std::string::npos) n = ConstF("half", {}, {0.25f});
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_Gelu"), 0);
  grt_graph_free(g);
}

TEST(GeluPass, SwitchedOff) {
  grt_graph* g = Parse(Graph(Gelu(0)));
  ASSERT_NE(g, nullptr);
  Result r = RunGraph(g, true, "x", Random(150, 1), {3, 50}, {"out"}, "gelu");
  EXPECT_NE(r.report.find("gelu"), std::string::npos);
  EXPECT_NE(r.report.find("off"), std::string::npos) << r.report;
  grt_graph_free(g);
}

// ---- the kernels against double-precision references ------------------

TEST(LayerNormKernel, MatchesDoubleReference) {
  for (int64_t n : {1, 7, 16, 100, 771}) {
    const int64_t rows = 5;
    std::vector<float> gamma = Random(n, 11, 0.5f, 1.0f), beta = Random(n, 12);
    grt_graph* g = Parse(
        Graph({Placeholder("x", {rows, n}), ConstF("gamma", {n}, gamma), ConstF("beta", {n}, beta),
               Node("y", "_LayerNorm", {"x", "gamma", "beta"},
                    "\"T\":\"float32\",\"epsilon\":0.001,\"begin_norm_axis\":-1")}));
    ASSERT_NE(g, nullptr);
    std::vector<float> x = Random(rows * n, 13, 3.0f, 5.0f);
    Result r = RunGraph(g, false, "x", x, {rows, n}, {"y"});
    ASSERT_TRUE(r.ok);
    for (int64_t i = 0; i < rows; i++) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < n; j++) mean += x[i * n + j];
      mean /= n;
      for (int64_t j = 0; j < n; j++) var += (x[i * n + j] - mean) * (x[i * n + j] - mean);
      var /= n;
      for (int64_t j = 0; j < n; j++) {
        double want = (x[i * n + j] - mean) / std::sqrt(var + 0.001) * gamma[j] + beta[j];
        ASSERT_NEAR(r.values[0][i * n + j], want, 1e-5 * (1 + std::fabs(want))) << n;
      }
    }
    grt_graph_free(g);
  }
}

TEST(LayerNormKernel, BadGammaIsAnError) {
  grt_graph* g = Parse(Graph({Placeholder("x", {2, -1}), ConstF("gamma", {3}, {1, 1, 1}),
                              ConstF("beta", {3}, {0, 0, 0}),
                              Node("y", "_LayerNorm", {"x", "gamma", "beta"},
                                   "\"T\":\"float32\",\"begin_norm_axis\":1")}));
  ASSERT_NE(g, nullptr);
  grt_session* s = nullptr;
  ASSERT_EQ(grt_session_new(g, nullptr, &s), nullptr);
  int64_t dims[2] = {2, 4};
  grt_tensor* in = nullptr;
  ASSERT_EQ(grt_tensor_new(GRT_FLOAT32, 2, dims, &in), nullptr);
  grt_feed f = {"x", in};
  const char* fetch = "y";
  grt_tensor* out = nullptr;
  grt_status* st = grt_session_run(s, &f, 1, &fetch, 1, nullptr, 0, &out, nullptr);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("gamma"), std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  grt_tensor_free(in);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(GeluKernel, MatchesDoubleReference) {
  for (bool approximate : {false, true}) {
    grt_graph* g = Parse(
        Graph({Placeholder("x", {1000}), Node("y", "_Gelu", {"x"},
                                              std::string("\"T\":\"float32\",\"approximate\":") +
                                                  (approximate ? "true" : "false"))}));
    ASSERT_NE(g, nullptr);
    std::vector<float> x = Random(1000, 21, 4.0f);
    x[0] = 0.0f;
    x[1] = -20.0f;
    x[2] = 20.0f;
    Result r = RunGraph(g, false, "x", x, {1000}, {"y"});
    ASSERT_TRUE(r.ok);
    for (size_t i = 0; i < x.size(); i++) {
      double v = x[i];
      double want =
          approximate ? 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)))
                      : 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      ASSERT_NEAR(r.values[0][i], want, 2e-6 * (1 + std::fabs(want))) << v;
    }
    grt_graph_free(g);
  }
}

}  // namespace
