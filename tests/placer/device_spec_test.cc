// Device types known to the spec syntax are the registered ones: "test" is
// unknown until a backend registers TEST, and then parses like "gpu". And
// there is room for GRT_MAX_DEVICE_TYPES types, no more.
//
// One test: registration is global to the process and its order matters.
#include <gtest/gtest.h>

#include <string>

#include "tests/placer/placer_helper.h"

extern "C" {
#include "kernels/kernel_registry.h"
}

namespace {

using grt_test::Status;

TEST(DeviceSpecTest, KnowsRegisteredTypesOnly) {
  grt_device_count c[GRT_MAX_DEVICE_TYPES];
  int32_t n = -1;
  Status before(grt_device_spec_parse("cpu:2,test:1", c, GRT_MAX_DEVICE_TYPES, &n));
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(before.code(), GRT_INVALID_ARGUMENT);
  EXPECT_NE(
      before.msg().find("device spec 'cpu:2,test:1': unknown device type 'test' (cpu or gpu)"),
      std::string::npos)
      << before.msg();
  EXPECT_EQ(n, 0);

  static const grt_kernel_spec rows[] = {{"Const", "TEST", "dtype: {float32}", "", 0}};
  grt_device_type t;
  GRT_ASSERT_OK(grt_device_type_register("TEST", 150, rows, 1, &t));
  GRT_ASSERT_OK(grt_device_spec_parse("cpu:2,test:1", c, GRT_MAX_DEVICE_TYPES, &n));
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(c[0].type, "CPU");
  EXPECT_EQ(c[0].present, 2);
  EXPECT_STREQ(c[1].type, "TEST");
  EXPECT_EQ(c[1].declared, 1);
  EXPECT_EQ(c[1].present, 0);
  grt_device_set* ds = nullptr;
  GRT_ASSERT_OK(grt_device_set_new(c, n, &ds));
  EXPECT_EQ(grt_device_set_count(ds), 3);
  EXPECT_STREQ(grt_device_set_name(ds, 2), "/job:localhost/replica:0/task:0/device:TEST:0");
  EXPECT_FALSE(grt_device_set_present(ds, 2));
  grt_device_set_free(ds);

  // Up to GRT_MAX_DEVICE_TYPES types; a type without rows is fine.
  for (int i = grt_device_type_count(); i < GRT_MAX_DEVICE_TYPES; i++) {
    std::string name = "EXTRA" + std::to_string(i);
    GRT_ASSERT_OK(grt_device_type_register(name.c_str(), i, nullptr, 0, &t));
    EXPECT_EQ(t, i);
  }
  Status full(grt_device_type_register("ONEMORE", 1, nullptr, 0, &t));
  EXPECT_EQ(full.code(), GRT_RESOURCE_EXHAUSTED) << full.msg();
  EXPECT_NE(full.msg().find("at most 8"), std::string::npos) << full.msg();
  EXPECT_EQ(grt_device_type_count(), GRT_MAX_DEVICE_TYPES);
  Status unknown(grt_device_spec_parse("tpu:1", c, GRT_MAX_DEVICE_TYPES, &n));
  EXPECT_NE(unknown.msg().find("(cpu, gpu, test, extra3, extra4, extra5, extra6 or extra7)"),
            std::string::npos)
      << unknown.msg();
  // Every type in one spec: more than `max` entries is an error.
  GRT_ASSERT_OK(
      grt_device_spec_parse("cpu:1,gpu:1,test:1,extra3:1,extra4:1,extra5:1,extra6:1,extra7:2", c,
                            GRT_MAX_DEVICE_TYPES, &n));
  EXPECT_EQ(n, GRT_MAX_DEVICE_TYPES);
  GRT_ASSERT_OK(grt_device_set_new(c, n, &ds));
  EXPECT_EQ(grt_device_set_count(ds), 9);
  EXPECT_STREQ(grt_device_set_type(ds, 8), "EXTRA7");
  grt_device_set_free(ds);
  Status room(grt_device_spec_parse("cpu:1,gpu:1,test:1", c, 2, &n));
  EXPECT_NE(room.msg().find("more than 2 device types"), std::string::npos) << room.msg();
}

}  // namespace
