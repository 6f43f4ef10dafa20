// Device sets: from per-type counts (grt_device_set_new) and declared on the
// command line ("cpu:1,gpu:8", grt_device_spec_parse). Which devices are
// present is the caller's to say (the runtime asks its backends:
// device_set_runtime_test).
#include <gtest/gtest.h>

#include <string>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Status;

struct Set {
  grt_device_set* ds = nullptr;
  Status st;
  explicit Set(const char* spec) { st.s = grt_test::SpecSet(spec, &ds); }
  ~Set() { grt_device_set_free(ds); }
};

TEST(DeviceSetTest, DeclaredCpusThenGpusByNumericId) {
  Set s("cpu:2,gpu:12");
  ASSERT_TRUE(s.st.ok()) << s.st.msg();
  ASSERT_EQ(grt_device_set_count(s.ds), 14);
  EXPECT_STREQ(grt_device_set_name(s.ds, 0), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_STREQ(grt_device_set_name(s.ds, 1), "/job:localhost/replica:0/task:0/device:CPU:1");
  for (int i = 0; i < 12; i++) {
    EXPECT_STREQ(grt_device_set_type(s.ds, 2 + i), "GPU");
    EXPECT_EQ(grt_device_set_id(s.ds, 2 + i), i);  // GPU:2 before GPU:10
  }
  EXPECT_EQ(grt_device_set_count_type(s.ds, "gpu"), 12);
  EXPECT_EQ(grt_device_set_count_type(s.ds, "CPU"), 2);
  EXPECT_EQ(grt_device_set_count_type(s.ds, "TPU"), 0);
}

TEST(DeviceSetTest, GpuAloneKeepsOneCpu) {
  Set s("gpu:2");
  ASSERT_TRUE(s.st.ok()) << s.st.msg();
  EXPECT_EQ(grt_device_set_count(s.ds), 3);
  EXPECT_STREQ(grt_device_set_type(s.ds, 0), "CPU");
  Set spaced(" GPU:1 , CPU:3 ");
  ASSERT_TRUE(spaced.st.ok()) << spaced.st.msg();
  EXPECT_EQ(grt_device_set_count_type(spaced.ds, "cpu"), 3);
  Set zero("cpu:1,gpu:0");
  ASSERT_TRUE(zero.st.ok());
  EXPECT_EQ(grt_device_set_count(zero.ds), 1);
}

TEST(DeviceSetTest, DeclaredGpusAreNotPresentUnlessTheCallerSaysSo) {
  Set s("cpu:1,gpu:2");
  ASSERT_TRUE(s.st.ok());
  EXPECT_TRUE(grt_device_set_present(s.ds, 0));
  EXPECT_FALSE(grt_device_set_present(s.ds, 1));
  EXPECT_FALSE(grt_device_set_present(s.ds, 2));
}

TEST(DeviceSetTest, MalformedSpecs) {
  struct {
    const char* spec;
    const char* want;
  } bad[] = {
      {"", "empty device spec"},
      {"tpu:1", "unknown device type 'tpu'"},
      {"gpu", "needs a count"},
      {"gpu:", "must be a number"},
      {"gpu:-1", "must be a number"},
      {"gpu:x", "must be a number"},
      {"gpu:99999", "must be a number from 0 to 1024"},
      {"cpu:0", "at least one CPU"},
      {"gpu:1,gpu:2", "GPU is given twice"},
      {"cpu:1,", "ends with ','"},
      {",gpu:1", "cannot parse"},
  };
  for (const auto& b : bad) {
    Set s(b.spec);
    ASSERT_FALSE(s.st.ok()) << b.spec;
    EXPECT_EQ(s.st.code(), GRT_INVALID_ARGUMENT) << b.spec;
    EXPECT_NE(s.st.msg().find(b.want), std::string::npos) << b.spec << ": " << s.st.msg();
    EXPECT_EQ(s.ds, nullptr);
  }
}

TEST(DeviceSetTest, FindByAnySpellingOfOneDevice) {
  Set s("cpu:1,gpu:3");
  ASSERT_TRUE(s.st.ok());
  EXPECT_EQ(grt_device_set_find(s.ds, "/gpu:2"), 3);
  EXPECT_EQ(grt_device_set_find(s.ds, "GPU:0"), 1);
  EXPECT_EQ(grt_device_set_find(s.ds, "/job:localhost/replica:0/task:0/device:CPU:0"), 0);
  EXPECT_EQ(grt_device_set_find(s.ds, "/gpu:3"), -1);
  EXPECT_EQ(grt_device_set_find(s.ds, "/device:GPU"), -1);  // not one device
  EXPECT_EQ(grt_device_set_find(s.ds, "/gpu:x"), -1);
  EXPECT_EQ(grt_device_set_find(s.ds, "/job:worker/gpu:0"), -1);
}

TEST(DeviceSetTest, PresenceComesFromTheCaller) {
  // What the runtime does on a machine with four GPUs asked for six.
  grt_device_count c[] = {{"gpu", 6, 4}, {"CPU", 2, 2}};
  grt_device_set* ds = nullptr;
  GRT_ASSERT_OK(grt_device_set_new(c, 2, &ds));
  ASSERT_EQ(grt_device_set_count(ds), 8);
  EXPECT_STREQ(grt_device_set_type(ds, 0), "CPU");  // types in id order, whatever the list's
  EXPECT_EQ(grt_device_set_type_id(ds, 0), 0);
  EXPECT_EQ(grt_device_set_type_id(ds, 2), 1);
  EXPECT_EQ(grt_device_set_type_id(ds, 8), -1);
  EXPECT_TRUE(grt_device_set_present(ds, 1));
  EXPECT_TRUE(grt_device_set_present(ds, 5));   // GPU:3
  EXPECT_FALSE(grt_device_set_present(ds, 6));  // GPU:4
  grt_device_set_free(ds);
  // No CPU listed: one present CPU.
  grt_device_count gpus[] = {{"GPU", 2, 2}};
  GRT_ASSERT_OK(grt_device_set_new(gpus, 1, &ds));
  ASSERT_EQ(grt_device_set_count(ds), 3);
  EXPECT_TRUE(grt_device_set_present(ds, 0));
  grt_device_set_free(ds);
  GRT_ASSERT_OK(grt_device_set_new(nullptr, 0, &ds));
  EXPECT_EQ(grt_device_set_count(ds), 1);
  grt_device_set_free(ds);
}

TEST(DeviceSetTest, BadCounts) {
  struct {
    grt_device_count c;
    const char* want;
  } bad[] = {
      {{"TPU", 1, 0}, "unknown device type 'TPU' (known types: CPU, GPU"},
      {{nullptr, 1, 0}, "unknown device type"},
      {{"gpu", -1, 0}, "must be from 0 to 1024"},
      {{"gpu", 1025, 0}, "must be from 0 to 1024"},
      {{"gpu", 2, 3}, "3 GPU devices present of 2 declared"},
      {{"gpu", 2, -1}, "present"},
      {{"cpu", 0, 0}, "at least one CPU"},
  };
  for (const auto& b : bad) {
    grt_device_set* ds = nullptr;
    Status st(grt_device_set_new(&b.c, 1, &ds));
    ASSERT_FALSE(st.ok()) << b.want;
    EXPECT_EQ(st.code(), GRT_INVALID_ARGUMENT) << b.want;
    EXPECT_NE(st.msg().find(b.want), std::string::npos) << st.msg();
    EXPECT_EQ(ds, nullptr);
  }
  grt_device_count twice[] = {{"gpu", 1, 0}, {"GPU", 2, 0}};
  grt_device_set* ds = nullptr;
  Status st(grt_device_set_new(twice, 2, &ds));
  EXPECT_NE(st.msg().find("GPU is given twice"), std::string::npos) << st.msg();
}

TEST(DeviceSetTest, SpecParseFillsCounts) {
  grt_device_count c[4];
  int32_t n = -1;
  GRT_ASSERT_OK(grt_device_spec_parse(" gpu:8 ,cpu:2", c, 4, &n));
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(c[0].type, "GPU");  // the registered name, in the spec's order
  EXPECT_EQ(c[0].declared, 8);
  EXPECT_EQ(c[0].present, 0);  // for the caller to fill in
  EXPECT_STREQ(c[1].type, "CPU");
  EXPECT_EQ(c[1].declared, 2);
  EXPECT_EQ(c[1].present, 2);
  Status small(grt_device_spec_parse("cpu:1,gpu:1", c, 1, &n));
  EXPECT_EQ(small.code(), GRT_INVALID_ARGUMENT);
  Status unknown(grt_device_spec_parse("tpu:1", c, 4, &n));
  EXPECT_NE(unknown.msg().find("unknown device type 'tpu' (cpu or gpu)"), std::string::npos)
      << unknown.msg();
}

TEST(DeviceSetTest, CopyAndOutOfRange) {
  Set s("cpu:1,gpu:1");
  grt_device_set* c = nullptr;
  ASSERT_EQ(grt_device_set_copy(s.ds, &c), nullptr);
  EXPECT_EQ(grt_device_set_count(c), 2);
  EXPECT_STREQ(grt_device_set_name(c, 1), grt_device_set_name(s.ds, 1));
  EXPECT_NE(grt_device_set_name(c, 1), grt_device_set_name(s.ds, 1));  // its own storage
  grt_device_set_free(c);
  EXPECT_STREQ(grt_device_set_name(s.ds, 2), "");
  EXPECT_STREQ(grt_device_set_type(s.ds, -1), "");
  EXPECT_EQ(grt_device_set_id(s.ds, 9), -1);
  EXPECT_EQ(grt_device_set_count(nullptr), 0);
  grt_device_set_free(nullptr);
}

TEST(DeviceSetTest, WriteMapping) {
  Set s("cpu:1,gpu:1");
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  ASSERT_EQ(grt_device_set_write(s.ds, f), nullptr);
  fclose(f);
  EXPECT_EQ(std::string(text),
            "Device mapping:\n"
            "/job:localhost/replica:0/task:0/device:CPU:0 -> device: 0, name: logical CPU device\n"
            "/job:localhost/replica:0/task:0/device:GPU:0 -> device: 0, name: logical GPU device "
            "(declared; not on this machine)\n");
  free(text);
}

}  // namespace
