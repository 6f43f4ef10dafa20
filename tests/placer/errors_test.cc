// Placement failures without soft placement: TensorFlow's wording (so users
// can search for it), plus every member of the colocation group at fault.
#include <gtest/gtest.h>

#include <string>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Graph;
using grt_test::Placed;

bool Has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(PlacerErrorsTest, ContractMessageForAMissingDevice) {
  Graph g;
  g.Var("b_1", {3, 2}, "/gpu:1");
  Placed p(g, "cpu:1");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), GRT_INVALID_ARGUMENT);
  EXPECT_EQ(p.error(),
            "Cannot assign a device for operation b_1: Operation was explicitly assigned to "
            "/device:GPU:1 but available devices are [ "
            "/job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device "
            "specification refers to a valid device.");
}

TEST(PlacerErrorsTest, AvailableDevicesInNumericOrder) {
  Graph g;
  g.Const("c", {1}, "/gpu:12");
  Placed p(g, "cpu:1,gpu:11");
  ASSERT_FALSE(p.ok());
  std::string e = p.error();
  size_t g2 = e.find("device:GPU:2,"), g10 = e.find("device:GPU:10");
  ASSERT_NE(g2, std::string::npos) << e;
  ASSERT_NE(g10, std::string::npos) << e;
  EXPECT_LT(g2, g10) << e;
}

TEST(PlacerErrorsTest, GroupErrorNamesEveryMember) {
  Graph g;
  g.Variable("w", {2}, "/gpu:1");
  g.Op("use", "Neg", {"w/read"}).ColocateWith("w");
  Placed p(g, "cpu:1");
  ASSERT_FALSE(p.ok());
  std::string e = p.error();
  EXPECT_TRUE(Has(e,
                  "Cannot assign a device for operation w: Operation was explicitly assigned "
                  "to /device:GPU:1 but available devices are [ "))
      << e;
  EXPECT_TRUE(Has(e, "Colocation group of 5 nodes")) << e;
  for (const char* line :
       {"  w (VariableV2) /gpu:1 supported: CPU", "  w/init (Const) /gpu:1 supported: CPU",
        "  w/Assign (Assign) /gpu:1 supported: CPU", "  w/read (Identity) /gpu:1 supported: CPU",
        "  use (Neg) '' supported: CPU"})
    EXPECT_TRUE(Has(e, line)) << line << "\n" << e;
}

TEST(PlacerErrorsTest, NoKernelForTheRequestedType) {
  Graph g;
  g.Const("a", {2, 2}, "", GRT_INT32).Const("b", {2, 2}, "", GRT_INT32);
  g.Op("m", "MatMul", {"a", "b"}, "/gpu:0", GRT_INT32);
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_FALSE(p.ok());
  std::string e = p.error();
  EXPECT_TRUE(Has(e,
                  "Cannot assign a device for operation m: Could not satisfy explicit device "
                  "specification '/device:GPU:0' because no supported kernel for GPU devices "
                  "is available."))
      << e;
  EXPECT_TRUE(Has(e, "\nOp: MatMul\nNode attrs: T=int32")) << e;
  EXPECT_TRUE(Has(e, "Registered kernels:\n  device='CPU'")) << e;
  EXPECT_TRUE(Has(e, "device='GPU'; T in [float16, bfloat16, float32, float64]")) << e;
}

TEST(PlacerErrorsTest, ColocationConflictNamesBothSides) {
  Graph g;
  g.Var("a", {2}, "/gpu:0").Op("b", "Identity", {"a"}, "/cpu:0").ColocateWith("a");
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_FALSE(p.ok());
  std::string e = p.error();
  EXPECT_TRUE(Has(e,
                  "Cannot colocate nodes b and a: Cannot merge devices with incompatible "
                  "types: '/device:CPU:0' and '/device:GPU:0'"))
      << e;
  EXPECT_TRUE(Has(e, "  a (VariableV2) /gpu:0 supported: CPU GPU")) << e;
  EXPECT_TRUE(Has(e, "  b (Identity) /cpu:0 supported: CPU GPU")) << e;
  Graph h;
  h.Var("a", {2}, "/gpu:0").Op("b", "Identity", {"a"}, "/gpu:1").ColocateWith("a");
  Placed q(h, "cpu:1,gpu:2");
  ASSERT_FALSE(q.ok());
  EXPECT_TRUE(Has(q.error(),
                  "Cannot merge devices with incompatible ids: '/device:GPU:1' and "
                  "'/device:GPU:0'"))
      << q.error();
}

TEST(PlacerErrorsTest, MemberColocatedWithAnIncompatibleGroup) {
  Graph g;
  g.Const("a", {2}, "/job:localhost").Const("b", {2}, "/gpu:5").ColocateWith("a");
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_FALSE(p.ok());
  std::string e = p.error();
  EXPECT_TRUE(Has(e,
                  "Cannot assign a device for operation a: Could not satisfy explicit device "
                  "specification '/job:localhost' because the node a was colocated with a "
                  "group of nodes that required incompatible device "
                  "'/job:localhost/device:GPU:5'. All available devices "
                  "[/job:localhost/replica:0/task:0/device:CPU:0, "))
      << e;
  EXPECT_TRUE(Has(e, "  b (Const) /gpu:5")) << e;
}

TEST(PlacerErrorsTest, OpWithNoKernelAnywhereFailsEvenSoft) {
  Graph g;
  g.Var("v", {2}, "", GRT_INT32).Const("lr", {}, "", GRT_INT32).Const("d", {2}, "", GRT_INT32);
  g.Op("apply", "ApplyGradientDescent", {"v", "lr", "d"}, "", GRT_INT32);
  for (bool soft : {false, true}) {
    Placed p(g, "cpu:1,gpu:1", soft);
    ASSERT_FALSE(p.ok());
    std::string e = p.error();
    EXPECT_TRUE(Has(e,
                    "No OpKernel was registered to support Op 'ApplyGradientDescent' used by "
                    "node apply with these attrs: [T=int32]\nRegistered devices: [CPU, GPU]\n"
                    "Registered kernels:\n  device='CPU'; T in [float16"))
        << e;
  }
}

TEST(PlacerErrorsTest, LargeGroupsListRequestersAndSummariseTheRest) {
  Graph g;
  g.Var("w", {2}, "/gpu:3");
  for (int i = 0; i < 100; i++) g.Op("r" + std::to_string(i), "Identity", {"w"}).ColocateWith("w");
  g.Op("late", "Identity", {"w"}, "/device:GPU:3").ColocateWith("w");
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_FALSE(p.ok());
  std::string e = p.error();
  EXPECT_TRUE(Has(e, "Colocation group of 102 nodes")) << e;
  EXPECT_TRUE(Has(e, "  w (VariableV2) /gpu:3")) << e;
  EXPECT_TRUE(Has(e, "  late (Identity) /device:GPU:3")) << e;  // requesters always listed
  EXPECT_TRUE(Has(e, "  r31 (Identity) ''")) << e;
  EXPECT_FALSE(Has(e, "  r32 (Identity)")) << e;
  EXPECT_TRUE(Has(e, "... and 68 more members with no device request")) << e;
}

}  // namespace
