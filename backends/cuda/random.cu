// RandomUniform, RandomStandardNormal and TruncatedNormal on the GPU with
// the CPU kernels' streams (backends/cpu/random.c): each node owns a Philox
// stream keyed by (seed, seed2); a run of n outputs reserves n * 256 blocks;
// group g of outputs (4 floats, float16s or bfloat16s, or 2 doubles) takes
// block g, or for the truncated normal its own window of 256 blocks per
// output. One thread per group. Uniform samples are bit-identical to the CPU's; normal ones may
// differ by an ulp where the device's logf/sinf/cosf do (and a truncated
// sample that lands within an ulp of +-2 could then be kept on one side and
// rejected on the other).
//
// Checked on an H200 by the GPU suite. The Philox arithmetic is shared with a host test
// (philox.cuh, tests/cuda/philox_test.cc).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <type_traits>

#include "cuda_common.cuh"
#include "dtype_list.cuh"
#include "kernel_util.cuh"
#include "philox.cuh"

namespace grt_cuda {
namespace {

using grt_philox_hd::Philox;

constexpr uint64_t kReservedPerOutput = 256;

enum Dist { kUniform, kNormal, kTruncated };

// The seeds are attrs, which only a kernel context can read, so the stream
// is keyed on the first run.
struct RandomState {
  pthread_mutex_t mu;
  bool ready;
  Philox gen;
};

grt_status* Create(const grt_node* node, void** out) {
  RandomState* s = static_cast<RandomState*>(calloc(1, sizeof(RandomState)));
  if (!s)
    return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory creating a random generator");
  pthread_mutex_init(&s->mu, nullptr);
  *out = s;
  return nullptr;
}

void Free(void* state) {
  RandomState* s = static_cast<RandomState*>(state);
  if (!s) return;
  pthread_mutex_destroy(&s->mu);
  free(s);
}

int64_t IntAttr(grt_kernel_ctx* ctx, const char* name) {
  int64_t v = 0;
  grt_status* st = grt_kernel_attr_int(ctx, name, &v);
  if (st) {
    grt_status_free(st);
    return 0;
  }
  return v;
}

void OsSeeds(uint64_t s[2]) {
  if (getrandom(s, 2 * sizeof s[0], 0) == (ssize_t)(2 * sizeof s[0])) return;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  s[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec;
  s[1] = (uint64_t)ts.tv_nsec * 0xBF58476D1CE4E5B9ull;
}

// A uniform float sample for storage type S: float16 (bfloat16) takes 10
// (7) random mantissa bits, exactly bits / 2^10 (2^7), as the CPU's;
// float32 the CPU's 23-bit conversion.
template <typename S>
__device__ inline float UniformFloat(uint32_t x) {
  if constexpr (std::is_same<S, __half>::value)
    return (float)(x & 0x3ffu) * (1.0f / 1024.0f);
  else if constexpr (std::is_same<S, __nv_bfloat16>::value)
    return (float)(x & 0x7fu) * (1.0f / 128.0f);
  else
    return grt_philox_hd::ToFloat(x);
}

// S in memory, C the type samples are drawn in: float16 and bfloat16 draw
// float32 samples in groups of 4, rounded to nearest even (the CPU's).
template <typename S, typename C>
__global__ void FillKernel(int dist, Philox base, int64_t n, S* out) {
  const int group = sizeof(C) == 4 ? 4 : 2;
  const int64_t groups = (n + group - 1) / group;
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g < groups;
       g += (int64_t)gridDim.x * blockDim.x) {
    Philox gen = base;
    C v[4];
    uint32_t s[4];
    if (dist != kTruncated) {
      grt_philox_hd::Skip(&gen, (uint64_t)g);
      grt_philox_hd::Next(&gen, s);
      if (sizeof(C) == 4) {
        float* f = reinterpret_cast<float*>(v);
        if (dist == kUniform) {
          for (int i = 0; i < 4; i++) f[i] = UniformFloat<S>(s[i]);
        } else {
          grt_philox_hd::BoxMullerFloat(s[0], s[1], &f[0], &f[1]);
          grt_philox_hd::BoxMullerFloat(s[2], s[3], &f[2], &f[3]);
        }
      } else {
        double* d = reinterpret_cast<double*>(v);
        if (dist == kUniform) {
          for (int i = 0; i < 2; i++) d[i] = grt_philox_hd::ToDouble(s[2 * i], s[2 * i + 1]);
        } else {
          grt_philox_hd::BoxMullerDouble(s[0], s[1], s[2], s[3], &d[0], &d[1]);
        }
      }
    } else {
      // Its own window; words one at a time from whole blocks.
      grt_philox_hd::Skip(&gen, (uint64_t)g * (uint64_t)group * kReservedPerOutput / 4);
      int used = 4, got = 0;
      while (got < group) {
        uint32_t x[4];
        int need = sizeof(C) == 4 ? 2 : 4;
        for (int k = 0; k < need; k++) {
          if (used == 4) {
            grt_philox_hd::Next(&gen, s);
            used = 0;
          }
          x[k] = s[used++];
        }
        C pair[2];
        if (sizeof(C) == 4) {
          float f[2];
          grt_philox_hd::BoxMullerFloat(x[0], x[1], &f[0], &f[1]);
          pair[0] = (C)f[0];
          pair[1] = (C)f[1];
        } else {
          double d[2];
          grt_philox_hd::BoxMullerDouble(x[0], x[1], x[2], x[3], &d[0], &d[1]);
          pair[0] = (C)d[0];
          pair[1] = (C)d[1];
        }
        for (int i = 0; i < 2 && got < group; i++)
          if (fabs((double)pair[i]) < 2.0) v[got++] = pair[i];
      }
    }
    for (int i = 0; i < group && g * group + i < n; i++) Narrow(v[i], &out[g * group + i]);
  }
}

template <class T>
grt_status* Compute(grt_kernel_ctx* ctx, int dist, const char* name) {
  RandomState* state = static_cast<RandomState*>(ctx->state);
  if (!state) return grt_status_new(GRT_INTERNAL, "random generator has no state");
  grt_dtype dt;
  grt_status* st = grt_kernel_attr_type(ctx, "dtype", &dt);
  if (st) return st;
  if (!(T::kMask & (1u << dt))) return NoKernel(name, dt);
  const grt_tensor* shape = ctx->inputs[0];  // host memory
  grt_dtype it = grt_tensor_dtype(shape);
  int64_t rank = grt_tensor_num_elements(shape);
  if (grt_tensor_rank(shape) != 1 || rank > GRT_MAX_RANK || (it != GRT_INT32 && it != GRT_INT64))
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "shape must be a vector of {int32,int64} of at most %d", GRT_MAX_RANK);
  grt_shape s = {(int32_t)rank, {0}};
  for (int64_t i = 0; i < rank; i++) {
    s.dims[i] = it == GRT_INT32 ? ((const int32_t*)grt_tensor_data(shape))[i]
                                : ((const int64_t*)grt_tensor_data(shape))[i];
    if (s.dims[i] < 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "shape has a negative dimension");
  }
  grt_tensor* out;
  st = grt_kernel_alloc_output(ctx, 0, dt, &s, &out);
  if (st) return st;
  int64_t n = NumElements(s);
  pthread_mutex_lock(&state->mu);
  if (!state->ready) {
    uint64_t seeds[2] = {(uint64_t)IntAttr(ctx, "seed"), (uint64_t)IntAttr(ctx, "seed2")};
    if (seeds[0] == 0 && seeds[1] == 0) OsSeeds(seeds);
    state->gen = grt_philox_hd::Make(seeds[0], seeds[1]);
    state->ready = true;
  }
  Philox base = state->gen;
  grt_philox_hd::Skip(&state->gen, (uint64_t)n * kReservedPerOutput);
  pthread_mutex_unlock(&state->mu);
  if (n == 0) return nullptr;
  int group = dt == GRT_FLOAT64 ? 2 : 4;
  int64_t groups = (n + group - 1) / group;
  cudaStream_t cs = grt_cuda_stream(ctx->stream);
  T::Visit(dt, [&](auto e) {
    using S = typename decltype(e)::Store;
    FillKernel<S, typename decltype(e)::Math>
        <<<Blocks(groups), kThreads, 0, cs>>>(dist, base, n, (S*)grt_tensor_data(out));
  });
  return grt_cuda_launch_error(name);
}

template <class T, class U>
grt_status* UniformCompute(grt_kernel_ctx* c) {
  return Compute<T>(c, kUniform, "RandomUniform");
}
template <class T, class U>
grt_status* NormalCompute(grt_kernel_ctx* c) {
  return Compute<T>(c, kNormal, "RandomStandardNormal");
}
template <class T, class U>
grt_status* TruncatedCompute(grt_kernel_ctx* c) {
  return Compute<T>(c, kTruncated, "TruncatedNormal");
}

// Each row makes a kernel (with the generator's state) and its declaration
// (dtype_list.cuh): the output's dtype attr; the shape is read as int32 or
// int64 on the host.
#define RANDOM_KERNEL_ROW(op, fn, attr1, L1, attr2, L2) {op, fn<L1, L2>, Create, Free, 0},
#define TYPED_KERNELS(X)                                                       \
  X("RandomUniform", UniformCompute, "dtype", Floats, nullptr, NoDtypes)       \
  X("RandomStandardNormal", NormalCompute, "dtype", Floats, nullptr, NoDtypes) \
  X("TruncatedNormal", TruncatedCompute, "dtype", Floats, nullptr, NoDtypes)

const grt_op_kernel kKernels[] = {TYPED_KERNELS(RANDOM_KERNEL_ROW)};

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_random_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_random_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
