// The device mapping shows what a plugin says of each device (its optional
// grt_backend_describe), for logical GPUs too: a stand-in GPU plugin with
// two cards, so no GPU is needed.
#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "grt/backend.h"
#include "grt/grt.h"

extern "C" {
#include "runtime/device/backend_options.h"
#include "runtime/device/device.h"
}

namespace {

std::string Mapping(const grt_device_set* ds) {
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  grt_status* s = grt_device_set_write(ds, f);
  EXPECT_EQ(s, nullptr);
  fclose(f);
  std::string out(text, len);
  free(text);
  return out;
}

TEST(Describe, DeviceMappingShowsWhatThePluginSays) {
  char path[PATH_MAX];
  ASSERT_NE(realpath("tests/cuda/libgrt_backend_fakegpu.so", path), nullptr);
  grt_status* s = grt_backend_load(path);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  grt_device_set* ds = nullptr;
  ASSERT_EQ(grt_device_set_from_machine(1, &ds), nullptr);
  std::string m = Mapping(ds);
  EXPECT_NE(
      m.find("/job:localhost/replica:0/task:0/device:GPU:1 -> device: 1, name: stand-in card 1, "
             "memory: 0 MiB\n"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("device:CPU:0 -> device: 0, name: logical CPU device\n"), std::string::npos)
      << m;
  grt_device_set_free(ds);

  // The session's values for the GPU's options, checked by their
  // declarations (built into the core library) and handed to the backend.
  grt_backend_values* four = nullptr;
  ASSERT_EQ(grt_backend_values_new(&four), nullptr);
  ASSERT_EQ(grt_backend_values_set(four, "gpu.virtual_devices", "1024,1024,1024,2048"), nullptr);
  grt_status* split = grt_device_set_from_machine_split(1, four, &ds);
  grt_backend_values_free(four);
  ASSERT_EQ(split, nullptr) << grt_status_message(split);
  m = Mapping(ds);
  EXPECT_NE(m.find("device:GPU:3 -> device: 0, name: stand-in card 0, memory: 2048 MiB\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("device:GPU:6 -> device: 1, name: stand-in card 1, memory: 1024 MiB\n"),
            std::string::npos)
      << m;
  // The same through the public API, from session options.
  grt_session_options* o = nullptr;
  ASSERT_EQ(grt_session_options_new(&o), nullptr);
  ASSERT_EQ(grt_session_options_set(o, "gpu.virtual_devices", "1024,1024,1024,2048"), nullptr);
  grt_device_set* from_options = nullptr;
  ASSERT_EQ(grt_session_options_device_set(o, &from_options), nullptr);
  EXPECT_EQ(Mapping(from_options), m);
  grt_device_set_free(from_options);
  grt_session_options_free(o);
  // A copy keeps the descriptions.
  grt_device_set* c = nullptr;
  ASSERT_EQ(grt_device_set_copy(ds, &c), nullptr);
  EXPECT_EQ(Mapping(c), m);
  grt_device_set_free(c);
  grt_device_set_free(ds);
}

}  // namespace
