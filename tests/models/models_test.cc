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
#include "tests/models/compare.h"

namespace {

using grt_models::Compare;
using grt_models::Message;

const char kDir[] = "tests/models/data/";

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
    {"lstm_seq", "", ""},      {"gru_seq", "", ""},
};

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
