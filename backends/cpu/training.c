/* Optimizer updates (TensorFlow's training_ops): ApplyGradientDescent,
 * ApplyMomentum and ApplyAdam update the variable and its slots in place
 * (holding every variable's lock when use_locking) and give the variable
 * back as their Ref output.
 *
 * Each op is described by a table row (which inputs are references, which
 * are scalars, which is the gradient) and a pair of element loops, for
 * float and double; float16/bfloat16 run the float loop on widened chunks. */
#include <math.h>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/state_var.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

enum { kMaxArrays = 4, kMaxScalars = 6 };

/* arr: the references in input order, then the gradient; sc: the scalars in
 * input order. */
typedef void (*apply_row)(void* const* arr, const double* sc, bool nesterov, int64_t n);

#define ROWS(T, SUF, SQRT)                                                                   \
  /* var -= alpha * delta */                                                                 \
  static void gd_##SUF(void* const* arr, const double* sc, bool nesterov, int64_t n) {       \
    T* var = arr[0];                                                                         \
    const T* delta = arr[1];                                                                 \
    const T alpha = (T)sc[0];                                                                \
    for (int64_t i = 0; i < n; i++) var[i] -= alpha * delta[i];                              \
  }                                                                                          \
  /* accum = accum * momentum + grad; var -= lr * accum (Nesterov: look ahead) */            \
  static void momentum_##SUF(void* const* arr, const double* sc, bool nesterov, int64_t n) { \
    T* var = arr[0];                                                                         \
    T* accum = arr[1];                                                                       \
    const T* grad = arr[2];                                                                  \
    const T lr = (T)sc[0], mom = (T)sc[1];                                                   \
    for (int64_t i = 0; i < n; i++) {                                                        \
      accum[i] = accum[i] * mom + grad[i];                                                   \
      if (nesterov)                                                                          \
        var[i] -= grad[i] * lr + accum[i] * mom * lr;                                        \
      else                                                                                   \
        var[i] -= lr * accum[i];                                                             \
    }                                                                                        \
  }                                                                                          \
  /* lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), the powers given as inputs. The          \
   * arrays never overlap (restrict) and Nesterov is decided outside the loop, so each       \
   * loop vectorises: the scalar sqrt and divide per element were a fifth of an MLP's        \
   * training step. */                                                                       \
  GRT_CPU_CLONES static void adam_##SUF(void* const* arr, const double* sc, bool nesterov,   \
                                        int64_t n) {                                         \
    T* restrict var = arr[0];                                                                \
    T* restrict m = arr[1];                                                                  \
    T* restrict v = arr[2];                                                                  \
    const T* restrict g = arr[3];                                                            \
    const T b1p = (T)sc[0], b2p = (T)sc[1], lr = (T)sc[2], b1 = (T)sc[3], b2 = (T)sc[4];     \
    const T eps = (T)sc[5], c1 = (T)1 - b1, c2 = (T)1 - b2;                                  \
    const T alpha = lr * SQRT((T)1 - b2p) / ((T)1 - b1p);                                    \
    if (nesterov) {                                                                          \
      for (int64_t i = 0; i < n; i++) {                                                      \
        m[i] += (g[i] - m[i]) * c1;                                                          \
        v[i] += (g[i] * g[i] - v[i]) * c2;                                                   \
        var[i] -= ((g[i] * c1 + b1 * m[i]) * alpha) / (SQRT(v[i]) + eps);                    \
      }                                                                                      \
      return;                                                                                \
    }                                                                                        \
    for (int64_t i = 0; i < n; i++) {                                                        \
      m[i] += (g[i] - m[i]) * c1;                                                            \
      v[i] += (g[i] * g[i] - v[i]) * c2;                                                     \
      var[i] -= (m[i] * alpha) / (SQRT(v[i]) + eps);                                         \
    }                                                                                        \
  }
ROWS(float, f32, sqrtf)
ROWS(double, f64, sqrt)
#undef ROWS

typedef struct {
  int32_t n_refs; /* inputs 0..n_refs-1: the variable, then its slots */
  const char* ref_names[kMaxArrays];
  int32_t grad; /* input index of the gradient */
  const char* grad_name;
  int32_t n_scalars;
  int32_t scalars[kMaxScalars];
  const char* scalar_names[kMaxScalars];
  apply_row f32, f64;
  bool has_nesterov;
} apply_op;

static const apply_op kGradientDescent = {1,   {"var"},   2,      "delta", 1,
                                          {1}, {"alpha"}, gd_f32, gd_f64,  false};
static const apply_op kMomentum = {
    2,   {"var", "accum"}, 3, "grad", 2, {2, 4}, {"lr", "momentum"}, momentum_f32, momentum_f64,
    true};
static const apply_op kAdam = {3,
                               {"var", "m", "v"},
                               9,
                               "grad",
                               6,
                               {3, 4, 5, 6, 7, 8},
                               {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"},
                               adam_f32,
                               adam_f64,
                               true};

typedef struct {
  const apply_op* op;
  grt_dtype dtype;
  int32_t n_arrays;
  char* arrays[kMaxArrays];
  double sc[kMaxScalars];
  bool nesterov;
} apply_job;

static void apply_shard(void* arg, int64_t begin, int64_t end) {
  const apply_job* j = arg;
  size_t es = grt_dtype_size(j->dtype);
  if (!grt_cpu_is_half(j->dtype)) {
    void* arr[kMaxArrays];
    for (int32_t a = 0; a < j->n_arrays; a++) arr[a] = j->arrays[a] + (size_t)begin * es;
    (j->dtype == GRT_FLOAT64 ? j->op->f64 : j->op->f32)(arr, j->sc, j->nesterov, end - begin);
    return;
  }
  /* Widen a chunk of every array, update in float, narrow the references. */
  enum { kChunk = 256 };
  float buf[kMaxArrays][kChunk];
  void* arr[kMaxArrays];
  for (int32_t a = 0; a < j->n_arrays; a++) arr[a] = buf[a];
  for (int64_t i = begin; i < end; i += kChunk) {
    int64_t n = end - i < kChunk ? end - i : kChunk;
    for (int32_t a = 0; a < j->n_arrays; a++)
      grt_cpu_widen(j->dtype, j->arrays[a] + (size_t)i * es, buf[a], n);
    j->op->f32(arr, j->sc, j->nesterov, n);
    for (int32_t a = 0; a < j->n_arrays - 1; a++)
      grt_cpu_narrow(j->dtype, buf[a], j->arrays[a] + (size_t)i * es, n);
  }
}

static grt_status* not_same_shape(const char* a, const grt_tensor* x, const char* b,
                                  const grt_tensor* y) {
  char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "%s and %s do not have the same shape%s %s", a, b,
                   grt_shape_str(&x->shape, sa, sizeof sa),
                   grt_shape_str(&y->shape, sb, sizeof sb));
}

/* Everything but the references is checked before any lock is taken. */
static grt_status* read_scalars(const grt_kernel_ctx* ctx, const apply_op* op, apply_job* j) {
  for (int32_t s = 0; s < op->n_scalars; s++) {
    const grt_tensor* t = op->scalars[s] < ctx->n_inputs ? ctx->inputs[op->scalars[s]] : NULL;
    if (!t) return GRT_ERROR(INTERNAL, "input '%s' was not provided", op->scalar_names[s]);
    /* TensorFlow's IsLegacyScalar: rank 0, or one element in rank 1. */
    if (!(t->shape.rank == 0 || (t->shape.rank == 1 && t->shape.dims[0] == 1))) {
      char buf[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT, "%s is not a scalar: %s", op->scalar_names[s],
                       grt_shape_str(&t->shape, buf, sizeof buf));
    }
    if (t->dtype != j->dtype)
      return GRT_ERROR(INVALID_ARGUMENT, "%s is %s, expected %s", op->scalar_names[s],
                       grt_dtype_name(t->dtype), grt_dtype_name(j->dtype));
    j->sc[s] = grt_dtype_load_double(t->dtype, grt_tensor_data(t), 0);
  }
  return NULL;
}

static grt_status* apply(grt_kernel_ctx* ctx, const apply_op* op) {
  apply_job j = {.op = op, .n_arrays = op->n_refs + 1};
  j.dtype = ctx->node->sig.n_inputs > 0 ? ctx->node->sig.input_types[0] : GRT_DTYPE_INVALID;
  if (j.dtype != GRT_FLOAT16 && j.dtype != GRT_BFLOAT16 && j.dtype != GRT_FLOAT32 &&
      j.dtype != GRT_FLOAT64)
    return grt_cpu_no_kernel(ctx, j.dtype);
  const grt_tensor* grad = op->grad < ctx->n_inputs ? ctx->inputs[op->grad] : NULL;
  if (!grad) return GRT_ERROR(INTERNAL, "input '%s' was not provided", op->grad_name);
  GRT_RETURN_IF_ERROR(read_scalars(ctx, op, &j));
  bool lock;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "use_locking", &lock));
  if (op->has_nesterov) GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "use_nesterov", &j.nesterov));

  int32_t refs[kMaxArrays];
  for (int32_t r = 0; r < op->n_refs; r++) refs[r] = r;
  grt_state_update u;
  GRT_RETURN_IF_ERROR(grt_state_update_begin(ctx, refs, op->n_refs, lock,
                                             "Attempting to use uninitialized variables: ", &u));
  const grt_tensor* var = u.values[0];
  grt_status* s = NULL;
  for (int32_t r = 0; r < op->n_refs && !s; r++) {
    const grt_tensor* t = u.values[r];
    if (r > 0 && !grt_shape_equal(&t->shape, &var->shape))
      s = not_same_shape("var", var, op->ref_names[r], t);
    else if (t->dtype != j.dtype)
      s = GRT_ERROR(INVALID_ARGUMENT, "%s is %s, expected %s", op->ref_names[r],
                    grt_dtype_name(t->dtype), grt_dtype_name(j.dtype));
    j.arrays[r] = grt_tensor_data(t);
  }
  if (!s && !grt_shape_equal(&grad->shape, &var->shape))
    s = not_same_shape("var", var, op->grad_name, grad);
  if (!s && grad->dtype != j.dtype)
    s = GRT_ERROR(INVALID_ARGUMENT, "%s is %s, expected %s", op->grad_name,
                  grt_dtype_name(grad->dtype), grt_dtype_name(j.dtype));
  if (!s) {
    j.arrays[op->n_refs] = grt_tensor_data(grad);
    grt_parallel_for(ctx->intra_op, grt_tensor_num_elements(var), 4 * j.n_arrays, apply_shard, &j);
    ctx->output_refs[0] = u.vars[0];
  }
  grt_state_update_end(&u);
  return s;
}

static grt_status* apply_gradient_descent(grt_kernel_ctx* ctx) {
  return apply(ctx, &kGradientDescent);
}
static grt_status* apply_momentum(grt_kernel_ctx* ctx) { return apply(ctx, &kMomentum); }
static grt_status* apply_adam(grt_kernel_ctx* ctx) { return apply(ctx, &kAdam); }

/* clang-format off */
GRT_CPU_KERNEL_TABLE(training,
                     {"ApplyGradientDescent", apply_gradient_descent, NULL, NULL, 0},
                     {"ApplyMomentum", apply_momentum, NULL, NULL, 0},
                     {"ApplyAdam", apply_adam, NULL, NULL, 0});
/* clang-format on */
