/* MatMul and BatchMatMulV2 through cuBLAS on the device's compute stream.
 * grt's tensors are row-major and cuBLAS is column-major, so C = op(A) op(B)
 * is computed as C^T = op(B)^T op(A)^T with the operands swapped. TF32 is
 * off unless GRT_CUDA_ALLOW_TF32=1 (TensorFlow 1.x computes float32 in
 * float32).
 *
 * UNVERIFIED on a GPU. */
#include <string.h>

#include "cuda_internal.h"
#include "cuda_lib_search.h"

#define GRT_STR_(x) #x
#define GRT_STR(x) GRT_STR_(x)

grt_cublas_api grt_cublas;

#define CUBLAS_ROW(field, symbol) GRT_LAZY_ROW(grt_cublas_api, field, symbol)
static const grt_lazy_symbol kCublasSymbols[] = {GRT_CUBLAS_CALLS(CUBLAS_ROW)};

/* The soname of the cuBLAS these headers declare. */
static const char* const kCublasNames[] = {"libcublas.so." GRT_STR(CUBLAS_VER_MAJOR), NULL};
/* cuBLAS needs cuBLASLt, from the same wheel. */
static const char* const kCublasCompanions[] = {"libcublasLt.so." GRT_STR(CUBLAS_VER_MAJOR), NULL};
static const char* const kCublasPackages[] = {"nvidia/cublas/lib", "nvidia/cu13/lib", NULL};

static grt_lazy_lib g_cublas = {
    .what = "cuBLAS",
    .sonames = kCublasNames,
    .symbols = kCublasSymbols,
    .n_symbols = sizeof kCublasSymbols / sizeof kCublasSymbols[0],
    .table = &grt_cublas,
    GRT_CUDA_LIB_SEARCH(kCublasPackages, kCublasCompanions),
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

grt_status* grt_cublas_open(const char* needed_for) {
  return grt_lazy_lib_open(&g_cublas, needed_for);
}

static grt_status* blas_error(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return NULL;
  return grt_status_new(GRT_INTERNAL, "%s failed: cuBLAS status %d", what, (int)s);
}

/* One (or `batch` strided) row-major products of [m,k] x [k,n]. */
static grt_status* gemm(cuda_device* d, grt_dtype dt, bool ta, bool tb, int64_t m, int64_t n,
                        int64_t k, const void* a, const void* b, void* c, int64_t batch,
                        int64_t stride_a, int64_t stride_b, int64_t stride_c) {
  cublasOperation_t op_a = ta ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lda = (int)(ta ? m : k), ldb = (int)(tb ? k : n), ldc = (int)n;
  cublasStatus_t s;
  pthread_mutex_lock(&d->blas_mu);
  if (dt == GRT_FLOAT32) {
    const float one = 1.0f, zero = 0.0f;
    s = grt_cublas.SgemmStridedBatched(d->blas, op_b, op_a, (int)n, (int)m, (int)k, &one, b, ldb,
                                       stride_b, a, lda, stride_a, &zero, c, ldc, stride_c,
                                       (int)batch);
  } else {
    const double one = 1.0, zero = 0.0;
    s = grt_cublas.DgemmStridedBatched(d->blas, op_b, op_a, (int)n, (int)m, (int)k, &one, b, ldb,
                                       stride_b, a, lda, stride_a, &zero, c, ldc, stride_c,
                                       (int)batch);
  }
  pthread_mutex_unlock(&d->blas_mu);
  return blas_error(s,
                    dt == GRT_FLOAT32 ? "cublasSgemmStridedBatched" : "cublasDgemmStridedBatched");
}

static grt_status* check_dtype(const char* op, grt_dtype dt) {
  if (dt == GRT_FLOAT32 || dt == GRT_FLOAT64) return NULL;
  return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not handle %s yet", op,
                        grt_dtype_name(dt));
}

static bool fits_int(int64_t v) { return v >= 0 && v <= 0x7fffffff; }

static grt_status* matmul_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  bool ta = false, tb = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "transpose_a", &ta);
  if (!st) st = grt_kernel_attr_bool(ctx, "transpose_b", &tb);
  if (!st) st = check_dtype("MatMul", grt_tensor_dtype(a));
  if (st) return st;
  if (grt_tensor_rank(a) != 2 || grt_tensor_rank(b) != 2)
    return grt_status_new(GRT_INVALID_ARGUMENT, "In[0] and In[1] must be matrices");
  int64_t m = grt_tensor_dim(a, ta ? 1 : 0), k = grt_tensor_dim(a, ta ? 0 : 1);
  int64_t k2 = grt_tensor_dim(b, tb ? 1 : 0), n = grt_tensor_dim(b, tb ? 0 : 1);
  if (k != k2)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Matrix size-incompatible: In[0] k=%lld, In[1] k=%lld", (long long)k,
                          (long long)k2);
  if (!fits_int(m) || !fits_int(n) || !fits_int(k))
    return grt_status_new(GRT_UNIMPLEMENTED, "MatMul dimensions past 2^31 on the GPU");
  grt_shape shape = {2, {m, n}};
  grt_tensor* out;
  st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(a), &shape, &out);
  if (st || m == 0 || n == 0) return st;
  cuda_device* d = grt_cuda_device(ctx->stream);
  if (k == 0)
    return grt_cuda_error(cudaMemsetAsync(grt_tensor_data(out), 0, grt_tensor_byte_size(out),
                                          grt_cuda_stream(ctx->stream)),
                          "cudaMemsetAsync");
  return gemm(d, grt_tensor_dtype(a), ta, tb, m, n, k, grt_tensor_data(a), grt_tensor_data(b),
              grt_tensor_data(out), 1, 0, 0, 0);
}

/* BatchMatMulV2: batch dimensions broadcast (NumPy rules); each batch is a
 * product of the last two dimensions. Equal batch shapes go in one strided
 * call; broadcast ones one call per output batch. */
static grt_status* batch_matmul_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* y = ctx->inputs[1];
  bool adj_x = false, adj_y = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "adj_x", &adj_x);
  if (!st) st = grt_kernel_attr_bool(ctx, "adj_y", &adj_y);
  grt_dtype dt = grt_tensor_dtype(x);
  if (!st) st = check_dtype("BatchMatMulV2", dt);
  if (st) return st;
  int32_t rx = grt_tensor_rank(x), ry = grt_tensor_rank(y);
  if (rx < 2 || ry < 2)
    return grt_status_new(GRT_INVALID_ARGUMENT, "BatchMatMulV2 needs inputs of rank 2 or more");
  int64_t m = grt_tensor_dim(x, rx - (adj_x ? 1 : 2)), k = grt_tensor_dim(x, rx - (adj_x ? 2 : 1));
  int64_t k2 = grt_tensor_dim(y, ry - (adj_y ? 1 : 2)), n = grt_tensor_dim(y, ry - (adj_y ? 2 : 1));
  if (k != k2)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Matrix size-incompatible: In[0] k=%lld, In[1] k=%lld", (long long)k,
                          (long long)k2);
  if (!fits_int(m) || !fits_int(n) || !fits_int(k))
    return grt_status_new(GRT_UNIMPLEMENTED, "BatchMatMulV2 dimensions past 2^31 on the GPU");
  /* Broadcast the batch dimensions. */
  int32_t bx = rx - 2, by = ry - 2, br = bx > by ? bx : by;
  grt_shape out = {br + 2, {0}};
  int64_t xs[GRT_MAX_RANK], ys[GRT_MAX_RANK], dims[GRT_MAX_RANK];
  int64_t sx = m * k, sy = k * n, batch = 1;
  bool same = bx == by;
  for (int32_t i = br - 1; i >= 0; i--) {
    int32_t ix = i - (br - bx), iy = i - (br - by);
    int64_t dx = ix >= 0 ? grt_tensor_dim(x, ix) : 1, dy = iy >= 0 ? grt_tensor_dim(y, iy) : 1;
    if (dx != dy && dx != 1 && dy != 1)
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "In[0] and In[1] must have compatible batch dimensions");
    if (dx != dy) same = false;
    dims[i] = dx > dy ? dx : dy;
    xs[i] = dx == 1 ? 0 : sx;
    ys[i] = dy == 1 ? 0 : sy;
    sx *= dx;
    sy *= dy;
    out.dims[i] = dims[i];
    batch *= dims[i];
  }
  out.dims[br] = m;
  out.dims[br + 1] = n;
  grt_tensor* o;
  st = grt_kernel_alloc_output(ctx, 0, dt, &out, &o);
  if (st || batch == 0 || m == 0 || n == 0) return st;
  cuda_device* d = grt_cuda_device(ctx->stream);
  if (k == 0)
    return grt_cuda_error(cudaMemsetAsync(grt_tensor_data(o), 0, grt_tensor_byte_size(o),
                                          grt_cuda_stream(ctx->stream)),
                          "cudaMemsetAsync");
  if (!fits_int(batch)) return grt_status_new(GRT_UNIMPLEMENTED, "more than 2^31 batches");
  size_t es = grt_dtype_size(dt);
  const char* pa = grt_tensor_data(x);
  const char* pb = grt_tensor_data(y);
  char* pc = grt_tensor_data(o);
  if (same) return gemm(d, dt, adj_x, adj_y, m, n, k, pa, pb, pc, batch, m * k, k * n, m * n);
  for (int64_t bi = 0; bi < batch && !st; bi++) {
    int64_t rem = bi, ox = 0, oy = 0;
    for (int32_t i = br - 1; i >= 0; i--) {
      int64_t c = rem % dims[i];
      rem /= dims[i];
      ox += c * xs[i];
      oy += c * ys[i];
    }
    st = gemm(d, dt, adj_x, adj_y, m, n, k, pa + ox * (int64_t)es, pb + oy * (int64_t)es,
              pc + bi * m * n * (int64_t)es, 1, 0, 0, 0);
  }
  return st;
}

/* MatMul into output 0, for _FusedMatMul (fused.cu). */
grt_status* grt_cuda_matmul_forward(grt_kernel_ctx* ctx) { return matmul_compute(ctx); }

static const grt_op_kernel kKernels[] = {
    {"MatMul", matmul_compute, NULL, NULL, 0},
    {"BatchMatMulV2", batch_matmul_compute, NULL, NULL, 0},
};

const grt_op_kernel* grt_cuda_matmul_kernels(int* n) {
  *n = (int)(sizeof kKernels / sizeof kKernels[0]);
  return kKernels;
}
