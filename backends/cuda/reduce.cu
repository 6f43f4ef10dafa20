// Reductions on the GPU: Sum, Mean, Prod, Max, Min over any set of axes,
// for float16, bfloat16, float32, float64 and int64 (int32 is the
// HostMemory registration, reduced on the host). The passes come from
// reduce_plan.h; each is one launch:
// - a row pass (C == 1): a warp per row for rows of at most kWarpRowMax
//   elements, else a block per row; each thread folds a strided slice of
//   the row, then a tree of warp shuffles (and one of the warps' results,
//   through shared memory, for a block) gives the row's value;
// - a column pass (C > 1): a block per tile of 32 columns, 8 threads down
//   each column folding every 8th row of the chunk, the 8 partial results
//   combined in shared memory.
// A long reduction whose output is small is two passes (chunks, then their
// partial results), never atomics: the order of every combination is fixed
// by the shape, so results are bit-identical between runs. float16 and
// bfloat16 accumulate in float32, float32 in float32 (as TensorFlow does),
// int64 in int64 (Sum and Prod wrap, as the CPU's); partial results between
// passes are kept in the accumulator type. Max and Min return NaN when the
// reduced values hold one, Mean of nothing is NaN, as on the CPU.
//
// Checked on an H200 by the GPU suite's Reductions cases (tests/gpu/runs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

#include "cuda_common.cuh"
#include "kernel_util.cuh"
#include "reduce_plan.h"

namespace grt_cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kColTile = GRT_CUDA_RED_COL_TILE;  // columns of a column pass's block
constexpr int kRowLanes = kThreads / kColTile;   // threads down each column
constexpr int64_t kWarpRowMax = 512;             // longer rows get a block each

// ---- accumulator arithmetic ---------------------------------------------

template <typename A>
__device__ inline bool IsNan(A) {
  return false;
}
__device__ inline bool IsNan(float v) { return isnan(v); }
__device__ inline bool IsNan(double v) { return isnan(v); }

// Integer Sum and Prod wrap through the unsigned type (defined behaviour,
// the CPU's result).
template <typename A>
__device__ inline A Add(A a, A v) {
  return a + v;
}
template <>
__device__ inline long long Add(long long a, long long v) {
  return (long long)((unsigned long long)a + (unsigned long long)v);
}
template <typename A>
__device__ inline A Mul(A a, A v) {
  return a * v;
}
template <>
__device__ inline long long Mul(long long a, long long v) {
  return (long long)((unsigned long long)a * (unsigned long long)v);
}

template <typename A>
__device__ inline A Lowest() {
  return -INFINITY;
}
template <>
__device__ inline long long Lowest<long long>() {
  return LLONG_MIN;
}
template <typename A>
__device__ inline A Highest() {
  return INFINITY;
}
template <>
__device__ inline long long Highest<long long>() {
  return LLONG_MAX;
}

struct SumOp {
  template <typename A>
  __device__ static A Init() {
    return A(0);
  }
  template <typename A>
  __device__ static A Apply(A a, A v) {
    return Add(a, v);
  }
};
struct ProdOp {
  template <typename A>
  __device__ static A Init() {
    return A(1);
  }
  template <typename A>
  __device__ static A Apply(A a, A v) {
    return Mul(a, v);
  }
};
struct MaxOp {
  template <typename A>
  __device__ static A Init() {
    return Lowest<A>();
  }
  template <typename A>
  __device__ static A Apply(A a, A v) {
    return (v > a || IsNan(v)) ? v : a;
  }
};
struct MinOp {
  template <typename A>
  __device__ static A Init() {
    return Highest<A>();
  }
  template <typename A>
  __device__ static A Apply(A a, A v) {
    return (v < a || IsNan(v)) ? v : a;
  }
};

// Loads widen float16/bfloat16 to float32; stores round back to nearest.
template <typename T>
__device__ inline T Widen(T v) {
  return v;
}
__device__ inline float Widen(__half v) { return __half2float(v); }
__device__ inline float Widen(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename Out, typename A>
__device__ inline Out Narrow(A v) {
  return (Out)v;
}
template <>
__device__ inline __half Narrow<__half, float>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 Narrow<__nv_bfloat16, float>(float v) {
  return __float2bfloat16_rn(v);
}

// Mean's last pass divides once, in the accumulator type (divisor 0: none).
template <typename A>
__device__ inline A Finish(A v, int64_t divisor) {
  return divisor ? v / A(divisor) : v;
}

// A pass on the device: its [A, B, C] input, chunks of L, S chunks.
struct Pass {
  int64_t A, B, C, L, S;
};

// ---- the kernels ----------------------------------------------------------

// The value of lane 0 of a warp folded with every other lane's, in a fixed
// order.
template <typename A, typename Op>
__device__ inline A WarpTree(A v) {
  for (int off = kWarp / 2; off > 0; off /= 2)
    v = Op::Apply(v, (A)__shfl_down_sync(0xffffffffu, v, off));
  return v;
}

// Rows of a chunked [A, B] (C == 1): G threads per row, G a warp or the
// block. The loop's bounds are the block's, so every thread reaches the
// shuffles and barriers.
template <typename In, typename Out, typename A, typename Op, int G>
__global__ void RowKernel(Pass p, int64_t divisor, const In* x, Out* y) {
  constexpr int kRowsPerBlock = kThreads / G;
  __shared__ A warp_acc[kThreads / kWarp];
  const int lane = threadIdx.x % G, group = threadIdx.x / G;
  const int64_t rows = p.A * p.S;
  for (int64_t first = (int64_t)blockIdx.x * kRowsPerBlock; first < rows;
       first += (int64_t)gridDim.x * kRowsPerBlock) {
    const int64_t r = first + group;
    A acc = Op::template Init<A>();
    if (r < rows) {
      const int64_t a = r / p.S, b0 = (r % p.S) * p.L;
      const int64_t b1 = b0 + p.L < p.B ? b0 + p.L : p.B;
      const In* row = x + a * p.B;
#pragma unroll 4
      for (int64_t b = b0 + lane; b < b1; b += G) acc = Op::Apply(acc, (A)Widen(row[b]));
    }
    acc = WarpTree<A, Op>(acc);
    if (G > kWarp) {
      const int warp = threadIdx.x / kWarp, wl = threadIdx.x % kWarp;
      if (wl == 0) warp_acc[warp] = acc;
      __syncthreads();
      if (warp == 0) {
        acc = wl < G / kWarp ? warp_acc[wl] : Op::template Init<A>();
        acc = WarpTree<A, Op>(acc);
      }
      __syncthreads();  // warp_acc is written again by the next row
    }
    if (r < rows && lane == 0) y[r] = Narrow<Out>(Finish(acc, divisor));
  }
}

// Column tiles of a chunked [A, B, C] (C > 1): output (a, s, c) folds rows
// [s*L, min(B, (s+1)*L)) of column c; thread (tx, ty) every kRowLanes-th.
template <typename In, typename Out, typename A, typename Op>
__global__ void ColumnKernel(Pass p, int64_t divisor, const In* x, Out* y) {
  __shared__ A part[kRowLanes][kColTile];
  const int tx = threadIdx.x % kColTile, ty = threadIdx.x / kColTile;
  const int64_t col_tiles = (p.C + kColTile - 1) / kColTile;
  const int64_t tiles = p.A * p.S * col_tiles;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t as = t / col_tiles, c = (t % col_tiles) * kColTile + tx;
    const int64_t a = as / p.S, b0 = (as % p.S) * p.L;
    const int64_t b1 = b0 + p.L < p.B ? b0 + p.L : p.B;
    A acc = Op::template Init<A>();
    if (c < p.C) {
      const In* col = x + a * p.B * p.C + c;
#pragma unroll 4
      for (int64_t b = b0 + ty; b < b1; b += kRowLanes)
        acc = Op::Apply(acc, (A)Widen(col[b * p.C]));
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && c < p.C) {
      for (int k = 1; k < kRowLanes; k++) acc = Op::Apply(acc, part[k][tx]);
      y[as * p.C + c] = Narrow<Out>(Finish(acc, divisor));
    }
    __syncthreads();  // part is written again by the next tile
  }
}

// Nothing reduced into each output: the op's identity, NaN for Mean.
template <typename Out, typename A, typename Op, bool kMean>
__global__ void FillKernel(int64_t n, Out* y) {
  const A v = kMean ? A(NAN) : Op::template Init<A>();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = Narrow<Out>(v);
}

// ---- running a plan -------------------------------------------------------

unsigned GridFor(int64_t units) {
  if (units < 1) units = 1;
  return (unsigned)(units > 65535 * 16 ? 65535 * 16 : units);
}

template <typename In, typename Out, typename A, typename Op>
void LaunchPass(const grt_cuda_red_pass& gp, int64_t divisor, const void* x, void* y,
                cudaStream_t s) {
  Pass p = {gp.A, gp.B, gp.C, gp.L, (gp.B + gp.L - 1) / gp.L};
  const In* in = static_cast<const In*>(x);
  Out* out = static_cast<Out*>(y);
  if (p.C > 1) {
    int64_t tiles = p.A * p.S * ((p.C + kColTile - 1) / kColTile);
    ColumnKernel<In, Out, A, Op><<<GridFor(tiles), kThreads, 0, s>>>(p, divisor, in, out);
  } else if (p.L <= kWarpRowMax) {
    int64_t blocks = (p.A * p.S + kThreads / kWarp - 1) / (kThreads / kWarp);
    RowKernel<In, Out, A, Op, kWarp><<<GridFor(blocks), kThreads, 0, s>>>(p, divisor, in, out);
  } else {
    RowKernel<In, Out, A, Op, kThreads>
        <<<GridFor(p.A * p.S), kThreads, 0, s>>>(p, divisor, in, out);
  }
}

template <typename A>
struct AccType;
template <>
struct AccType<float> {
  static constexpr grt_dtype kDtype = GRT_FLOAT32;
};
template <>
struct AccType<double> {
  static constexpr grt_dtype kDtype = GRT_FLOAT64;
};
template <>
struct AccType<long long> {
  static constexpr grt_dtype kDtype = GRT_INT64;
};

// One reduction of T accumulated in A: the plan's passes, partial results
// in scratch tensors of A (each freed once the pass reading it is queued:
// the stream orders its later users, as for every scratch tensor).
template <typename T, typename A, typename Op, bool kMean>
grt_status* Run(grt_kernel_ctx* ctx, const grt_cuda_red_plan& plan, const void* x, void* y,
                const char* name) {
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  switch (plan.kind) {
    case GRT_CUDA_RED_NOTHING:
      return NULL;
    case GRT_CUDA_RED_COPY:
      return grt_cuda_error(
          cudaMemcpyAsync(y, x, (size_t)plan.n_out * sizeof(T), cudaMemcpyDeviceToDevice, s), name);
    case GRT_CUDA_RED_FILL:
      FillKernel<T, A, Op, kMean><<<Blocks(plan.n_out), kThreads, 0, s>>>(plan.n_out, (T*)y);
      return grt_cuda_launch_error(name);
    case GRT_CUDA_RED_PASSES:
      break;
  }
  const void* src = x;
  grt_tensor* prev = NULL;  // the scratch tensor src is, if any
  for (int32_t k = 0; k < plan.n_passes; k++) {
    const grt_cuda_red_pass& p = plan.pass[k];
    bool first = k == 0, last = k + 1 == plan.n_passes;
    grt_tensor* next = NULL;
    void* dst = y;
    if (!last) {
      grt_shape sh = {1, {grt_cuda_red_pass_outputs(&p)}};
      grt_status* st = grt_kernel_alloc_temp(ctx, AccType<A>::kDtype, &sh, &next);
      if (st) {
        grt_tensor_free(prev);
        return st;
      }
      dst = grt_tensor_data(next);
    }
    int64_t divisor = kMean && last ? plan.count : 0;
    if (first && last)
      LaunchPass<T, T, A, Op>(p, divisor, src, dst, s);
    else if (first)
      LaunchPass<T, A, A, Op>(p, divisor, src, dst, s);
    else if (last)
      LaunchPass<A, T, A, Op>(p, divisor, src, dst, s);
    else
      LaunchPass<A, A, A, Op>(p, divisor, src, dst, s);
    grt_status* st = grt_cuda_launch_error(name);
    grt_tensor_free(prev);
    if (st) {
      grt_tensor_free(next);
      return st;
    }
    prev = next;
    src = dst;
  }
  return NULL;
}

typedef grt_status* (*RunFn)(grt_kernel_ctx*, const grt_cuda_red_plan&, const void*, void*,
                             const char*);

// Per device dtype, a function per op (grt_cuda_red_op order); NULL: no
// GPU row (Mean of int64).
#define RED_ROW(dt, T, A)                                                        \
  {                                                                              \
    dt, {                                                                        \
      Run<T, A, SumOp, false>, Run<T, A, SumOp, true>, Run<T, A, ProdOp, false>, \
          Run<T, A, MaxOp, false>, Run<T, A, MinOp, false>                       \
    }                                                                            \
  }
const struct {
  grt_dtype dt;
  RunFn run[GRT_CUDA_RED_NUM_OPS];
} kRuns[] = {
    RED_ROW(GRT_FLOAT16, __half, float),
    RED_ROW(GRT_BFLOAT16, __nv_bfloat16, float),
    RED_ROW(GRT_FLOAT32, float, float),
    RED_ROW(GRT_FLOAT64, double, double),
    {GRT_INT64,
     {Run<long long, long long, SumOp, false>, NULL, Run<long long, long long, ProdOp, false>,
      Run<long long, long long, MaxOp, false>, Run<long long, long long, MinOp, false>}},
};
#undef RED_ROW

const char* const kNames[GRT_CUDA_RED_NUM_OPS] = {"Sum", "Mean", "Prod", "Max", "Min"};

grt_status* ReduceCompute(grt_kernel_ctx* ctx, grt_cuda_red_op op) {
  const char* name = kNames[op];
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* idx = ctx->inputs[1];  // host memory
  bool keep = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "keep_dims", &keep);
  if (st) return st;
  if (!IsIndexType(grt_tensor_dtype(idx)))
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s: reduction_indices must be int32 or int64",
                          name);
  if (grt_tensor_rank(idx) > 1)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "%s: reduction_indices must be a scalar or vector, got rank %d", name,
                          (int)grt_tensor_rank(idx));
  int32_t rank = grt_tensor_rank(x);
  bool reduced[GRT_MAX_RANK] = {false};
  for (int64_t i = 0; i < grt_tensor_num_elements(idx); i++) {
    int64_t a = HostInt(idx, i);
    if (a < -rank || a >= rank)
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "Invalid reduction dimension %lld for input with %d dimension(s)",
                            (long long)a, (int)rank);
    reduced[a < 0 ? a + rank : a] = true;
  }
  grt_shape in = ShapeOf(x), out = {0, {0}};
  for (int32_t d = 0; d < rank; d++)
    if (!reduced[d])
      out.dims[out.rank++] = in.dims[d];
    else if (keep)
      out.dims[out.rank++] = 1;
  grt_cuda_red_plan plan;
  grt_cuda_reduce_plan(&in, reduced, &plan);

  grt_dtype dt = grt_tensor_dtype(x);
  RunFn run = NULL;
  for (size_t i = 0; i < sizeof kRuns / sizeof kRuns[0]; i++)
    if (kRuns[i].dt == dt) run = kRuns[i].run[op];
  if (!run && dt != GRT_INT32) return NoKernel(name, dt);
  grt_tensor* o;
  st = grt_kernel_alloc_output(ctx, 0, dt, &out, &o);
  if (st) return st;
  if (dt == GRT_INT32)  // the HostMemory registration: input and output on the host
    return grt_cuda_reduce_host_i32(&plan, op, (const int32_t*)grt_tensor_data(x),
                                    (int32_t*)grt_tensor_data(o));
  return run(ctx, plan, grt_tensor_data(x), grt_tensor_data(o), name);
}

grt_status* SumCompute(grt_kernel_ctx* c) { return ReduceCompute(c, GRT_CUDA_RED_SUM); }
grt_status* MeanCompute(grt_kernel_ctx* c) { return ReduceCompute(c, GRT_CUDA_RED_MEAN); }
grt_status* ProdCompute(grt_kernel_ctx* c) { return ReduceCompute(c, GRT_CUDA_RED_PROD); }
grt_status* MaxCompute(grt_kernel_ctx* c) { return ReduceCompute(c, GRT_CUDA_RED_MAX); }
grt_status* MinCompute(grt_kernel_ctx* c) { return ReduceCompute(c, GRT_CUDA_RED_MIN); }

const grt_op_kernel kKernels[] = {
    {"Sum", SumCompute, NULL, NULL, 0},   {"Mean", MeanCompute, NULL, NULL, 0},
    {"Prod", ProdCompute, NULL, NULL, 0}, {"Max", MaxCompute, NULL, NULL, 0},
    {"Min", MinCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_reduce_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
