// The real-model benchmark's architectures (bench/models) at reduced size,
// as PyTorch exported them, run through the public API and checked against
// PyTorch's outputs: tests/models/data, written by make_models.py (torch,
// run by hand; CI has neither torch nor ONNX Runtime, and needs neither).
//
// Each model runs at batch 1 and 2 (one file: the batch is the exported
// dynamic axis "N") with the default session options and again with
// rewrite=false, so the session's graph rewrite (the optimizer) is held to
// the same results as the plain graph.
//
// A model that does not run yet names the gap it hits (the start of its
// expected error) and is skipped while it fails with that error; failing
// with any other error, or running with wrong results, fails the test.
// Once its gap is closed it runs and is checked like the others: delete its
// `gap` then.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

const char kDir[] = "tests/models/data/";

// Closeness: |got - ref| <= kTol * (max |ref| + |ref|): relative to the
// element, with the output's scale as the floor for elements near zero.
constexpr double kTol = 1e-4;

struct ModelCase {
  const char* name;
  // Empty: it must run and match. Otherwise the start of the error it fails
  // with today, and why.
  const char* gap_error;
  const char* gap_reason;
};

const ModelCase kModels[] = {
    {"resnet18_tiny", "", ""}, {"mobilenet_v2", "", ""},     {"efficientnet_b0", "", ""},
    {"vit_tiny", "", ""},      {"transformer_tiny", "", ""}, {"lstm_tiny", "", ""},
};

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

std::string Shape(const grt_tensor* t) {
  std::string s = "[";
  for (int32_t i = 0; i < grt_tensor_rank(t); i++)
    s += (i ? ", " : "") + std::to_string(grt_tensor_dim(t, i));
  return s + "]";
}

// Compares `got` with `ref` (both float32): "" when every element is close,
// otherwise a line naming the worst element.
std::string Compare(const grt_tensor* got, const grt_tensor* ref) {
  if (grt_tensor_dtype(got) != GRT_FLOAT32 || grt_tensor_dtype(ref) != GRT_FLOAT32)
    return std::string("dtype ") + grt_dtype_name(grt_tensor_dtype(got)) + ", reference " +
           grt_dtype_name(grt_tensor_dtype(ref));
  if (Shape(got) != Shape(ref)) return "shape " + Shape(got) + ", reference " + Shape(ref);
  const float* g = static_cast<const float*>(grt_tensor_data(got));
  const float* r = static_cast<const float*>(grt_tensor_data(ref));
  int64_t n = grt_tensor_num_elements(ref);
  double scale = 0;
  for (int64_t i = 0; i < n; i++) scale = std::fmax(scale, std::fabs(r[i]));
  int64_t worst = -1;
  double worst_ratio = 0, max_abs = 0;
  for (int64_t i = 0; i < n; i++) {
    double diff = std::fabs((double)g[i] - r[i]);
    double ratio = std::isnan(diff) ? INFINITY : diff / (kTol * (scale + std::fabs(r[i])));
    max_abs = std::fmax(max_abs, diff);
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (worst < 0 || worst_ratio <= 1) return "";
  char line[256];
  snprintf(line, sizeof line,
           "element %lld of %lld: %.9g where PyTorch has %.9g (max |diff| %.3g, max |ref| %.3g, "
           "%.1fx the tolerance)",
           (long long)worst, (long long)n, g[worst], r[worst], max_abs, scale, worst_ratio);
  return line;
}

struct Param {
  const ModelCase* model;
  bool rewrite;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.model->name << (p.rewrite ? "" : ", rewrite=false");
}

class ModelsTest : public ::testing::TestWithParam<Param> {};

// Loads, makes a session, runs each batch and compares. Returns the first
// error of grt's (load, session, run) so the caller can match it against
// a known gap; mismatches are test failures here.
std::string RunModel(const ModelCase& m, bool rewrite) {
  std::string base = std::string(kDir) + m.name;
  grt_graph* g = nullptr;
  std::string err = Message(grt_graph_load((base + ".onnx").c_str(), &g));
  if (!err.empty()) return "load: " + err;
  grt_session_options* o = nullptr;
  EXPECT_EQ(Message(grt_session_options_new(&o)), "");
  EXPECT_EQ(Message(grt_session_options_set(o, "rewrite", rewrite ? "true" : "false")), "");
  grt_session* s = nullptr;
  err = Message(grt_session_new(g, o, &s));
  grt_session_options_free(o);
  if (!err.empty()) {
    grt_graph_free(g);
    return "session: " + err;
  }
  for (int batch : {1, 2}) {
    std::string prefix = base + ".b" + std::to_string(batch);
    grt_tensor *in = nullptr, *ref = nullptr, *out = nullptr;
    EXPECT_EQ(Message(grt_npy_read((prefix + ".in.npy").c_str(), &in)), "");
    EXPECT_EQ(Message(grt_npy_read((prefix + ".torch.npy").c_str(), &ref)), "");
    if (!in || !ref) {
      grt_tensor_free(in);
      grt_tensor_free(ref);
      break;
    }
    grt_feed feed = {"input", in};
    const char* fetch = "output";
    err = Message(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr));
    if (err.empty()) {
      std::string mismatch = Compare(out, ref);
      EXPECT_TRUE(mismatch.empty()) << m.name << ", batch " << batch
                                    << (rewrite ? "" : ", rewrite=false") << ": " << mismatch;
    }
    grt_tensor_free(out);
    grt_tensor_free(in);
    grt_tensor_free(ref);
    if (!err.empty()) {
      err = "run at batch " + std::to_string(batch) + ": " + err;
      break;
    }
  }
  grt_session_free(s);
  grt_graph_free(g);
  return err;
}

TEST_P(ModelsTest, MatchesPyTorch) {
  const ModelCase& m = *GetParam().model;
  std::string err = RunModel(m, GetParam().rewrite);
  if (err.empty()) {
    if (*m.gap_error)
      printf("%s runs now (known gap: %s): delete its gap in models_test.cc\n", m.name,
             m.gap_reason);
    return;
  }
  if (*m.gap_error && err.find(m.gap_error) != std::string::npos)
    GTEST_SKIP() << m.name << ": known gap: " << m.gap_reason
                 << ". grt says: " << err.substr(0, err.find('\n'));
  ADD_FAILURE() << m.name << (*m.gap_error ? " (its known gap is another error)" : "") << ": "
                << err;
}

std::vector<Param> Params() {
  std::vector<Param> p;
  for (const ModelCase& m : kModels) {
    p.push_back({&m, true});
    p.push_back({&m, false});
  }
  return p;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelsTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::string(info.param.model->name) +
                                  (info.param.rewrite ? "" : "_no_rewrite");
                         });

// The checker itself: a result off by more than the tolerance is reported
// with its element, and one within it is not, so a model that "matches"
// has been compared for real.
TEST(ModelsCompare, FlagsTheWorstElement) {
  int64_t dims[] = {4};
  grt_tensor *a = nullptr, *b = nullptr;
  ASSERT_EQ(Message(grt_tensor_new(GRT_FLOAT32, 1, dims, &a)), "");
  ASSERT_EQ(Message(grt_tensor_new(GRT_FLOAT32, 1, dims, &b)), "");
  float* pa = static_cast<float*>(grt_tensor_data(a));
  float* pb = static_cast<float*>(grt_tensor_data(b));
  const float ref[] = {1.0f, -2.0f, 0.0f, 10.0f};
  for (int i = 0; i < 4; i++) pa[i] = pb[i] = ref[i];
  pa[3] = 10.0f * (1 + 1e-6f);
  EXPECT_EQ(Compare(a, b), "");
  pa[2] = 0.01f;  // 1e-3 of the output's scale, on an element that is zero
  std::string m = Compare(a, b);
  EXPECT_NE(m.find("element 2 of 4"), std::string::npos) << m;
  pa[2] = NAN;
  EXPECT_NE(Compare(a, b).find("element 2 of 4"), std::string::npos);
  grt_tensor_free(a);
  grt_tensor_free(b);
}

}  // namespace
