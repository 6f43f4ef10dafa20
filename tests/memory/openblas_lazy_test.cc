// backends/cpu/openblas.h: the CPU backend does not link OpenBLAS; the first
// GEMM opens it, by soname, and later ones use that copy. This test's binary
// links the backend but not OpenBLAS, so until a GEMM runs the library must
// not be in the process at all.
#include <dlfcn.h>
#include <gtest/gtest.h>

extern "C" {
#include "backends/cpu/blas_buffers.h"
#include "backends/cpu/matmul_gemm.h"
#include "backends/cpu/openblas.h"
}

namespace {

bool OpenblasMapped() {
  void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

TEST(OpenblasLazy, FirstGemmOpensOpenblas) {
  ASSERT_FALSE(OpenblasMapped()) << "OpenBLAS was loaded before any GEMM";
  // float64 always runs on OpenBLAS (matmul_gemm.c). 2x3 times 3x2.
  const double a[6] = {1, 2, 3, 4, 5, 6};
  const double b[6] = {7, 8, 9, 10, 11, 12};
  double c[4] = {-1, -1, -1, -1};
  grt_gemm_plan p = {};
  p.m = 2, p.n = 2, p.k = 3, p.batch = 1;
  grt_status* s = grt_gemm_run(&p, GRT_FLOAT64, a, b, c, nullptr);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
  EXPECT_TRUE(OpenblasMapped());
  // Opened once: a second open succeeds at once and the table is filled.
  s = grt_openblas_open("the test");
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_NE(grt_openblas.sgemm, nullptr);
  EXPECT_NE(grt_openblas.memory_alloc, nullptr);
  // The buffers gate still works on the opened copy.
  s = grt_blas_buffers_enter();
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  grt_blas_buffers_leave();
}

}  // namespace
