// grt/op_reference.h reads the op registry and the support rows out as they
// are: every op once with its declared signature, and every support row with
// its dtypes and host-memory arguments (the int32-on-host rows included,
// which have no string of their own).
#include "grt/op_reference.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

extern "C" {
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
}

TEST(OpReference, EveryOpOnceWithItsDeclaredSignature) {
  ASSERT_EQ(grt_op_registry_status(), nullptr);
  int32_t n = grt_op_info_count();
  ASSERT_EQ(n, grt_op_count());
  ASSERT_GT(n, 100);
  std::set<std::string> names;
  for (int32_t i = 0; i < n; i++) {
    grt_op_info info;
    ASSERT_TRUE(grt_op_info_at(i, &info)) << i;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_NE(info.family[0], '\0') << info.name;
    grt_op_info again;
    ASSERT_TRUE(grt_op_info_find(info.name, &again));
    EXPECT_STREQ(again.inputs, info.inputs);
    EXPECT_EQ(info.stateful, (grt_op_at(i)->flags & GRT_OP_STATEFUL) != 0) << info.name;
  }
  grt_op_info out = {};
  EXPECT_FALSE(grt_op_info_at(n, &out));
  EXPECT_FALSE(grt_op_info_at(-1, &out));
  EXPECT_FALSE(grt_op_info_find("matmul", &out)); /* exact case */
  EXPECT_FALSE(grt_op_info_find(nullptr, &out));
  EXPECT_EQ(out.name, nullptr);
}

TEST(OpReference, MatMulAndVariableV2) {
  grt_op_info m;
  ASSERT_TRUE(grt_op_info_find("MatMul", &m));
  EXPECT_STREQ(m.family, "math");
  EXPECT_STREQ(m.inputs, "a: T, b: T");
  EXPECT_STREQ(m.outputs, "product: T");
  EXPECT_NE(std::string(m.attrs).find("transpose_a: bool = false"), std::string::npos);
  EXPECT_FALSE(m.stateful);
  EXPECT_TRUE(m.differentiable);
  grt_op_info v;
  ASSERT_TRUE(grt_op_info_find("VariableV2", &v));
  EXPECT_STREQ(v.inputs, "");
  EXPECT_STREQ(v.outputs, "ref: Ref(dtype)");
  EXPECT_TRUE(v.stateful);
}

TEST(OpReference, SupportRowsAsTheRegistryHasThem) {
  int32_t total = 0;
  for (int32_t i = 0; i < grt_op_count(); i++) {
    const char* op = grt_op_at(i)->name;
    int32_t n = grt_op_kernel_info_count(op);
    EXPECT_EQ(n, grt_kernel_find_op(op, nullptr)) << op;
    grt_op_kernel_info k;
    for (int32_t r = 0; r < n; r++) ASSERT_TRUE(grt_op_kernel_info_at(op, r, &k)) << op;
    EXPECT_FALSE(grt_op_kernel_info_at(op, n, &k)) << op;
    total += n;
  }
  EXPECT_EQ(total, grt_kernel_count());
  EXPECT_EQ(grt_op_kernel_info_count("NoSuchOp"), 0);
  EXPECT_EQ(grt_op_kernel_info_count(nullptr), 0);

  // Reshape on a GPU: the shape input in host memory, and the int32 row
  // with every argument there.
  std::set<std::string> gpu;
  grt_op_kernel_info k;
  for (int32_t r = 0; grt_op_kernel_info_at("Reshape", r, &k); r++)
    if (std::string(k.device) == "GPU")
      gpu.insert(std::string(k.constraints) + " | " + k.host_memory);
  EXPECT_TRUE(gpu.count("T in [int32]; Tshape in [int32, int64] | tensor, shape, output"))
      << *gpu.begin();
  bool shape_on_host = false;
  for (const auto& row : gpu)
    shape_on_host |= row.size() > 8 && row.substr(row.size() - 8) == " | shape";
  EXPECT_TRUE(shape_on_host);
}
