// RandomUniform, RandomStandardNormal and TruncatedNormal on the GPU with
// the CPU kernels' streams (backends/cpu/random.c): each node owns a Philox
// stream keyed by (seed, seed2); a run of n outputs reserves n * 256 blocks;
// group g of outputs (4 floats or 2 doubles) takes block g, or for the
// truncated normal its own window of 256 blocks per output. One thread per
// group. Uniform samples are bit-identical to the CPU's; normal ones may
// differ by an ulp where the device's logf/sinf/cosf do (and a truncated
// sample that lands within an ulp of +-2 could then be kept on one side and
// rejected on the other).
//
// UNVERIFIED on a GPU. The Philox arithmetic is shared with a host test
// (philox.cuh, tests/cuda/philox_test.cc).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cuda_common.cuh"
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

template <typename T>
__global__ void FillKernel(int dist, Philox base, int64_t n, T* out) {
  const int group = sizeof(T) == 4 ? 4 : 2;
  const int64_t groups = (n + group - 1) / group;
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g < groups;
       g += (int64_t)gridDim.x * blockDim.x) {
    Philox gen = base;
    T v[4];
    uint32_t s[4];
    if (dist != kTruncated) {
      grt_philox_hd::Skip(&gen, (uint64_t)g);
      grt_philox_hd::Next(&gen, s);
      if (sizeof(T) == 4) {
        float* f = reinterpret_cast<float*>(v);
        if (dist == kUniform) {
          for (int i = 0; i < 4; i++) f[i] = grt_philox_hd::ToFloat(s[i]);
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
        int need = sizeof(T) == 4 ? 2 : 4;
        for (int k = 0; k < need; k++) {
          if (used == 4) {
            grt_philox_hd::Next(&gen, s);
            used = 0;
          }
          x[k] = s[used++];
        }
        T pair[2];
        if (sizeof(T) == 4) {
          float f[2];
          grt_philox_hd::BoxMullerFloat(x[0], x[1], &f[0], &f[1]);
          pair[0] = (T)f[0];
          pair[1] = (T)f[1];
        } else {
          double d[2];
          grt_philox_hd::BoxMullerDouble(x[0], x[1], x[2], x[3], &d[0], &d[1]);
          pair[0] = (T)d[0];
          pair[1] = (T)d[1];
        }
        for (int i = 0; i < 2 && got < group; i++)
          if (fabs((double)pair[i]) < 2.0) v[got++] = pair[i];
      }
    }
    for (int i = 0; i < group && g * group + i < n; i++) out[g * group + i] = v[i];
  }
}

grt_status* Compute(grt_kernel_ctx* ctx, int dist, const char* name) {
  RandomState* state = static_cast<RandomState*>(ctx->state);
  if (!state) return grt_status_new(GRT_INTERNAL, "random generator has no state");
  grt_dtype dt;
  grt_status* st = grt_kernel_attr_type(ctx, "dtype", &dt);
  if (st) return st;
  if (dt != GRT_FLOAT32 && dt != GRT_FLOAT64)
    return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not handle %s yet", name,
                          grt_dtype_name(dt));
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
  int group = dt == GRT_FLOAT32 ? 4 : 2;
  int64_t groups = (n + group - 1) / group;
  cudaStream_t cs = grt_cuda_stream(ctx->stream);
  if (dt == GRT_FLOAT32)
    FillKernel<float>
        <<<Blocks(groups), kThreads, 0, cs>>>(dist, base, n, (float*)grt_tensor_data(out));
  else
    FillKernel<double>
        <<<Blocks(groups), kThreads, 0, cs>>>(dist, base, n, (double*)grt_tensor_data(out));
  return grt_cuda_launch_error(name);
}

grt_status* UniformCompute(grt_kernel_ctx* c) { return Compute(c, kUniform, "RandomUniform"); }
grt_status* NormalCompute(grt_kernel_ctx* c) { return Compute(c, kNormal, "RandomStandardNormal"); }
grt_status* TruncatedCompute(grt_kernel_ctx* c) {
  return Compute(c, kTruncated, "TruncatedNormal");
}

const grt_op_kernel kKernels[] = {
    {"RandomUniform", UniformCompute, Create, Free, 0},
    {"RandomStandardNormal", NormalCompute, Create, Free, 0},
    {"TruncatedNormal", TruncatedCompute, Create, Free, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_random_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
