// Device names (base/device_name.h): every spelling in docs/placement.md
// section 4, partial specs and wildcards, canonical output, merging and
// compatibility, and clear errors for malformed names.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "base/device_name.h"
#include "base/status.h"
}

namespace {

struct Parsed {
  grt_device_name d;
  grt_status* s;
  explicit Parsed(const char* spec) { s = grt_device_name_parse(spec, &d); }
  ~Parsed() { grt_status_free(s); }
  std::string str() const {
    char buf[GRT_DEVICE_NAME_MAX];
    grt_device_name_str(&d, buf, sizeof buf);
    return buf;
  }
};

std::string Canonical(const char* spec) {
  Parsed p(spec);
  EXPECT_EQ(p.s, nullptr) << spec << ": " << grt_status_message(p.s);
  return p.str();
}

TEST(DeviceNameTest, ContractSpellings) {
  EXPECT_EQ(Canonical("/cpu:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("/gpu:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("/CPU:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("/device:GPU:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("GPU:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("/gpu:*"), "/device:GPU:*");
  EXPECT_EQ(Canonical("/device:GPU"), "/device:GPU:*");
  EXPECT_EQ(Canonical("/job:localhost/replica:0/task:0/device:CPU:0"),
            "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(Canonical("/job:localhost/device:GPU:0"), "/job:localhost/device:GPU:0");
}

TEST(DeviceNameTest, FieldsOfAFullName) {
  Parsed p("/job:worker/replica:2/task:7/device:gpu:12");
  ASSERT_EQ(p.s, nullptr);
  EXPECT_TRUE(p.d.has_job && p.d.has_replica && p.d.has_task && p.d.has_type && p.d.has_id);
  EXPECT_STREQ(p.d.job, "worker");
  EXPECT_EQ(p.d.replica, 2);
  EXPECT_EQ(p.d.task, 7);
  EXPECT_STREQ(p.d.type, "GPU");  // types are kept upper-case
  EXPECT_EQ(p.d.id, 12);
}

TEST(DeviceNameTest, LegacySegmentInsideAFullName) {
  EXPECT_EQ(Canonical("/job:localhost/replica:0/task:0/cpu:0"),
            "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(Canonical("/job:localhost/replica:0/task:0/gpu:3"),
            "/job:localhost/replica:0/task:0/device:GPU:3");
}

TEST(DeviceNameTest, EmptyAndWildcardsLeaveFieldsUnset) {
  for (const char* spec : {"", "/", "/job:*/replica:*/task:*/device:*:*", "/device:*"}) {
    Parsed p(spec);
    ASSERT_EQ(p.s, nullptr) << spec;
    EXPECT_FALSE(p.d.has_job || p.d.has_replica || p.d.has_task || p.d.has_type || p.d.has_id)
        << spec;
    EXPECT_EQ(p.str(), "") << spec;
  }
  Parsed null_spec(nullptr);
  EXPECT_EQ(null_spec.s, nullptr);
  EXPECT_EQ(Canonical("/device:*:3"), "/device:*:3");
  EXPECT_EQ(Canonical("/job:localhost/device:*"), "/job:localhost");
}

TEST(DeviceNameTest, MalformedNamesAreClearErrors) {
  const char* bad[] = {
      "/gpu",             // no id: the legacy form needs one
      "gpu",              //
      "/gpu:x",           // id not a number
      "/gpu:-1",          //
      "/gpu:1234567890",  // too many digits
      "/job:",            // empty job
      "/job:1abc",        // job must start with a letter
      "/replica:abc",     //
      "/task:",           //
      "/gpu:0/",          // empty part
      "//gpu:0",          //
      "/device:GPU:1:2",  //
      "/device:",         //
      "/device:G PU:0",   // space
  };
  for (const char* spec : bad) {
    Parsed p(spec);
    ASSERT_NE(p.s, nullptr) << spec << " should not parse";
    EXPECT_EQ(grt_status_code(p.s), GRT_INVALID_ARGUMENT) << spec;
    std::string msg = grt_status_message(p.s);
    EXPECT_NE(msg.find("malformed device specification"), std::string::npos) << msg;
    EXPECT_NE(msg.find(spec), std::string::npos) << "message should name the spec: " << msg;
  }
  std::string huge(600, 'a');
  Parsed p(("/job:" + huge).c_str());
  ASSERT_NE(p.s, nullptr);
  EXPECT_NE(std::string(grt_status_message(p.s)).find("too long"), std::string::npos);
}

TEST(DeviceNameTest, ParseFailureLeavesOutputEmpty) {
  grt_device_name d;
  memset(&d, 0xff, sizeof d);
  grt_status* s = grt_device_name_parse("/gpu:0/bogus", &d);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(grt_status_message(s)).find("'bogus'"), std::string::npos);
  grt_status_free(s);
  EXPECT_FALSE(d.has_job || d.has_type || d.has_id);
}

TEST(DeviceNameTest, FullName) {
  char buf[GRT_DEVICE_NAME_MAX];
  grt_device_name_full("GPU", 10, buf, sizeof buf);
  EXPECT_STREQ(buf, "/job:localhost/replica:0/task:0/device:GPU:10");
}

TEST(DeviceNameTest, MatchesNeedsEveryFieldTheSpecSets) {
  Parsed dev("/job:localhost/replica:0/task:0/device:GPU:1");
  Parsed any(""), any_gpu("/device:GPU"), gpu1("/gpu:1"), gpu0("/gpu:0"), cpu("/cpu:*"),
      job("/job:localhost"), worker("/job:worker/gpu:1");
  EXPECT_TRUE(grt_device_name_matches(&any.d, &dev.d));
  EXPECT_TRUE(grt_device_name_matches(&any_gpu.d, &dev.d));
  EXPECT_TRUE(grt_device_name_matches(&gpu1.d, &dev.d));
  EXPECT_TRUE(grt_device_name_matches(&job.d, &dev.d));
  EXPECT_FALSE(grt_device_name_matches(&gpu0.d, &dev.d));
  EXPECT_FALSE(grt_device_name_matches(&cpu.d, &dev.d));
  EXPECT_FALSE(grt_device_name_matches(&worker.d, &dev.d));
  // A partial "device" never satisfies a spec for the field it lacks.
  EXPECT_FALSE(grt_device_name_matches(&gpu1.d, &any_gpu.d));
}

TEST(DeviceNameTest, Compatibility) {
  Parsed gpu("/device:GPU"), gpu1("/gpu:1"), gpu2("/gpu:2"), cpu0("/cpu:0"), job("/job:localhost"),
      worker("/job:worker");
  EXPECT_TRUE(grt_device_name_compatible(&gpu.d, &gpu1.d));
  EXPECT_TRUE(grt_device_name_compatible(&job.d, &gpu1.d));
  EXPECT_FALSE(grt_device_name_compatible(&gpu1.d, &gpu2.d));
  EXPECT_FALSE(grt_device_name_compatible(&gpu1.d, &cpu0.d));
  EXPECT_FALSE(grt_device_name_compatible(&job.d, &worker.d));
}

TEST(DeviceNameTest, MergeAddsFields) {
  Parsed a("/job:localhost"), b("/device:GPU:0"), c("/gpu:*");
  ASSERT_EQ(grt_device_name_merge(&a.d, &c.d), nullptr);
  EXPECT_EQ(a.str(), "/job:localhost/device:GPU:*");
  ASSERT_EQ(grt_device_name_merge(&a.d, &b.d), nullptr);
  EXPECT_EQ(a.str(), "/job:localhost/device:GPU:0");
}

TEST(DeviceNameTest, MergeConflictFailsAndLeavesTargetUnchanged) {
  Parsed a("/job:localhost/gpu:0"), b("/gpu:1"), c("/cpu:0"), d("/job:ps");
  for (Parsed* other : {&b, &c, &d}) {
    grt_status* s = grt_device_name_merge(&a.d, &other->d);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(grt_status_message(s)).find("conflict"), std::string::npos);
    grt_status_free(s);
    EXPECT_EQ(a.str(), "/job:localhost/device:GPU:0");
  }
}

}  // namespace
