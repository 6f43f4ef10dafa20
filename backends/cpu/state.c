/* Variables and assignment (TensorFlow's state_ops): VariableV2/Variable
 * hand out their grt_var by reference; Assign replaces the variable's
 * tensor with a fresh copy of the value (readers holding the old tensor
 * keep a consistent snapshot); AssignAdd/AssignSub update the current
 * tensor in place. Each gives the variable back as its Ref output. */
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/state_var.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

static grt_status* variable(grt_kernel_ctx* ctx) {
  if (!ctx->state) return GRT_ERROR(INTERNAL, "variable has no storage");
  ctx->output_refs[0] = ctx->state;
  return NULL;
}

static grt_status* ref_input(const grt_kernel_ctx* ctx, grt_var** out) {
  *out = ctx->input_refs && ctx->n_inputs > 0 ? ctx->input_refs[0] : NULL;
  if (!*out) return GRT_ERROR(INTERNAL, "input 0 is not a variable reference");
  if (ctx->n_inputs < 2 || !ctx->inputs[1]) return GRT_ERROR(INTERNAL, "input 1 was not provided");
  return NULL;
}

static grt_status* assign(grt_kernel_ctx* ctx) {
  grt_var* v;
  GRT_RETURN_IF_ERROR(ref_input(ctx, &v));
  const grt_tensor* value = ctx->inputs[1];
  bool validate;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "validate_shape", &validate));
  /* use_locking only decides, in TensorFlow, whether the copy into an
   * existing buffer happens under the lock; here the copy always goes to a
   * new tensor made outside it, and the swap is always locked. */
  grt_tensor* fresh;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, value->dtype, &value->shape, &fresh));
  memcpy(grt_tensor_data(fresh), grt_tensor_data(value), grt_tensor_byte_size(value));

  GRT_RETURN_IF_ERROR(grt_var_assign(ctx, v, fresh, validate));
  ctx->output_refs[0] = v;
  return NULL;
}

/* ---- AssignAdd / AssignSub ------------------------------------------------ */

typedef void (*update_fn)(void* var, const void* val, int64_t n);

/* Integer updates wrap: done in the unsigned type U of at least int width. */
#define UPDATE(NAME, T, U, OP)                                      \
  static void NAME(void* var, const void* val, int64_t n) {         \
    T* x = var;                                                     \
    const T* y = val;                                               \
    for (int64_t i = 0; i < n; i++) x[i] = (T)((U)x[i] OP(U) y[i]); \
  }
#define FLOAT_UPDATE(NAME, T, OP)                           \
  static void NAME(void* var, const void* val, int64_t n) { \
    T* x = var;                                             \
    const T* y = val;                                       \
    for (int64_t i = 0; i < n; i++) x[i] = x[i] OP y[i];    \
  }
#define HALF_UPDATE(NAME, DT, OP)                           \
  static void NAME(void* var, const void* val, int64_t n) { \
    enum { kChunk = 256 };                                  \
    float a[kChunk], b[kChunk];                             \
    for (int64_t i = 0; i < n; i += kChunk) {               \
      int64_t m = n - i < kChunk ? n - i : kChunk;          \
      grt_cpu_widen(DT, (uint16_t*)var + i, a, m);          \
      grt_cpu_widen(DT, (const uint16_t*)val + i, b, m);    \
      for (int64_t k = 0; k < m; k++) a[k] = a[k] OP b[k];  \
      grt_cpu_narrow(DT, a, (uint16_t*)var + i, m);         \
    }                                                       \
  }
#define ALL(SUFFIX, OP)                                                                           \
  HALF_UPDATE(f16_##SUFFIX, GRT_FLOAT16, OP)                                                      \
  HALF_UPDATE(bf16_##SUFFIX, GRT_BFLOAT16, OP)                                                    \
  FLOAT_UPDATE(f32_##SUFFIX, float, OP)                                                           \
  FLOAT_UPDATE(f64_##SUFFIX, double, OP)                                                          \
  UPDATE(i8_##SUFFIX, int8_t, uint32_t, OP)                                                       \
  UPDATE(i16_##SUFFIX, int16_t, uint32_t, OP)                                                     \
  UPDATE(i32_##SUFFIX, int32_t, uint32_t, OP)                                                     \
  UPDATE(i64_##SUFFIX, int64_t, uint64_t, OP)                                                     \
  UPDATE(u8_##SUFFIX, uint8_t, uint32_t, OP)                                                      \
  static const update_fn k_##SUFFIX[GRT_NUM_DTYPES] = {                                           \
      [GRT_FLOAT16] = f16_##SUFFIX, [GRT_BFLOAT16] = bf16_##SUFFIX, [GRT_FLOAT32] = f32_##SUFFIX, \
      [GRT_FLOAT64] = f64_##SUFFIX, [GRT_INT8] = i8_##SUFFIX,       [GRT_INT16] = i16_##SUFFIX,   \
      [GRT_INT32] = i32_##SUFFIX,   [GRT_INT64] = i64_##SUFFIX,     [GRT_UINT8] = u8_##SUFFIX,    \
  };
ALL(add, +)
ALL(sub, -)
#undef ALL
#undef HALF_UPDATE
#undef FLOAT_UPDATE
#undef UPDATE

typedef struct {
  update_fn fn;
  char* var;
  const char* val;
  size_t esize;
} update_job;

static void update_shard(void* arg, int64_t begin, int64_t end) {
  const update_job* j = arg;
  j->fn(j->var + (size_t)begin * j->esize, j->val + (size_t)begin * j->esize, end - begin);
}

static grt_status* assign_update(grt_kernel_ctx* ctx, const update_fn* table) {
  grt_var* v;
  GRT_RETURN_IF_ERROR(ref_input(ctx, &v));
  const grt_tensor* value = ctx->inputs[1];
  update_fn fn = grt_dtype_valid(value->dtype) ? table[value->dtype] : NULL;
  if (!fn) return grt_cpu_no_kernel(ctx, value->dtype);
  bool lock;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "use_locking", &lock));
  const int32_t refs[1] = {0};
  grt_state_update u;
  GRT_RETURN_IF_ERROR(
      grt_state_update_begin(ctx, refs, 1, lock, "Attempting to use uninitialized value ", &u));
  grt_tensor* x = u.values[0];
  grt_status* s = NULL;
  if (!grt_shape_equal(&x->shape, &value->shape)) {
    char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
    s = GRT_ERROR(INVALID_ARGUMENT, "Parameters and update dimensions must match: %s %s",
                  grt_shape_str(&x->shape, a, sizeof a), grt_shape_str(&value->shape, b, sizeof b));
  } else if (x->dtype != value->dtype) {
    s = GRT_ERROR(INVALID_ARGUMENT, "variable is %s, value is %s", grt_dtype_name(x->dtype),
                  grt_dtype_name(value->dtype));
  } else {
    update_job j = {fn, grt_tensor_data(x), grt_tensor_data(value), grt_dtype_size(x->dtype)};
    grt_parallel_for(ctx->intra_op, grt_tensor_num_elements(x), 2, update_shard, &j);
  }
  grt_state_update_end(&u);
  if (!s) ctx->output_refs[0] = v;
  return s;
}

static grt_status* assign_add(grt_kernel_ctx* ctx) { return assign_update(ctx, k_add); }
static grt_status* assign_sub(grt_kernel_ctx* ctx) { return assign_update(ctx, k_sub); }

/* clang-format off */
GRT_CPU_KERNEL_TABLE(state,
                     {"VariableV2", variable, grt_state_var_create, grt_state_var_free,
                      GRT_KERNEL_CHEAP},
                     {"Variable", variable, grt_state_var_create, grt_state_var_free,
                      GRT_KERNEL_CHEAP},
                     {"Assign", assign, NULL, NULL, 0},
                     {"AssignAdd", assign_add, NULL, NULL, 0},
                     {"AssignSub", assign_sub, NULL, NULL, 0});
/* clang-format on */
