// What the CUDA kernels keep in a node's state across runs
// (backends/cuda/kept_tensor.h): a kept tensor is found only under the key
// it was stored with (the source's address, dtype and shape), the state
// holds one reference of its own (the kernel's output or temporary may be
// dropped while the state keeps the tensor), a new store replaces and
// releases the old tensor, freeing the state releases the last one, and
// every store counts as an upload. The GPU suite checks the kernels that
// use it (a second run of a Const or a Const-filter convolution uploads
// nothing); this runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "backends/cuda/kept_tensor.h"
#include "grt/types.h"
}

namespace {

int g_released;

void Release(void* data, size_t, void*) {
  g_released++;
  delete[] static_cast<float*>(data);
}

grt_tensor* Wrapped(int64_t n) {
  grt_tensor* t = nullptr;
  int64_t dims[] = {n};
  float* data = new float[n];
  grt_status* st = grt_tensor_wrap(data, GRT_FLOAT32, 1, dims, Release, nullptr, &t);
  EXPECT_EQ(st, nullptr);
  return t;
}

grt_shape Shape1(int64_t n) {
  grt_shape s = {};
  s.rank = 1;
  s.dims[0] = n;
  return s;
}

TEST(KeptTensor, FoundOnlyUnderItsKeyAndHeldByTheState) {
  g_released = 0;
  void* state = nullptr;
  ASSERT_EQ(grt_cuda_kept_new(nullptr, &state), nullptr);
  auto* k = static_cast<grt_cuda_kept*>(state);
  int src_a = 0, src_b = 0;
  grt_shape s4 = Shape1(4), s5 = Shape1(5);
  EXPECT_EQ(grt_cuda_kept_find(k, &src_a, GRT_FLOAT32, &s4), nullptr) << "nothing kept yet";

  int64_t uploads = grt_cuda_kept_uploads();
  grt_tensor* t = Wrapped(4);
  grt_cuda_kept_store(k, t, &src_a, GRT_FLOAT32, &s4);
  grt_tensor_free(t);  // the kernel's reference goes with its run
  EXPECT_EQ(g_released, 0) << "the state holds its own reference";
  EXPECT_EQ(grt_cuda_kept_uploads(), uploads + 1);
  EXPECT_EQ(k->uploads, 1);

  EXPECT_EQ(grt_cuda_kept_find(k, &src_a, GRT_FLOAT32, &s4), t);
  EXPECT_EQ(grt_cuda_kept_find(k, &src_b, GRT_FLOAT32, &s4), nullptr) << "another source";
  EXPECT_EQ(grt_cuda_kept_find(k, &src_a, GRT_FLOAT64, &s4), nullptr) << "another dtype";
  EXPECT_EQ(grt_cuda_kept_find(k, &src_a, GRT_FLOAT32, &s5), nullptr) << "another shape";
  grt_shape r2 = {};
  r2.rank = 2;
  r2.dims[0] = 4;
  r2.dims[1] = 1;
  EXPECT_EQ(grt_cuda_kept_find(k, &src_a, GRT_FLOAT32, &r2), nullptr) << "another rank";

  // A new source replaces the kept tensor and releases the old one.
  grt_tensor* u = Wrapped(5);
  grt_cuda_kept_store(k, u, &src_b, GRT_FLOAT32, &s5);
  grt_tensor_free(u);
  EXPECT_EQ(g_released, 1);
  EXPECT_EQ(grt_cuda_kept_find(k, &src_a, GRT_FLOAT32, &s4), nullptr);
  EXPECT_EQ(grt_cuda_kept_find(k, &src_b, GRT_FLOAT32, &s5), u);
  EXPECT_EQ(k->uploads, 2);

  grt_cuda_kept_free(state);
  EXPECT_EQ(g_released, 2) << "the state's reference goes with the state";
  grt_cuda_kept_free(nullptr);  // a no-op
}

}  // namespace
