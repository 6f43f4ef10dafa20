// The GPU suite, captured steps (session option graph_capture): a step on
// GPU:0 (MatMul, element-wise ops, a reduction, an in-place variable update)
// called as a callable is recorded as a CUDA graph on its second call and
// replayed after; every call's fetches and the variable must equal the same
// callable's in a session without capture, bit for bit (same kernels, same
// order), and the report must say it was captured.
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs
// it on the CPU, where the step is not captured and only the results are
// compared).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuCapture : public GpuSuite {};

const char* kStep = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[64,32]}},
 {"name":"wshape","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[32,16]}}},
 {"name":"eighth","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0.125]}}},
 {"name":"w0","op":"Fill","inputs":["wshape","eighth"],"device":"/device:GPU:0","attrs":{"T":"float32","index_type":"int32"}},
 {"name":"w","op":"VariableV2","device":"/device:GPU:0","attrs":{"dtype":"float32","shape":[32,16]}},
 {"name":"init","op":"Assign","inputs":["w","w0"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"m","op":"MatMul","inputs":["x","w"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"r","op":"Relu","inputs":["m"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"t","op":"Tanh","inputs":["r"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"axes","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[1],"values":[0]}}},
 {"name":"col","op":"Sum","inputs":["t","axes"],"device":"/device:GPU:0","attrs":{"T":"float32","Tidx":"int32","keep_dims":false}},
 {"name":"xt","op":"Transpose","inputs":["x","perm"],"device":"/device:GPU:0","attrs":{"T":"float32","Tperm":"int32"}},
 {"name":"perm","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[1,0]}}},
 {"name":"g","op":"MatMul","inputs":["xt","t"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"lr","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0.001]}}},
 {"name":"upd","op":"ApplyGradientDescent","inputs":["w","lr","g"],"device":"/device:GPU:0","attrs":{"T":"float32"}}
]})";

std::vector<float> Values(grt_tensor* t) {
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  return std::vector<float>(p, p + grt_tensor_num_elements(t));
}

TEST_F(GpuCapture, ReplayedStepsEqualUncapturedOnesBitForBit) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kStep, strlen(kStep), &g));
  grt_session* s[2] = {nullptr, nullptr};
  grt_callable* c[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; k++) {
    grt_session_options* o = nullptr;
    ASSERT_OK(grt_session_options_new(&o));
    ASSERT_OK(grt_session_options_set(o, "graph_capture", k ? "true" : "false"));
    ASSERT_OK(grt_session_options_set(o, "gpu.allow_growth", "true"));
    ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", Dry() ? "true" : "false"));
    ASSERT_OK(grt_session_new(g, o, &s[k]));
    grt_session_options_free(o);
    const char* init[] = {"init"};
    ASSERT_OK(grt_session_run(s[k], nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr));
    const char* feeds[] = {"x"};
    const char* fetches[] = {"col", "upd"};
    ASSERT_OK(grt_session_make_callable_by_name(s[k], feeds, 1, fetches, 2, nullptr, 0, &c[k]));
  }
  int64_t dims[2] = {64, 32};
  for (int call = 0; call < 12; call++) {
    grt_tensor* x = nullptr;
    ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 2, dims, &x));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    float* xv = static_cast<float*>(grt_tensor_data(x));
    for (int i = 0; i < 64 * 32; i++) xv[i] = normal(g_rng);
    std::vector<float> got[2][2];
    for (int k = 0; k < 2; k++) {
      grt_tensor* out[2] = {nullptr, nullptr};
      ASSERT_OK(grt_callable_run(c[k], &x, out, nullptr));
      for (int f = 0; f < 2; f++) {
        got[k][f] = Values(out[f]);
        grt_tensor_free(out[f]);
      }
    }
    EXPECT_EQ(got[0][0], got[1][0]) << "col, call " << call;
    EXPECT_EQ(got[0][1], got[1][1]) << "w after the update, call " << call;
    grt_tensor_free(x);
  }
  char report[600];
  grt_callable_capture_report(c[1], report, sizeof report);
  printf("capture: %s\n", report);
  if (!Dry()) {
    EXPECT_NE(strstr(report, "captured on"), nullptr) << report;
    EXPECT_NE(strstr(report, "1 recording, 11 replays"), nullptr) << report;
  }
  for (int k = 0; k < 2; k++) {
    grt_callable_free(c[k]);
    grt_session_free(s[k]);
  }
  grt_graph_free(g);
}

// Adam's pattern: a scalar variable read by the step, then set by an Assign
// that waits on the read (the power terms beta1^t and beta2^t). The Assign
// writes into the variable's own buffer on a GPU, so the step is recorded
// and its replays go on updating the same variable.
const char* kPowerStep = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[8]}},
 {"name":"one","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[1]}}},
 {"name":"beta","op":"Const","device":"/device:GPU:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0.9]}}},
 {"name":"p","op":"VariableV2","device":"/device:GPU:0","attrs":{"dtype":"float32","shape":[]}},
 {"name":"init","op":"Assign","inputs":["p","one"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"y","op":"Mul","inputs":["x","p"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"np","op":"Mul","inputs":["p","beta"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
 {"name":"step","op":"Assign","inputs":["p","np","^y"],"device":"/device:GPU:0","attrs":{"T":"float32"}}
]})";

TEST_F(GpuCapture, AStepWithAnAssignIsRecordedAndReplayed) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kPowerStep, strlen(kPowerStep), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "graph_capture", "true"));
  ASSERT_OK(grt_session_options_set(o, "gpu.allow_growth", "true"));
  ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", Dry() ? "true" : "false"));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  grt_session_options_free(o);
  const char* init[] = {"init"};
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr));
  const char* feeds[] = {"x"};
  const char* fetches[] = {"y", "step"};
  grt_callable* c = nullptr;
  ASSERT_OK(grt_session_make_callable_by_name(s, feeds, 1, fetches, 2, nullptr, 0, &c));
  int64_t dims[1] = {8};
  grt_tensor* x = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
  float* xv = static_cast<float*>(grt_tensor_data(x));
  for (int i = 0; i < 8; i++) xv[i] = (float)(i + 1);
  float power = 1.0f;  // the same float32 products the GPU's Mul makes
  for (int call = 0; call < 10; call++) {
    grt_tensor* out[2] = {nullptr, nullptr};
    ASSERT_OK(grt_callable_run(c, &x, out, nullptr));
    std::vector<float> y = Values(out[0]), p = Values(out[1]);
    for (int i = 0; i < 8; i++) EXPECT_EQ(y[i], xv[i] * power) << "call " << call << ", y " << i;
    power = power * 0.9f;
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0], power) << "call " << call;
    grt_tensor_free(out[0]);
    grt_tensor_free(out[1]);
  }
  char report[600];
  grt_callable_capture_report(c, report, sizeof report);
  printf("capture: %s\n", report);
  if (!Dry()) EXPECT_NE(strstr(report, "1 recording, 9 replays"), nullptr) << report;
  grt_tensor_free(x);
  grt_callable_free(c);
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
