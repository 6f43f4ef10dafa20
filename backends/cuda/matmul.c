/* MatMul and BatchMatMulV2 through cuBLAS on the device's compute stream.
 * grt's tensors are row-major and cuBLAS is column-major, so C = op(A) op(B)
 * is computed as C^T = op(B)^T op(A)^T with the operands swapped. TF32 is
 * off unless GRT_CUDA_ALLOW_TF32=1 (TensorFlow 1.x computes float32 in
 * float32).
 *
 * Checked on an H200 by the GPU suite. */
#include <string.h>

#include "cuda_internal.h"
#include "cuda_lib_search.h"

#define GRT_STR_(x) #x
#define GRT_STR(x) GRT_STR_(x)

grt_cublas_api grt_cublas;

#define CUBLAS_ROW(field, symbol) GRT_LAZY_ROW(grt_cublas_api, field, symbol)
static const grt_lazy_symbol kCublasSymbols[] = {
    GRT_CUBLAS_CALLS(CUBLAS_ROW) CUBLAS_ROW(GemmStridedBatchedEx, cublasGemmStridedBatchedEx)};
_Static_assert(__builtin_types_compatible_p(grt_cublas_gemm_ex_fn,
                                            __typeof__(&cublasGemmStridedBatchedEx)),
               "grt_cublas_gemm_ex_fn is cublasGemmStridedBatchedEx's type");

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

/* The dtypes MatMul and BatchMatMulV2 take, with cuBLAS's element type
 * and compute type for each: float16 and bfloat16 multiply in float32
 * (CUBLAS_COMPUTE_32F: float32 accumulation and scalars, TensorFlow's
 * default for half GEMMs), float32 in float32 (TF32 only when the device's
 * math mode allows it: GRT_CUDA_ALLOW_TF32=1), float64 in float64. The
 * dispatch looks dtypes up here and the declaration (kDtypes) is this
 * table's mask, so the two cannot drift. */
static const float kOneF = 1.0f, kZeroF = 0.0f;
static const double kOneD = 1.0, kZeroD = 0.0;
#define GEMM_TYPES(X)                                               \
  X(GRT_FLOAT16, CUDA_R_16F, CUBLAS_COMPUTE_32F, &kOneF, &kZeroF)   \
  X(GRT_BFLOAT16, CUDA_R_16BF, CUBLAS_COMPUTE_32F, &kOneF, &kZeroF) \
  X(GRT_FLOAT32, CUDA_R_32F, CUBLAS_COMPUTE_32F, &kOneF, &kZeroF)   \
  X(GRT_FLOAT64, CUDA_R_64F, CUBLAS_COMPUTE_64F, &kOneD, &kZeroD)

typedef struct {
  grt_dtype dtype;
  cudaDataType type;
  cublasComputeType_t compute;
  const void* one; /* alpha and beta, in the compute type's scalar type */
  const void* zero;
} gemm_type;

#define GEMM_ROW(dt, ty, comp, one, zero) {dt, ty, comp, one, zero},
static const gemm_type kGemmTypes[] = {GEMM_TYPES(GEMM_ROW)};
#define GEMM_BIT(dt, ty, comp, one, zero) | (1u << dt)
#define GEMM_MASK (0u GEMM_TYPES(GEMM_BIT))

/* Points *out at the row for `dt`; UNIMPLEMENTED naming `op` if none. */
static grt_status* gemm_type_of(const char* op, grt_dtype dt, const gemm_type** out) {
  for (size_t i = 0; i < sizeof kGemmTypes / sizeof kGemmTypes[0]; i++)
    if (kGemmTypes[i].dtype == dt) {
      *out = &kGemmTypes[i];
      return NULL;
    }
  return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not take %s", op,
                        grt_dtype_name(dt));
}

/* One (or `batch` strided) row-major products of [m,k] x [k,n]. */
static grt_status* gemm(cuda_device* d, const gemm_type* t, bool ta, bool tb, int64_t m, int64_t n,
                        int64_t k, const void* a, const void* b, void* c, int64_t batch,
                        int64_t stride_a, int64_t stride_b, int64_t stride_c) {
  cublasOperation_t op_a = ta ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lda = (int)(ta ? m : k), ldb = (int)(tb ? k : n), ldc = (int)n;
  /* With TF32 allowed, float32 asks for it by compute type too: the
   * handle's math mode alone gave 0.79 of cublasSgemm's TF32 throughput
   * on an 8192^3 product (H200, the second GPU run). */
  cublasComputeType_t compute = t->compute;
  if (t->dtype == GRT_FLOAT32 && d->tf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  pthread_mutex_lock(&d->blas_mu);
  cublasStatus_t s = grt_cublas.GemmStridedBatchedEx(
      d->blas, op_b, op_a, (int)n, (int)m, (int)k, t->one, b, t->type, ldb, stride_b, a, t->type,
      lda, stride_a, t->zero, c, t->type, ldc, stride_c, (int)batch, compute, CUBLAS_GEMM_DEFAULT);
  pthread_mutex_unlock(&d->blas_mu);
  return blas_error(s, "cublasGemmStridedBatchedEx");
}

static bool fits_int(int64_t v) { return v >= 0 && v <= 0x7fffffff; }

static grt_status* matmul_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  bool ta = false, tb = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "transpose_a", &ta);
  if (!st) st = grt_kernel_attr_bool(ctx, "transpose_b", &tb);
  const gemm_type* t = NULL;
  if (!st) st = gemm_type_of("MatMul", grt_tensor_dtype(a), &t);
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
  return gemm(d, t, ta, tb, m, n, k, grt_tensor_data(a), grt_tensor_data(b), grt_tensor_data(out),
              1, 0, 0, 0);
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
  const gemm_type* t = NULL;
  if (!st) st = gemm_type_of("BatchMatMulV2", dt, &t);
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
  if (same) return gemm(d, t, adj_x, adj_y, m, n, k, pa, pb, pc, batch, m * k, k * n, m * n);
  for (int64_t bi = 0; bi < batch && !st; bi++) {
    int64_t rem = bi, ox = 0, oy = 0;
    for (int32_t i = br - 1; i >= 0; i--) {
      int64_t c = rem % dims[i];
      rem /= dims[i];
      ox += c * xs[i];
      oy += c * ys[i];
    }
    st = gemm(d, t, adj_x, adj_y, m, n, k, pa + ox * (int64_t)es, pb + oy * (int64_t)es,
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

static const grt_cuda_dtypes kDtypes[] = {
    {"MatMul", "T", GEMM_MASK},
    {"BatchMatMulV2", "T", GEMM_MASK},
};

const grt_cuda_dtypes* grt_cuda_matmul_dtypes(int* n) {
  *n = (int)(sizeof kDtypes / sizeof kDtypes[0]);
  return kDtypes;
}
