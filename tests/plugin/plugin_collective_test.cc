// NcclAllReduce groups on a plugin's devices: the TEST backend has the op's
// row and kernel but no all_reduce hook, so a group on TEST devices is
// refused when the run is built, and so is a group mixing TEST and CPU
// devices (grt does not reduce across device types); the session stays
// usable for a CPU group afterwards.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "grt/backend.h"
#include "grt/grt.h"
#include "tests/plugin/plugin_test_util.h"

namespace {

std::string Member(const std::string& name, const std::string& dev, const std::string& group) {
  // Placeholders on the CPU (TEST has no row for them): TEST members get
  // their input by a copy.
  return R"({"name":"x_)" + name + R"(","op":"Placeholder","device":"/device:CPU:0)" +
         R"(","attrs":{"dtype":"float32","shape":[2]}},{"name":")" + name +
         R"(","op":"NcclAllReduce","inputs":["x_)" + name + R"("],"device":")" + dev +
         R"(","attrs":{"T":"float32","reduction":"sum","num_devices":2,"shared_name":")" + group +
         R"("}})";
}

TEST(PluginCollective, GroupsWithoutAnAllReduceOrAcrossTypesAreRefused) {
  ASSERT_OK(grt_backend_load(PluginPath("libgrt_backend_test.so").c_str()));
  std::string j =
      R"({"format":"grt.graph","version":1,"nodes":[)" + Member("t0", "/device:TEST:0", "on_test") +
      "," + Member("t1", "/device:TEST:1", "on_test") + "," +
      Member("m0", "/device:CPU:0", "mixed") + "," + Member("m1", "/device:TEST:0", "mixed") + "," +
      Member("c0", "/device:CPU:0", "on_cpu") + "," + Member("c1", "/device:CPU:1", "on_cpu") +
      "]}";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(j.c_str(), j.size(), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "cpu.devices", "2"));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  int64_t two = 2;
  grt_tensor *a = nullptr, *b = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, &two, &a));
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, &two, &b));
  float* pa = static_cast<float*>(grt_tensor_data(a));
  float* pb = static_cast<float*>(grt_tensor_data(b));
  pa[0] = 1.5f, pa[1] = -2, pb[0] = 4, pb[1] = 0.25f;
  struct {
    const char* first;
    const char* second;
    const char* expect;
  } cases[] = {
      {"t0", "t1",
       "NcclAllReduce group 'on_test' (members 't0' on "
       "/job:localhost/replica:0/task:0/device:TEST:0, "
       "'t1' on /job:localhost/replica:0/task:0/device:TEST:1): the TEST backend has no "
       "all-reduce"},
      {"m0", "m1",
       "NcclAllReduce group 'mixed' (members 'm0' on /job:localhost/replica:0/task:0/device:CPU:0, "
       "'m1' on /job:localhost/replica:0/task:0/device:TEST:0): members on devices of different "
       "types"},
  };
  for (const auto& c : cases) {
    std::string xa = std::string("x_") + c.first, xb = std::string("x_") + c.second;
    grt_feed feeds[] = {{xa.c_str(), a}, {xb.c_str(), b}};
    const char* fetches[] = {c.first, c.second};
    grt_tensor* out[2] = {nullptr, nullptr};
    grt_status* st = grt_session_run(s, feeds, 2, fetches, 2, nullptr, 0, out, nullptr);
    ASSERT_NE(st, nullptr) << c.first;
    EXPECT_NE(std::string(grt_status_message(st)).find(c.expect), std::string::npos)
        << grt_status_message(st);
    grt_status_free(st);
    EXPECT_EQ(out[0], nullptr);
  }
  grt_feed feeds[] = {{"x_c0", a}, {"x_c1", b}};
  const char* fetches[] = {"c0", "c1"};
  grt_tensor* out[2] = {nullptr, nullptr};
  ASSERT_OK(grt_session_run(s, feeds, 2, fetches, 2, nullptr, 0, out, nullptr));
  for (int k = 0; k < 2; k++) {
    EXPECT_EQ(static_cast<float*>(grt_tensor_data(out[k]))[0], 5.5f);
    EXPECT_EQ(static_cast<float*>(grt_tensor_data(out[k]))[1], -1.75f);
    grt_tensor_free(out[k]);
  }
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace
