// gpu.virtual_devices: each physical GPU a backend reports becomes that many
// logical GPUs in the session's device set, and plans use them. A stand-in
// "GPU" backend compiled into this test reports two cards; no GPU needed.
#include <gtest/gtest.h>

#include <string>

#include "grt/backend.h"
#include "grt/grt.h"

extern "C" {
#include "runtime/device/backend_options.h"
#include "runtime/device/device.h"
}

namespace {

int32_t TwoCards(char* why, size_t size) { return 2; }
grt_status* NoDevice(const grt_device_config* cfg, grt_device** out) {
  *out = nullptr;
  return grt_status_new(GRT_UNIMPLEMENTED, "stand-in GPU backend makes no devices");
}
const grt_op_kernel* NoKernel(const char* op) { return nullptr; }

const grt_backend kFakeGpu = {
    GRT_BACKEND_API_VERSION, "GPU", 210, nullptr, 0, TwoCards, NoDevice, NoKernel};

void Register() {
  grt_status* s = grt_backend_register(&kFakeGpu);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
}

TEST(VirtualGpus, EachCardSplitsIntoLogicalGpus) {
  Register();
  grt_device_set* ds = nullptr;
  ASSERT_EQ(grt_device_set_from_machine(1, &ds), nullptr);
  EXPECT_EQ(grt_device_set_count_type(ds, "GPU"), 2);
  grt_device_set_free(ds);
  // The session's values for the GPU's options, checked by their
  // declarations (built into the core library) and handed to the backend.
  grt_backend_values* four = nullptr;
  ASSERT_EQ(grt_backend_values_new(&four), nullptr);
  ASSERT_EQ(grt_backend_values_set(four, "gpu.virtual_devices", "1024,1024,1024,1024"), nullptr);
  grt_status* split = grt_device_set_from_machine_split(1, four, &ds);
  grt_backend_values_free(four);
  ASSERT_EQ(split, nullptr) << grt_status_message(split);
  EXPECT_EQ(grt_device_set_count_type(ds, "GPU"), 8);
  EXPECT_EQ(grt_device_set_count_type(ds, "CPU"), 1);
  int32_t i = grt_device_set_find(ds, "/device:GPU:7");
  ASSERT_GE(i, 0);
  EXPECT_TRUE(grt_device_set_present(ds, i));
  EXPECT_LT(grt_device_set_find(ds, "/device:GPU:8"), 0);
  grt_device_set_free(ds);
  // 0 and 1 mean no split.
  ASSERT_EQ(grt_device_set_from_machine_split(1, nullptr, &ds), nullptr);
  EXPECT_EQ(grt_device_set_count_type(ds, "GPU"), 2);
  grt_device_set_free(ds);
}

TEST(VirtualGpus, SessionAsksTheBackendForEachLogicalGpu) {
  Register();
  // A node pinned to logical GPU 5 (card 1, logical 1 of 4): the session
  // plans it there and asks the backend for that device, whose refusal
  // here shows the session got that far with the split device set.
  const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Const","device":"/device:GPU:5","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[1],"values":[1]}}}
  ]})";
  grt_graph* g = nullptr;
  ASSERT_EQ(grt_graph_from_json(kGraph, strlen(kGraph), &g), nullptr);
  grt_session_options* o = nullptr;
  ASSERT_EQ(grt_session_options_new(&o), nullptr);
  ASSERT_EQ(grt_session_options_set(o, "allow_soft_placement", "false"), nullptr);
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);  // two cards: no GPU:5
  ASSERT_NE(st, nullptr);
  std::string m = grt_status_message(st);
  EXPECT_EQ(m.find("stand-in"), std::string::npos) << m;  // refused at placement
  grt_status_free(st);
  ASSERT_EQ(grt_session_options_set(o, "gpu.virtual_devices", "1024,1024,1024,1024"), nullptr);
  st = grt_session_new(g, o, &s);
  ASSERT_NE(st, nullptr);
  m = grt_status_message(st);
  EXPECT_NE(m.find("stand-in GPU backend makes no devices"), std::string::npos) << m;
  grt_status_free(st);
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace
