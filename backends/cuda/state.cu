// Variables and the optimizers on the GPU (TensorFlow's state_ops and
// training_ops): the variable's storage is grt's (grt_var_*, the same the
// CPU kernels use), its tensor device memory. Assign swaps in a fresh copy
// of the value (copied on the compute stream); AssignAdd/AssignSub and the
// Apply* ops update the current tensor in place with one thread per
// element. The Apply* scalars (lr, momentum, beta powers) are device memory
// and read by the kernel, so nothing waits for the host.
//
// Locking as on the CPU: with use_locking the variables' mutexes are held
// (in address order) while the work is queued; the stream orders the work.
// AssignAdd/AssignSub and the Apply* ops take float16 and bfloat16 (in
// float32 arithmetic), float32, float64 (and int64 for AssignAdd/AssignSub),
// from the dtype lists they declare (dtype_list.cuh).
//
// tests/gpu/gpu_suite.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include <math.h>
#include <stdlib.h>

#include <type_traits>

#include "dtype_list.cuh"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

grt_status* VariableCompute(grt_kernel_ctx* ctx) {
  if (!ctx->state) return grt_status_new(GRT_INTERNAL, "variable has no storage");
  ctx->output_refs[0] = static_cast<grt_var*>(ctx->state);
  return NULL;
}

grt_status* RefInput(const grt_kernel_ctx* ctx, int k, grt_var** out) {
  *out = ctx->input_refs && k < ctx->n_inputs ? ctx->input_refs[k] : NULL;
  if (!*out) return grt_status_new(GRT_INTERNAL, "input %d is not a variable reference", k);
  return NULL;
}

// value's bytes into dst on ctx's stream (none when they are the same).
grt_status* CopyValue(grt_kernel_ctx* ctx, const grt_tensor* value, grt_tensor* dst) {
  size_t n = grt_tensor_byte_size(value);
  if (!n || grt_tensor_data(dst) == grt_tensor_data(value)) return NULL;
  return grt_cuda_error(cudaMemcpyAsync(grt_tensor_data(dst), grt_tensor_data(value), n,
                                        cudaMemcpyDeviceToDevice, grt_cuda_stream(ctx->stream)),
                        "cudaMemcpyAsync");
}

grt_status* AssignCompute(grt_kernel_ctx* ctx) {
  grt_var* v;
  grt_status* st = RefInput(ctx, 0, &v);
  if (st) return st;
  const grt_tensor* value = ctx->inputs[1];
  bool validate = true;
  if ((st = grt_kernel_attr_bool(ctx, "validate_shape", &validate))) return st;
  // An initialised variable of the value's dtype and shape takes the value
  // into its own buffer, as TensorFlow's Assign does: no allocation, and a
  // recorded step (graph capture) keeps addressing the same tensor, so Adam's
  // power updates no longer stop a step from being captured. Anything else
  // gets a fresh tensor.
  grt_var_lock(v);
  grt_tensor* cur = grt_var_value(v, true);
  bool in_place = cur && grt_tensor_dtype(cur) == grt_tensor_dtype(value) && SameShape(cur, value);
  if (in_place) st = CopyValue(ctx, value, cur);
  grt_var_unlock(v);
  grt_tensor_free(cur);
  if (!in_place) {
    grt_shape s = ShapeOf(value);
    grt_tensor* fresh;
    if ((st = grt_kernel_alloc_temp(ctx, grt_tensor_dtype(value), &s, &fresh))) return st;
    if ((st = CopyValue(ctx, value, fresh))) {
      grt_tensor_free(fresh);
      return st;
    }
    st = grt_var_assign(ctx, v, fresh, validate);
  }
  if (st) return st;
  ctx->output_refs[0] = v;
  return NULL;
}

// ---- holding variables for an update --------------------------------------

enum { kMaxRefs = 3 };

struct Held {
  int n;
  grt_var* vars[kMaxRefs];
  grt_tensor* values[kMaxRefs];  // one reference each
  int n_locked;
  grt_var* locked[kMaxRefs];
};

void Release(Held* h) {
  for (int i = 0; i < h->n; i++) grt_tensor_free(h->values[i]);
  for (int i = h->n_locked - 1; i >= 0; i--) grt_var_unlock(h->locked[i]);
  h->n = h->n_locked = 0;
}

// Takes the variables of inputs 0..n-1 and their tensors; with `lock`,
// their mutexes stay held (each once, in address order) until Release.
grt_status* Hold(const grt_kernel_ctx* ctx, int n, bool lock, const char* uninit, Held* h) {
  h->n = h->n_locked = 0;
  for (int i = 0; i < n; i++) {
    grt_status* st = RefInput(ctx, i, &h->vars[i]);
    if (st) return st;
  }
  if (lock) {
    grt_var* order[kMaxRefs];
    for (int i = 0; i < n; i++) order[i] = h->vars[i];
    for (int i = 1; i < n; i++)  // insertion sort by address
      for (int k = i; k > 0 && (uintptr_t)order[k] < (uintptr_t)order[k - 1]; k--) {
        grt_var* t = order[k];
        order[k] = order[k - 1];
        order[k - 1] = t;
      }
    for (int i = 0; i < n; i++) {
      if (i > 0 && order[i] == order[i - 1]) continue;
      grt_var_lock(order[i]);
      h->locked[h->n_locked++] = order[i];
    }
  }
  for (int i = 0; i < n; i++) {
    h->values[i] = grt_var_value(h->vars[i], lock);
    h->n = i + 1;
    if (!h->values[i]) {
      grt_status* st =
          grt_status_new(GRT_FAILED_PRECONDITION, "%s%s", uninit, grt_var_name(h->vars[i]));
      h->n = i;
      Release(h);
      return st;
    }
  }
  return NULL;
}

// ---- AssignAdd / AssignSub --------------------------------------------------

// S in memory, C the arithmetic; integers wrap, as the CPU's do.
template <typename S, typename C>
__global__ void UpdateKernel(int64_t n, bool sub, S* x, const S* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if constexpr (std::is_integral<S>::value) {
      using U = typename std::make_unsigned<S>::type;
      x[i] = (S)(sub ? (U)x[i] - (U)y[i] : (U)x[i] + (U)y[i]);
    } else {
      C a = Widen(x[i]), b = Widen(y[i]);
      Narrow(sub ? a - b : a + b, &x[i]);
    }
  }
}

template <class T>
grt_status* AssignUpdate(grt_kernel_ctx* ctx, bool sub, const char* op) {
  const grt_tensor* value = ctx->inputs[1];
  bool lock = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "use_locking", &lock);
  if (st) return st;
  Held h;
  if ((st = Hold(ctx, 1, lock, "Attempting to use uninitialized value ", &h))) return st;
  grt_tensor* x = h.values[0];
  grt_dtype dt = grt_tensor_dtype(x);
  int64_t n = grt_tensor_num_elements(x);
  char a[96], b[96];
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (!SameShape(x, value)) {
    st = grt_status_new(GRT_INVALID_ARGUMENT, "Parameters and update dimensions must match: %s %s",
                        ShapeStr(x, a, sizeof a), ShapeStr(value, b, sizeof b));
  } else if (grt_tensor_dtype(value) != dt) {
    st = grt_status_new(GRT_INVALID_ARGUMENT, "variable is %s, value is %s", grt_dtype_name(dt),
                        grt_dtype_name(grt_tensor_dtype(value)));
  } else if (n > 0) {
    bool typed = T::Visit(dt, [&](auto e) {
      using S = typename decltype(e)::Store;
      UpdateKernel<S, typename decltype(e)::Math><<<Blocks(n), kThreads, 0, s>>>(
          n, sub, (S*)grt_tensor_data(x), (const S*)grt_tensor_data(value));
    });
    if (!typed) st = NoKernel(op, dt);
    if (!st) st = Launched(op);
  }
  if (!st) ctx->output_refs[0] = h.vars[0];
  Release(&h);
  return st;
}

template <class T, class U>
grt_status* AssignAddCompute(grt_kernel_ctx* ctx) {
  return AssignUpdate<T>(ctx, false, "AssignAdd");
}
template <class T, class U>
grt_status* AssignSubCompute(grt_kernel_ctx* ctx) {
  return AssignUpdate<T>(ctx, true, "AssignSub");
}

// ---- Apply* ------------------------------------------------------------------

enum ApplyKind { kGradientDescent, kMomentum, kAdam };

// Which inputs are the variable and its slots, the scalars and the gradient
// (TensorFlow's input order), as the CPU's table.
struct ApplyOp {
  ApplyKind kind;
  const char* name;
  int n_refs;
  const char* ref_names[kMaxRefs];
  int grad;
  const char* grad_name;
  int n_scalars;
  int scalars[6];
  const char* scalar_names[6];
  bool has_nesterov;
};

const ApplyOp kGd = {
    kGradientDescent, "ApplyGradientDescent", 1, {"var"}, 2, "delta", 1, {1}, {"alpha"}, false};
const ApplyOp kMom = {kMomentum, "ApplyMomentum",    2,   {"var", "accum"}, 3, "grad", 2,
                      {2, 4},    {"lr", "momentum"}, true};
const ApplyOp kAdamOp = {kAdam,
                         "ApplyAdam",
                         3,
                         {"var", "m", "v"},
                         9,
                         "grad",
                         6,
                         {3, 4, 5, 6, 7, 8},
                         {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"},
                         true};

template <typename T>
struct ApplyArgs {
  T* ref[kMaxRefs];
  const T* grad;
  const T* sc[6];  // device scalars
  int64_t n;
  bool nesterov;
};

template <typename T>
__device__ inline T Sqrt(T x);
template <>
__device__ inline float Sqrt<float>(float x) {
  return sqrtf(x);
}
template <>
__device__ inline double Sqrt<double>(double x) {
  return sqrt(x);
}

// The CPU's loops (backends/cpu/training.c), one element per thread: S in
// memory, C the arithmetic. As on the CPU, float16 and bfloat16 widen every
// value to float32, update in float32 and round the references once.
template <typename S, typename C>
__global__ void ApplyKernel(int kind, ApplyArgs<S> a) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < a.n;
       i += (int64_t)gridDim.x * blockDim.x) {
    C var = Widen(a.ref[0][i]);
    const C g = Widen(a.grad[i]);
    if (kind == kGradientDescent) {
      var -= C(Widen(*a.sc[0])) * g;
    } else if (kind == kMomentum) {
      C accum = Widen(a.ref[1][i]);
      const C lr = Widen(*a.sc[0]), mom = Widen(*a.sc[1]);
      accum = accum * mom + g;
      if (a.nesterov)
        var -= g * lr + accum * mom * lr;
      else
        var -= lr * accum;
      Narrow(accum, &a.ref[1][i]);
    } else {
      C m = Widen(a.ref[1][i]), v = Widen(a.ref[2][i]);
      const C b1p = Widen(*a.sc[0]), b2p = Widen(*a.sc[1]), lr = Widen(*a.sc[2]),
              b1 = Widen(*a.sc[3]), b2 = Widen(*a.sc[4]), eps = Widen(*a.sc[5]);
      const C alpha = lr * Sqrt<C>(C(1) - b2p) / (C(1) - b1p);
      m += (g - m) * (C(1) - b1);
      v += (g * g - v) * (C(1) - b2);
      if (a.nesterov)
        var -= ((g * (C(1) - b1) + b1 * m) * alpha) / (Sqrt<C>(v) + eps);
      else
        var -= (m * alpha) / (Sqrt<C>(v) + eps);
      Narrow(m, &a.ref[1][i]);
      Narrow(v, &a.ref[2][i]);
    }
    Narrow(var, &a.ref[0][i]);
  }
}

template <typename S, typename C>
void LaunchApply(const ApplyOp& op, const Held& h, const grt_kernel_ctx* ctx, bool nesterov,
                 cudaStream_t s) {
  ApplyArgs<S> a = {};
  for (int r = 0; r < op.n_refs; r++) a.ref[r] = (S*)grt_tensor_data(h.values[r]);
  a.grad = (const S*)grt_tensor_data(ctx->inputs[op.grad]);
  for (int k = 0; k < op.n_scalars; k++)
    a.sc[k] = (const S*)grt_tensor_data(ctx->inputs[op.scalars[k]]);
  a.n = grt_tensor_num_elements(h.values[0]);
  a.nesterov = nesterov;
  if (a.n > 0) ApplyKernel<S, C><<<Blocks(a.n), kThreads, 0, s>>>(op.kind, a);
}

// Everything but the variables is checked before any lock is taken.
grt_status* CheckInputs(const grt_kernel_ctx* ctx, const ApplyOp& op, grt_dtype dt) {
  const grt_tensor* grad = op.grad < ctx->n_inputs ? ctx->inputs[op.grad] : NULL;
  if (!grad) return grt_status_new(GRT_INTERNAL, "input '%s' was not provided", op.grad_name);
  if (grt_tensor_dtype(grad) != dt)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s is %s, expected %s", op.grad_name,
                          grt_dtype_name(grt_tensor_dtype(grad)), grt_dtype_name(dt));
  for (int k = 0; k < op.n_scalars; k++) {
    const grt_tensor* t = op.scalars[k] < ctx->n_inputs ? ctx->inputs[op.scalars[k]] : NULL;
    if (!t) return grt_status_new(GRT_INTERNAL, "input '%s' was not provided", op.scalar_names[k]);
    int32_t r = grt_tensor_rank(t);
    if (!(r == 0 || (r == 1 && grt_tensor_dim(t, 0) == 1))) {
      char b[96];
      return grt_status_new(GRT_INVALID_ARGUMENT, "%s is not a scalar: %s", op.scalar_names[k],
                            ShapeStr(t, b, sizeof b));
    }
    if (grt_tensor_dtype(t) != dt)
      return grt_status_new(GRT_INVALID_ARGUMENT, "%s is %s, expected %s", op.scalar_names[k],
                            grt_dtype_name(grt_tensor_dtype(t)), grt_dtype_name(dt));
  }
  return NULL;
}

template <class T>
grt_status* Apply(grt_kernel_ctx* ctx, const ApplyOp& op) {
  // T is the gradient's dtype (the variables are checked against it).
  const grt_tensor* g = op.grad < ctx->n_inputs ? ctx->inputs[op.grad] : NULL;
  if (!g) return grt_status_new(GRT_INTERNAL, "input '%s' was not provided", op.grad_name);
  grt_dtype dt = grt_tensor_dtype(g);
  grt_status* st = NULL;
  if (!(T::kMask & (1u << dt))) return NoKernel(op.name, dt);
  if ((st = CheckInputs(ctx, op, dt))) return st;
  bool lock = false, nesterov = false;
  if ((st = grt_kernel_attr_bool(ctx, "use_locking", &lock))) return st;
  if (op.has_nesterov && (st = grt_kernel_attr_bool(ctx, "use_nesterov", &nesterov))) return st;
  Held h;
  if ((st = Hold(ctx, op.n_refs, lock, "Attempting to use uninitialized variables: ", &h)))
    return st;
  const grt_tensor* var = h.values[0];
  char a[96], b[96];
  for (int r = 0; r < op.n_refs && !st; r++) {
    const grt_tensor* t = h.values[r];
    if (r > 0 && !SameShape(t, var))
      st = grt_status_new(GRT_INVALID_ARGUMENT, "var and %s do not have the same shape%s %s",
                          op.ref_names[r], ShapeStr(var, a, sizeof a), ShapeStr(t, b, sizeof b));
    else if (grt_tensor_dtype(t) != dt)
      st = grt_status_new(GRT_INVALID_ARGUMENT, "%s is %s, expected %s", op.ref_names[r],
                          grt_dtype_name(grt_tensor_dtype(t)), grt_dtype_name(dt));
  }
  const grt_tensor* grad = ctx->inputs[op.grad];
  if (!st && !SameShape(grad, var))
    st = grt_status_new(GRT_INVALID_ARGUMENT, "var and %s do not have the same shape%s %s",
                        op.grad_name, ShapeStr(var, a, sizeof a), ShapeStr(grad, b, sizeof b));
  if (!st) {
    cudaStream_t s = grt_cuda_stream(ctx->stream);
    T::Visit(dt, [&](auto e) {
      using E = decltype(e);
      LaunchApply<typename E::Store, typename E::Math>(op, h, ctx, nesterov, s);
    });
    st = Launched(op.name);
  }
  if (!st) ctx->output_refs[0] = h.vars[0];
  Release(&h);
  return st;
}

template <class T, class U>
grt_status* GdCompute(grt_kernel_ctx* ctx) {
  return Apply<T>(ctx, kGd);
}
template <class T, class U>
grt_status* MomentumCompute(grt_kernel_ctx* ctx) {
  return Apply<T>(ctx, kMom);
}
template <class T, class U>
grt_status* AdamCompute(grt_kernel_ctx* ctx) {
  return Apply<T>(ctx, kAdamOp);
}

// The kernels whose dispatch reads dtype lists: each row makes a kernel and
// its declaration (dtype_list.cuh).
#define TYPED_KERNELS(X)                                                \
  X("AssignAdd", AssignAddCompute, "T", FloatsInt64, nullptr, NoDtypes) \
  X("AssignSub", AssignSubCompute, "T", FloatsInt64, nullptr, NoDtypes) \
  X("ApplyGradientDescent", GdCompute, "T", Floats, nullptr, NoDtypes)  \
  X("ApplyMomentum", MomentumCompute, "T", Floats, nullptr, NoDtypes)   \
  X("ApplyAdam", AdamCompute, "T", Floats, nullptr, NoDtypes)

const grt_op_kernel kKernels[] = {
    {"VariableV2", VariableCompute, grt_var_state_new, grt_var_state_free, GRT_KERNEL_CHEAP},
    {"Variable", VariableCompute, grt_var_state_new, grt_var_state_free, GRT_KERNEL_CHEAP},
    {"Assign", AssignCompute, NULL, NULL, 0},
    TYPED_KERNELS(GRT_CUDA_KERNEL_ROW)};

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_state_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_state_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
