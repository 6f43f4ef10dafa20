// The kernel registry: the support tables parse and agree with the op
// registry, and what they declare matches TensorFlow's registrations.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/placer/placer_helper.h"

extern "C" {
#include "kernels/kernel_registry.h"
#include "ops/graph.h"
#include "ops/op_def.h"
}

namespace {

using grt_test::Graph;

TEST(KernelRegistryTest, TablesParseAndAgreeWithOpRegistry) {
  const grt_status* s = grt_kernel_registry_status();
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_GT(grt_kernel_count(), 100);
}

TEST(KernelRegistryTest, EveryRegisteredOpRunsOnTheCpu) {
  // An op with no CPU row could never be placed on a CPU-only machine; this
  // catches ops added to the op registry without a support row.
  for (int32_t i = 0; i < grt_op_count(); i++) {
    const grt_op_def* def = grt_op_at(i);
    const grt_kernel_def* const* rows;
    int32_t n = grt_kernel_find_op(def->name, &rows);
    bool cpu = false;
    for (int32_t k = 0; k < n; k++) cpu |= rows[k]->device == GRT_DEVICE_CPU;
    EXPECT_TRUE(cpu) << def->name << " has no CPU kernel row";
  }
}

TEST(KernelRegistryTest, DeviceTypes) {
  grt_device_type t;
  ASSERT_TRUE(grt_device_type_from_name("gpu", &t));
  EXPECT_EQ(t, GRT_DEVICE_GPU);
  ASSERT_TRUE(grt_device_type_from_name("CPU", &t));
  EXPECT_EQ(t, GRT_DEVICE_CPU);
  EXPECT_FALSE(grt_device_type_from_name("TPU", &t));
  EXPECT_STREQ(grt_device_type_name(GRT_DEVICE_GPU), "GPU");
  EXPECT_GT(grt_device_type_priority(GRT_DEVICE_GPU), grt_device_type_priority(GRT_DEVICE_CPU));
  EXPECT_EQ(grt_device_type_priority(GRT_DEVICE_CPU), 70);
  EXPECT_EQ(grt_device_type_priority(GRT_DEVICE_GPU), 210);
  EXPECT_EQ(grt_device_type_count(), 2);
  EXPECT_STREQ(grt_device_type_name(2), "?");
  EXPECT_STREQ(grt_device_type_name(-1), "?");
  EXPECT_EQ(grt_device_type_priority(2), 0);
}

TEST(KernelRegistryTest, BuiltInTypesRegisteredAgainWithTheirRowsAreHarmless) {
  grt_device_type t = -1;
  ASSERT_EQ(grt_device_type_register("cpu", 70, grt_kernels_cpu.rows, grt_kernels_cpu.n, &t),
            nullptr);
  EXPECT_EQ(t, GRT_DEVICE_CPU);
  grt_status* s = grt_device_type_register("GPU", 210, grt_kernels_cpu.rows, 1, &t);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_ALREADY_EXISTS);
  EXPECT_NE(std::string(grt_status_message(s)).find("GPU"), std::string::npos);
  grt_status_free(s);
  EXPECT_EQ(grt_device_type_count(), 2);
}

TEST(KernelRegistryTest, IndicesAreStableAndGroupedByType) {
  // Each type's rows in table order, CPU's first; a row with the int32-on-host
  // marker stands for two parsed rows, both pointing at it.
  std::vector<const grt_kernel_spec*> want;
  for (const grt_kernel_table* t : {&grt_kernels_cpu, &grt_kernels_gpu})
    for (int32_t i = 0; i < t->n; i++) {
      const grt_kernel_spec* spec = &t->rows[i];
      want.push_back(spec);
      if (spec->constraints && strstr(spec->constraints, GRT_INT32_ON_HOST)) want.push_back(spec);
    }
  EXPECT_GT(want.size(), static_cast<size_t>(grt_kernels_cpu.n + grt_kernels_gpu.n));
  ASSERT_EQ(grt_kernel_count(), static_cast<int32_t>(want.size()));
  for (int32_t i = 0; i < grt_kernel_count(); i++) {
    const grt_kernel_def* k = grt_kernel_at(i);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->index, i);
    bool cpu =
        want[i] >= grt_kernels_cpu.rows && want[i] < grt_kernels_cpu.rows + grt_kernels_cpu.n;
    EXPECT_EQ(k->device, cpu ? GRT_DEVICE_CPU : GRT_DEVICE_GPU);
    EXPECT_EQ(k->spec, want[i]);
  }
}

// The supported-type mask of one node built from `build`.
class Support : public ::testing::Test {
 protected:
  uint32_t Mask(const std::string& name) {
    g_.Validate();
    const grt_node* n = &g_.get()->nodes[grt_graph_find_node(g_.get(), name.c_str())];
    return grt_kernel_supported(n, kern_);
  }
  const grt_kernel_def* Kernel(grt_device_type t) { return grt_kernel_at(kern_[t]); }
  const grt_node* N(const std::string& name) {
    return &g_.get()->nodes[grt_graph_find_node(g_.get(), name.c_str())];
  }
  Graph g_;
  int32_t kern_[GRT_MAX_DEVICE_TYPES];
};

constexpr uint32_t kCpu = 1u << GRT_DEVICE_CPU;
constexpr uint32_t kGpu = 1u << GRT_DEVICE_GPU;

TEST_F(Support, MatMulOnGpuOnlyForFloats) {
  g_.Const("a", {2, 2}, "", GRT_INT32).Const("b", {2, 2}, "", GRT_INT32);
  g_.Op("m32", "MatMul", {"a", "b"}, "", GRT_INT32);
  g_.Const("fa", {2, 2}).Const("fb", {2, 2}).Op("mf", "MatMul", {"fa", "fb"});
  g_.Const("ha", {2, 2}, "", GRT_FLOAT16).Const("hb", {2, 2}, "", GRT_FLOAT16);
  g_.Op("mh", "MatMul", {"ha", "hb"}, "", GRT_FLOAT16);
  EXPECT_EQ(Mask("m32"), kCpu);  // no int32 GEMM on GPUs in TensorFlow
  EXPECT_EQ(Mask("mf"), kCpu | kGpu);
  EXPECT_EQ(Mask("mh"), kCpu | kGpu);
}

TEST_F(Support, Int32ElementwiseOnGpuRunsInHostMemory) {
  g_.Const("a", {3}, "", GRT_INT32).Const("b", {3}, "", GRT_INT32);
  g_.Op("add", "Add", {"a", "b"}, "", GRT_INT32);
  g_.Const("fa", {3}).Const("fb", {3}).Op("fadd", "Add", {"fa", "fb"});
  ASSERT_EQ(Mask("add"), kCpu | kGpu);
  const grt_kernel_def* k = Kernel(GRT_DEVICE_GPU);
  for (int i = 0; i < 2; i++) EXPECT_TRUE(grt_kernel_input_in_host_memory(k, N("add"), i));
  EXPECT_TRUE(grt_kernel_output_in_host_memory(k, N("add"), 0));
  ASSERT_EQ(Mask("fadd"), kCpu | kGpu);
  k = Kernel(GRT_DEVICE_GPU);
  EXPECT_FALSE(grt_kernel_input_in_host_memory(k, N("fadd"), 0));
  EXPECT_FALSE(grt_kernel_output_in_host_memory(k, N("fadd"), 0));
  // The const feeding an int32 GPU op is itself a host-memory const there.
  ASSERT_EQ(Mask("a"), kCpu | kGpu);
  EXPECT_TRUE(grt_kernel_output_in_host_memory(Kernel(GRT_DEVICE_GPU), N("a"), 0));
}

TEST_F(Support, PlaceholderAndNoOpEverywhere) {
  g_.Placeholder("p", "", GRT_INT32).Node("noop", "NoOp");
  EXPECT_EQ(Mask("p"), kCpu | kGpu);
  EXPECT_EQ(Mask("noop"), kCpu | kGpu);
}

TEST_F(Support, ArgMaxAndSparseXentOnGpuForFloats) {
  g_.Const("x", {4, 3}).Const("dim", {}, "", GRT_INT32);
  g_.Node("am", "ArgMax", {"x", "dim"}).T(GRT_FLOAT32);
  g_.Const("xi", {4, 3}, "", GRT_INT32);
  g_.Node("ami", "ArgMax", {"xi", "dim"}).T(GRT_INT32);
  g_.Const("labels", {4}, "", GRT_INT64);
  g_.Node("xent", "SparseSoftmaxCrossEntropyWithLogits", {"x", "labels"}).T(GRT_FLOAT32);
  g_.Const("x64", {4, 3}, "", GRT_FLOAT64);
  g_.Node("xent64", "SparseSoftmaxCrossEntropyWithLogits", {"x64", "labels"}).T(GRT_FLOAT64);
  ASSERT_EQ(Mask("am"), kCpu | kGpu);
  EXPECT_TRUE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("am"), 1));  // dimension
  EXPECT_FALSE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("am"), 0));
  EXPECT_EQ(Mask("ami"), kCpu);
  EXPECT_EQ(Mask("xent"), kCpu | kGpu);
  EXPECT_EQ(Mask("xent64"), kCpu | kGpu);  // float64 too, as TensorFlow registers it
}

TEST_F(Support, ShapeOpsKeepTheirOutputOnTheHost) {
  g_.Const("x", {4, 3}).Node("shape", "Shape", {"x"}).T(GRT_FLOAT32);
  g_.Node("size", "Size", {"x"}).T(GRT_FLOAT32).Node("rank", "Rank", {"x"}).T(GRT_FLOAT32);
  for (const char* op : {"shape", "size", "rank"}) {
    ASSERT_EQ(Mask(op), kCpu | kGpu) << op;
    EXPECT_TRUE(grt_kernel_output_in_host_memory(Kernel(GRT_DEVICE_GPU), N(op), 0)) << op;
    EXPECT_FALSE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N(op), 0)) << op;
  }
}

TEST_F(Support, VariablesAndApplyOps) {
  g_.Var("v", {2}, "", GRT_FLOAT32).Var("vi", {2}, "", GRT_INT32);
  g_.Const("lr", {}).Const("grad", {2});
  g_.Op("apply", "ApplyGradientDescent", {"v", "lr", "grad"});
  g_.Const("init", {2}, "", GRT_INT32).Op("assign_i", "Assign", {"vi", "init"}, "", GRT_INT32);
  EXPECT_EQ(Mask("v"), kCpu | kGpu);
  EXPECT_EQ(Mask("vi"), kCpu);  // TensorFlow has no int32 variables on GPUs
  EXPECT_EQ(Mask("apply"), kCpu | kGpu);
  EXPECT_EQ(Mask("assign_i"), kCpu);
}

TEST_F(Support, ListArgumentsMapToHostMemoryAsAWhole) {
  g_.Const("a", {2}, "", GRT_INT32).Const("b", {2}, "", GRT_INT32).Const("c", {2}, "", GRT_INT32);
  g_.AddN("sum", {"a", "b", "c"}).T(GRT_INT32);
  ASSERT_EQ(Mask("sum"), kCpu | kGpu);
  for (int i = 0; i < 3; i++)
    EXPECT_TRUE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("sum"), i)) << i;
  EXPECT_FALSE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("sum"), 3));
  // ConcatV2: the values stay on the device, only the axis is on the host.
  g_.Const("f", {2}).Const("h", {2}).Const("axis", {}, "", GRT_INT32);
  g_.Node("cat", "ConcatV2", {"f", "h", "axis"}).T(GRT_FLOAT32).Int("N", 2);
  ASSERT_EQ(Mask("cat"), kCpu | kGpu);
  EXPECT_FALSE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("cat"), 0));
  EXPECT_FALSE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("cat"), 1));
  EXPECT_TRUE(grt_kernel_input_in_host_memory(Kernel(GRT_DEVICE_GPU), N("cat"), 2));
}

TEST(KernelRegistryTest, DescribeListsEveryRow) {
  char buf[4096];
  size_t need = grt_kernel_describe_op("MatMul", buf, sizeof buf);
  ASSERT_LT(need, sizeof buf);
  std::string text = buf;
  EXPECT_NE(text.find("device='CPU'"), std::string::npos) << text;
  EXPECT_NE(text.find("device='GPU'; T in [float16, bfloat16, float32, float64]"),
            std::string::npos)
      << text;
  grt_kernel_describe_op("NoSuchOp", buf, sizeof buf);
  EXPECT_STREQ(buf, "  <no registered kernels>\n");
  // Truncation reports the full length, like snprintf.
  char small[8];
  EXPECT_EQ(grt_kernel_describe_op("MatMul", small, sizeof small), need);
  EXPECT_EQ(strlen(small), sizeof small - 1);
}

TEST(KernelRegistryTest, FindByOpName) {
  const grt_kernel_def* const* rows;
  int32_t n = grt_kernel_find_op("Add", &rows);
  ASSERT_EQ(n, 3);  // CPU, GPU device memory, GPU int32 in host memory
  for (int32_t k = 0; k < n; k++) {
    EXPECT_STREQ(rows[k]->op, "Add");
    EXPECT_EQ(grt_kernel_at(rows[k]->index), rows[k]);
  }
  n = grt_kernel_find_op("NoSuchOp", &rows);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(rows, nullptr);
  EXPECT_EQ(grt_kernel_at(-1), nullptr);
  EXPECT_EQ(grt_kernel_at(grt_kernel_count()), nullptr);
}

}  // namespace
