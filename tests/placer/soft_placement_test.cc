// Soft placement: a request that cannot be met falls back, keeping the type
// and dropping the id first, then dropping the type; each fallback is in the
// plan with its cause.
#include <gtest/gtest.h>

#include <string>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Graph;
using grt_test::Placed;

TEST(SoftPlacementTest, MissingIdKeepsTheType) {
  Graph g;
  g.Const("c", {2}, "/gpu:3");
  Placed p(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("c"), "GPU:0");
  EXPECT_EQ(p.Reason("c"), GRT_REASON_SOFT_FALLBACK);
  EXPECT_EQ(p.Cause("c"), GRT_CAUSE_NO_SUCH_DEVICE);
  EXPECT_EQ(p.Text("c"),
            "soft placement: requested '/gpu:3' cannot be met (no such device); fell back to "
            "/job:localhost/replica:0/task:0/device:GPU:0 by dropping the device id");
}

TEST(SoftPlacementTest, MissingTypeDropsIt) {
  Graph g;
  g.Const("c", {2}, "/gpu:1");
  Placed p(g, "cpu:1", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("c"), "CPU:0");
  EXPECT_EQ(p.Cause("c"), GRT_CAUSE_NO_SUCH_DEVICE);
  EXPECT_NE(p.Text("c").find("by dropping the device type"), std::string::npos) << p.Text("c");
  Placed strict(g, "cpu:1", false);
  EXPECT_FALSE(strict.ok());
}

TEST(SoftPlacementTest, NoKernelForTheType) {
  Graph g;
  g.Const("a", {2, 2}, "", GRT_INT32).Const("b", {2, 2}, "", GRT_INT32);
  g.Op("m", "MatMul", {"a", "b"}, "/gpu:0", GRT_INT32);
  Placed p(g, "cpu:1,gpu:1", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("m"), "CPU:0");
  EXPECT_EQ(p.Reason("m"), GRT_REASON_SOFT_FALLBACK);
  EXPECT_EQ(p.Cause("m"), GRT_CAUSE_NO_KERNEL);
  EXPECT_NE(p.Text("m").find("no kernel for MatMul on that device type"), std::string::npos)
      << p.Text("m");
}

TEST(SoftPlacementTest, ConflictingIdsInAGroupKeepTheType) {
  Graph g;
  g.Var("a", {2}, "/gpu:0").Op("b", "Identity", {"a"}, "/gpu:1").ColocateWith("a");
  Placed p(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("a"), "GPU:0");
  EXPECT_EQ(p.Dev("b"), "GPU:0");
  EXPECT_EQ(p.Reason("a"), GRT_REASON_EXPLICIT);
  EXPECT_EQ(p.Reason("b"), GRT_REASON_SOFT_FALLBACK);
  EXPECT_EQ(p.Cause("b"), GRT_CAUSE_COLOCATION_CONFLICT);
  EXPECT_NE(p.Text("b").find("colocation conflict with 'a' which requested '/gpu:0'"),
            std::string::npos)
      << p.Text("b");
}

TEST(SoftPlacementTest, ConflictingTypesDropTheType) {
  Graph g;
  g.Var("a", {2}, "/cpu:0").Op("b", "Identity", {"a"}, "/gpu:0").ColocateWith("a");
  Placed p(g, "cpu:1,gpu:1", true);
  ASSERT_TRUE(p.ok()) << p.error();
  // Like TensorFlow, the merged request is empty, so the default (GPU) wins.
  EXPECT_EQ(p.Dev("a"), "GPU:0");
  EXPECT_EQ(p.Dev("b"), "GPU:0");
  EXPECT_EQ(p.Cause("a"), GRT_CAUSE_COLOCATION_CONFLICT);
  EXPECT_EQ(p.Reason("b"), GRT_REASON_EXPLICIT);
}

TEST(SoftPlacementTest, UnknownJobKeepsTheType) {
  Graph g;
  g.Const("c", {2}, "/job:worker/task:3/device:GPU:0");
  Placed p(g, "cpu:1,gpu:1", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("c"), "GPU:0");
  EXPECT_NE(p.Text("c").find("keeping only the device type"), std::string::npos) << p.Text("c");
}

TEST(SoftPlacementTest, GroupMembersWithoutRequestFollowTheFallback) {
  Graph g;
  g.Variable("w", {2}, "/gpu:5");
  Placed p(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(p.ok()) << p.error();
  for (const char* n : {"w", "w/init", "w/Assign", "w/read"}) EXPECT_EQ(p.Dev(n), "GPU:0") << n;
  // Every member asked for /gpu:5 in this pattern: each falls back itself.
  EXPECT_EQ(p.Reason("w/read"), GRT_REASON_SOFT_FALLBACK);
  Graph h;
  h.Var("v", {2}, "/gpu:5").Op("v/read", "Identity", {"v"}).ColocateWith("v");
  Placed q(h, "cpu:1,gpu:2", true);
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q.Dev("v/read"), "GPU:0");
  EXPECT_EQ(q.Reason("v/read"), GRT_REASON_COLOCATION);
  EXPECT_NE(q.Text("v/read").find("soft placement fell back by dropping the device id"),
            std::string::npos)
      << q.Text("v/read");
}

TEST(SoftPlacementTest, UnmergeableColocationIsIgnored) {
  Graph g;
  g.Const("a", {2}, "/job:ps/device:CPU:0").Const("b", {2}, "/job:worker").ColocateWith("a");
  Placed strict(g, "cpu:1,gpu:1");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().find("Cannot colocate nodes b and a: Cannot merge devices with "
                                "incompatible jobs: '/job:worker' and '/job:ps/device:CPU:0'"),
            std::string::npos)
      << strict.error();
  Placed p(g, "cpu:1,gpu:1", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("a"), "CPU:0");  // job dropped, type kept
  EXPECT_EQ(p.Dev("b"), "GPU:0");  // no longer colocated with a
}

}  // namespace
