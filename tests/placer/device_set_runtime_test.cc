// grt_device_set_from_spec and grt_device_set_from_machine, which the runtime
// implements over grt_device_spec_parse and grt_device_set_new with presence
// from the backends it has loaded: the same sets and messages as when the
// placer made them itself.
#include <gtest/gtest.h>

#include <string>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Status;

TEST(DeviceSetRuntimeTest, FromSpec) {
  grt_device_set* ds = nullptr;
  GRT_ASSERT_OK(grt_device_set_from_spec("cpu:2,gpu:12", &ds));
  ASSERT_EQ(grt_device_set_count(ds), 14);
  EXPECT_STREQ(grt_device_set_name(ds, 1), "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_STREQ(grt_device_set_type(ds, 2), "GPU");
  EXPECT_EQ(grt_device_set_id(ds, 13), 11);
  EXPECT_TRUE(grt_device_set_present(ds, 0));
  EXPECT_TRUE(grt_device_set_present(ds, 1));
  grt_device_set_free(ds);
  GRT_ASSERT_OK(grt_device_set_from_spec("gpu:2", &ds));
  EXPECT_EQ(grt_device_set_count_type(ds, "CPU"), 1);  // the one CPU
  EXPECT_TRUE(grt_device_set_present(ds, 0));
  grt_device_set_free(ds);
}

TEST(DeviceSetRuntimeTest, FromSpecErrors) {
  struct {
    const char* spec;
    const char* want;
  } bad[] = {
      {"", "empty device spec"},     {"tpu:1", "unknown device type 'tpu'"},
      {"gpu", "needs a count"},      {"gpu:99999", "must be a number from 0 to 1024"},
      {"cpu:0", "at least one CPU"}, {"gpu:1,gpu:2", "GPU is given twice"},
  };
  for (const auto& b : bad) {
    grt_device_set* ds = nullptr;
    Status st(grt_device_set_from_spec(b.spec, &ds));
    ASSERT_FALSE(st.ok()) << b.spec;
    EXPECT_EQ(st.code(), GRT_INVALID_ARGUMENT) << b.spec;
    EXPECT_NE(st.msg().find(b.want), std::string::npos) << b.spec << ": " << st.msg();
    EXPECT_EQ(ds, nullptr);
  }
}

TEST(DeviceSetRuntimeTest, FromMachine) {
  grt_device_set* ds = nullptr;
  GRT_ASSERT_OK(grt_device_set_from_machine(2, &ds));
  EXPECT_EQ(grt_device_set_count_type(ds, "CPU"), 2);
  for (int32_t i = 0; i < grt_device_set_count(ds); i++)
    EXPECT_TRUE(grt_device_set_present(ds, i)) << grt_device_set_name(ds, i);
  grt_device_set_free(ds);
  Status bad(grt_device_set_from_machine(0, &ds));
  EXPECT_EQ(bad.code(), GRT_INVALID_ARGUMENT);
  EXPECT_EQ(ds, nullptr);
}

}  // namespace
