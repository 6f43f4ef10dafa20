/* MatMul (transpose_a/b) and BatchMatMulV2 (adj_x/adj_y, batch dimensions
 * broadcast as in NumPy), and the family table. Shapes are checked here;
 * the multiplication is matmul_gemm.c's. float16/bfloat16 are widened to
 * float32, multiplied by OpenBLAS and rounded back (TensorFlow's CPU
 * kernels also accumulate half types in float32). */
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/dnnl_util.h"
#include "backends/cpu/matmul_dnnl.h"
#include "backends/cpu/matmul_gemm.h"
#include "backends/cpu/matmul_gemv.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/graph.h"

/* The CPU support rows: no int8/uint8 GEMM, as in TensorFlow. */
static bool supported(grt_dtype t) {
  return t == GRT_FLOAT16 || t == GRT_BFLOAT16 || t == GRT_FLOAT32 || t == GRT_FLOAT64 ||
         t == GRT_INT16 || t == GRT_INT32 || t == GRT_INT64;
}

static grt_status* inputs(const grt_kernel_ctx* ctx, const grt_tensor** x, const grt_tensor** y) {
  if (ctx->n_inputs < 2 || !ctx->inputs[0] || !ctx->inputs[1])
    return GRT_ERROR(INTERNAL, "both inputs must be provided");
  *x = ctx->inputs[0];
  *y = ctx->inputs[1];
  if ((*x)->dtype != (*y)->dtype)
    return GRT_ERROR(INVALID_ARGUMENT, "inputs have different dtypes: %s and %s",
                     grt_dtype_name((*x)->dtype), grt_dtype_name((*y)->dtype));
  if (!supported((*x)->dtype)) return grt_cpu_no_kernel(ctx, (*x)->dtype);
  return NULL;
}

static grt_status* size_incompatible(const grt_tensor* x, const grt_tensor* y) {
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: %s, In[1]: %s",
                   grt_shape_str(&x->shape, a, sizeof a), grt_shape_str(&y->shape, b, sizeof b));
}

/* Runs the plan on x, y into out, going through float32 for half types. */
static grt_status* run(grt_kernel_ctx* ctx, const grt_gemm_plan* p, const grt_tensor* x,
                       const grt_tensor* y, grt_tensor* out) {
  grt_dtype t = x->dtype;
  if (!grt_cpu_is_half(t))
    return grt_gemm_run(p, t, grt_tensor_data(x), grt_tensor_data(y), grt_tensor_data(out),
                        ctx->intra_op);
  grt_tensor *xf = NULL, *yf = NULL, *cf = NULL;
  grt_status* s = grt_cpu_widen_tensor(ctx, x, &xf);
  if (!s) s = grt_cpu_widen_tensor(ctx, y, &yf);
  if (!s) s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &out->shape, &cf);
  if (!s)
    s = grt_gemm_run(p, GRT_FLOAT32, grt_tensor_data(xf), grt_tensor_data(yf), grt_tensor_data(cf),
                     ctx->intra_op);
  if (!s)
    grt_cpu_narrow(t, grt_tensor_data(cf), grt_tensor_data(out), grt_tensor_num_elements(out));
  grt_tensor_free(xf);
  grt_tensor_free(yf);
  grt_tensor_free(cf);
  return s;
}

/* m, k and n of the product of the last two dims of x and y, transposed
 * where ta and tb say; the inner dims must agree. */
static grt_status* plan_product(const grt_tensor* x, const grt_tensor* y, bool ta, bool tb,
                                grt_gemm_plan* p) {
  const grt_shape *xs = &x->shape, *ys = &y->shape;
  p->ta = ta;
  p->tb = tb;
  p->m = xs->dims[xs->rank - (ta ? 1 : 2)];
  p->k = xs->dims[xs->rank - (ta ? 2 : 1)];
  p->n = ys->dims[ys->rank - (tb ? 2 : 1)];
  if (ys->dims[ys->rank - (tb ? 1 : 2)] != p->k) return size_incompatible(x, y);
  return NULL;
}

static grt_status* matmul(grt_kernel_ctx* ctx) {
  const grt_tensor *x, *y;
  GRT_RETURN_IF_ERROR(inputs(ctx, &x, &y));
  bool ta, tb;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "transpose_a", &ta));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "transpose_b", &tb));
  char buf[GRT_SHAPE_STR_MAX];
  if (x->shape.rank != 2)
    return GRT_ERROR(INVALID_ARGUMENT, "In[0] is not a matrix. Instead it has shape %s",
                     grt_shape_str(&x->shape, buf, sizeof buf));
  if (y->shape.rank != 2)
    return GRT_ERROR(INVALID_ARGUMENT, "In[1] is not a matrix. Instead it has shape %s",
                     grt_shape_str(&y->shape, buf, sizeof buf));
  grt_gemm_plan p = {0};
  GRT_RETURN_IF_ERROR(plan_product(x, y, ta, tb, &p));
  p.batch = 1;
  int64_t dims[2] = {p.m, p.n};
  grt_shape os = grt_shape_make(2, dims);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &os, &out));
  grt_mm_call c = {.m = p.m,
                   .k = p.k,
                   .n = p.n,
                   .ta = ta,
                   .tb = tb,
                   .a = grt_tensor_data(x),
                   .b = grt_tensor_data(y),
                   .out = grt_tensor_data(out)};
  if (x->dtype == GRT_FLOAT32 && grt_matmul_pick_gemv(p.m, p.k, p.n))
    return grt_mm_gemv_run(ctx, &c);
  bool dnnl = x->dtype == GRT_FLOAT32 && grt_matmul_pick_dnnl(p.m, p.k, p.n, ta);
  bool if_packed =
      x->dtype == GRT_FLOAT32 && !dnnl && grt_matmul_pick_dnnl_if_packed(p.m, p.k, p.n, ta);
  if (dnnl || if_packed) {
    grt_mm_weights(ctx, &c); /* packed and kept: a Const or an unchanging variable */
    if (dnnl || c.const_b) return grt_mm_dnnl_run(ctx, ctx->state, &c);
  }
  return run(ctx, &p, x, y, out);
}

static grt_status* batch_matmul_v2(grt_kernel_ctx* ctx) {
  const grt_tensor *x, *y;
  GRT_RETURN_IF_ERROR(inputs(ctx, &x, &y));
  bool ax, ay;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "adj_x", &ax));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "adj_y", &ay));
  const grt_shape *xs = &x->shape, *ys = &y->shape;
  if (xs->rank < 2)
    return GRT_ERROR(INVALID_ARGUMENT, "In[0] ndims must be >= 2: %d", (int)xs->rank);
  if (ys->rank < 2)
    return GRT_ERROR(INVALID_ARGUMENT, "In[1] ndims must be >= 2: %d", (int)ys->rank);
  grt_gemm_plan p = {0};
  GRT_RETURN_IF_ERROR(plan_product(x, y, ax, ay, &p));
  int32_t xr = xs->rank, yr = ys->rank;

  /* Batch dimensions, aligned from the end; strides in whole matrices. */
  int32_t bx = xr - 2, by = yr - 2;
  p.brank = bx > by ? bx : by;
  int64_t sx = 1, sy = 1;
  p.batch = 1;
  for (int32_t d = p.brank - 1; d >= 0; d--) {
    int32_t ix = d - (p.brank - bx), iy = d - (p.brank - by);
    int64_t dx = ix >= 0 ? xs->dims[ix] : 1, dy = iy >= 0 ? ys->dims[iy] : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT,
                       "In[0] and In[1] must have compatible batch dimensions: %s vs. %s",
                       grt_shape_str(xs, a, sizeof a), grt_shape_str(ys, b, sizeof b));
    }
    p.bdims[d] = dx == 1 ? dy : dx;
    p.xstride[d] = dx == 1 ? 0 : sx;
    p.ystride[d] = dy == 1 ? 0 : sy;
    sx *= dx;
    sy *= dy;
    p.batch *= p.bdims[d];
  }
  grt_shape os = {0};
  os.rank = p.brank + 2;
  for (int32_t d = 0; d < p.brank; d++) os.dims[d] = p.bdims[d];
  os.dims[p.brank] = p.m;
  os.dims[p.brank + 1] = p.n;
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &os, &out));
  return run(ctx, &p, x, y, out);
}

/* clang-format off */
GRT_CPU_KERNEL_TABLE(matmul,
                     {"MatMul", matmul, grt_mm_state_new, grt_mm_state_free, 0},
                     {"BatchMatMulV2", batch_matmul_v2, NULL, NULL, 0},
                     {"_FusedMatMul", grt_cpu_fused_matmul, grt_mm_state_new, grt_mm_state_free, 0},
                     {"_FusedConv2D", grt_cpu_fused_conv2d, grt_dnnl_state_new, grt_dnnl_state_free, 0},
                     {"_FusedDepthwiseConv2dNative", grt_cpu_fused_depthwise_conv2d, grt_dnnl_state_new, grt_dnnl_state_free, 0});
/* clang-format on */
