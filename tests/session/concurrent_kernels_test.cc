// The executor's order for expensive nodes of one device (runtime/
// EXECUTION.md, "One device's kernels in turn"): by default two that are
// ready at once run one after the other on the thread that readied them;
// with concurrent_kernels=true the second goes to the inter-op pool. Which
// thread ran each kernel is read from the run's trace ("tid").
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

std::string Msg(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

// x [128, 128] -> Relu r -> two independent MatMuls of r (each 16384
// outputs: expensive), made ready together when r finishes -> their sum.
std::string Graph(const char* d1, const char* d2) {
  return std::string(R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[128,128]}},
    {"name":"r","op":"Relu","inputs":["x"],"device":"/cpu:0"},
    {"name":"a","op":"MatMul","inputs":["r","r"],"device":")") +
         d1 + R"("},
    {"name":"b","op":"MatMul","inputs":["r","r"],"attrs":{"transpose_b":true},"device":")" +
         d2 + R"("},
    {"name":"y","op":"AddV2","inputs":["a","b"],"device":")" +
         d1 + R"("}]})";
}

// The trace's tid of the kernel event named `name`, or -1.
int Tid(const std::string& json, const std::string& name) {
  size_t at = json.find("\"name\":\"" + name + "\",\"pid\"");
  if (at == std::string::npos) return -1;
  size_t t = json.find("\"tid\":", at);
  return t == std::string::npos ? -1 : std::atoi(json.c_str() + t + 6);
}

// Runs the graph once with `options`, returning the trace JSON.
std::string RunTraced(const std::string& text,
                      const std::vector<std::pair<const char*, const char*>>& kv) {
  grt_graph* g = nullptr;
  EXPECT_EQ(Msg(grt_graph_from_json(text.data(), text.size(), &g)), "");
  grt_session_options* o = nullptr;
  EXPECT_EQ(Msg(grt_session_options_new(&o)), "");
  for (auto& [k, v] : kv) EXPECT_EQ(Msg(grt_session_options_set(o, k, v)), "");
  grt_session* s = nullptr;
  EXPECT_EQ(Msg(grt_session_new(g, o, &s)), "");
  int64_t dims[2] = {128, 128};
  grt_tensor* x = nullptr;
  EXPECT_EQ(Msg(grt_tensor_new(GRT_FLOAT32, 2, dims, &x)), "");
  float* p = static_cast<float*>(grt_tensor_data(x));
  for (int i = 0; i < 128 * 128; i++) p[i] = static_cast<float>(i % 7) - 3.0f;
  grt_feed feed = {"x", x};
  const char* fetch = "y";
  grt_tensor* y = nullptr;
  grt_trace* tr = nullptr;
  EXPECT_EQ(Msg(grt_trace_new(&tr)), "");
  EXPECT_EQ(Msg(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &y, tr)), "");
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  EXPECT_EQ(Msg(grt_trace_write_json(tr, f)), "");
  fclose(f);
  std::string json(buf, len);
  free(buf);
  grt_trace_free(tr);
  grt_tensor_free(y);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  return json;
}

TEST(ConcurrentKernels, OneDevicesKernelsRunInTurnOnOneThread) {
  std::string json = RunTraced(Graph("/cpu:0", "/cpu:0"), {{"rewrite", "false"}});
  ASSERT_GE(Tid(json, "a"), 0) << json;
  EXPECT_EQ(Tid(json, "a"), Tid(json, "b")) << json;
}

TEST(ConcurrentKernels, TheOptionHandsTheSecondToThePool) {
  std::string json =
      RunTraced(Graph("/cpu:0", "/cpu:0"), {{"rewrite", "false"}, {"concurrent_kernels", "true"}});
  ASSERT_GE(Tid(json, "a"), 0) << json;
  EXPECT_NE(Tid(json, "a"), Tid(json, "b")) << json;
}

}  // namespace
