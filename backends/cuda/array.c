/* Array kernels on the GPU that move no arithmetic: pass-through (Identity,
 * StopGradient), NoOp, Placeholder, ZerosLike, and the reshapes, which copy
 * the elements into a tensor of the new shape on the compute stream (the
 * public API has no view of another tensor's buffer). HostMemory outputs
 * (the int32 registrations) are copied on the host.
 *
 * Checked on an H200 by the GPU suite. */
#include <string.h>

#include "cuda_internal.h"
#include "kept_tensor.h"

static grt_status* pass_through(grt_kernel_ctx* ctx) {
  grt_kernel_set_output(ctx, 0, ctx->inputs[0]);
  return NULL;
}

static grt_status* noop(grt_kernel_ctx* ctx) { return NULL; }

static grt_status* placeholder(grt_kernel_ctx* ctx) {
  grt_dtype dt = GRT_DTYPE_INVALID;
  grt_status_free(grt_kernel_attr_type(ctx, "dtype", &dt));
  return grt_status_new(GRT_INVALID_ARGUMENT,
                        "You must feed a value for placeholder tensor with dtype %s",
                        grt_dtype_name(dt));
}

static grt_shape shape_of(const grt_tensor* t) {
  grt_shape s = {grt_tensor_rank(t), {0}};
  for (int32_t i = 0; i < s.rank; i++) s.dims[i] = grt_tensor_dim(t, i);
  return s;
}

static grt_status* zeros_like(grt_kernel_ctx* ctx) {
  grt_shape s = shape_of(ctx->inputs[0]);
  grt_tensor* out;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(ctx->inputs[0]), &s, &out);
  if (st || !grt_tensor_byte_size(out)) return st;
  if (ctx->host_outputs & 1) {
    memset(grt_tensor_data(out), 0, grt_tensor_byte_size(out));
    return NULL;
  }
  return grt_cuda_error(cudaMemsetAsync(grt_tensor_data(out), 0, grt_tensor_byte_size(out),
                                        grt_cuda_stream(ctx->stream)),
                        "cudaMemsetAsync");
}

/* The elements of input 0 in a new output of shape s. */
static grt_status* copy_as(grt_kernel_ctx* ctx, const grt_shape* s) {
  const grt_tensor* in = ctx->inputs[0];
  grt_tensor* out;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(in), s, &out);
  size_t n = grt_tensor_byte_size(in);
  if (st || !n) return st;
  if (ctx->host_outputs & 1) {
    memcpy(grt_tensor_data(out), grt_tensor_data(in), n);
    return NULL;
  }
  return grt_cuda_error(cudaMemcpyAsync(grt_tensor_data(out), grt_tensor_data(in), n,
                                        cudaMemcpyDeviceToDevice, grt_cuda_stream(ctx->stream)),
                        "cudaMemcpyAsync");
}

/* An int32 or int64 vector in host memory, element i. */
static int64_t host_int(const grt_tensor* t, int64_t i) {
  return grt_tensor_dtype(t) == GRT_INT32 ? ((const int32_t*)grt_tensor_data(t))[i]
                                          : ((const int64_t*)grt_tensor_data(t))[i];
}

static grt_status* reshape(grt_kernel_ctx* ctx) {
  const grt_tensor* in = ctx->inputs[0];
  const grt_tensor* sh = ctx->inputs[1];
  int64_t n = grt_tensor_num_elements(sh);
  if (grt_tensor_rank(sh) > 1 || n > GRT_MAX_RANK ||
      (grt_tensor_dtype(sh) != GRT_INT32 && grt_tensor_dtype(sh) != GRT_INT64))
    return grt_status_new(GRT_INVALID_ARGUMENT, "shape must be a vector of at most %d int32/int64",
                          GRT_MAX_RANK);
  int64_t want[GRT_MAX_RANK];
  for (int64_t i = 0; i < n; i++) want[i] = host_int(sh, i);
  grt_shape in_shape = shape_of(in), s;
  grt_status* st = grt_op_reshape_resolve(&in_shape, want, (int32_t)n, &s);
  if (st) return st;
  return copy_as(ctx, &s);
}

static grt_status* expand_dims(grt_kernel_ctx* ctx) {
  const grt_tensor* in = ctx->inputs[0];
  const grt_tensor* dim = ctx->inputs[1];
  if (grt_tensor_num_elements(dim) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "'dim' must be a tensor with a single value");
  grt_shape in_shape = shape_of(in), s;
  grt_status* st = grt_op_expand_dims_shape(&in_shape, host_int(dim, 0), &s);
  if (st) return st;
  return copy_as(ctx, &s);
}

/* The graph's value. In host memory (an int32 Const) copied from the graph
 * on every run. On the device, a copy made on the compute stream on the
 * first run and kept in the node's state (kept_tensor.h) for every
 * later run, as TensorFlow's GPU Const holds its tensor: the value is
 * uploaded once per session rather than on every run. (The host tensor
 * lives as long as the graph, so the asynchronous copy may read it after
 * this returns.) */
static grt_status* constant(grt_kernel_ctx* ctx) {
  const grt_tensor* v;
  grt_status* st = grt_kernel_attr_tensor(ctx, "value", &v);
  if (st) return st;
  grt_shape s = shape_of(v);
  grt_dtype dt = grt_tensor_dtype(v);
  size_t n = grt_tensor_byte_size(v);
  if (ctx->host_outputs & 1) { /* small: copied from the graph each run, as before */
    grt_tensor* out;
    st = grt_kernel_alloc_output(ctx, 0, dt, &s, &out);
    if (!st && n) memcpy(grt_tensor_data(out), grt_tensor_data(v), n);
    return st;
  }
  grt_cuda_kept* k = ctx->state;
  if (k) {
    pthread_mutex_lock(&k->mu);
    grt_tensor* kept = grt_cuda_kept_find(k, v, dt, &s);
    if (kept) {
      grt_kernel_set_output(ctx, 0, kept);
      pthread_mutex_unlock(&k->mu);
      return NULL;
    }
  }
  grt_tensor* out;
  st = grt_kernel_alloc_output(ctx, 0, dt, &s, &out);
  if (!st && n)
    st = grt_cuda_error(cudaMemcpyAsync(grt_tensor_data(out), grt_tensor_data(v), n,
                                        cudaMemcpyHostToDevice, grt_cuda_stream(ctx->stream)),
                        "cudaMemcpyAsync");
  if (k) {
    if (!st) grt_cuda_kept_store(k, out, v, dt, &s);
    pthread_mutex_unlock(&k->mu);
  }
  return st;
}

static const grt_op_kernel kKernels[] = {
    {"Const", constant, grt_cuda_kept_new, grt_cuda_kept_free, 0},
    {"Identity", pass_through, NULL, NULL, GRT_KERNEL_CHEAP},
    {"StopGradient", pass_through, NULL, NULL, GRT_KERNEL_CHEAP},
    {"NoOp", noop, NULL, NULL, GRT_KERNEL_CHEAP},
    {"Placeholder", placeholder, NULL, NULL, GRT_KERNEL_CHEAP},
    {"ZerosLike", zeros_like, NULL, NULL, 0},
    {"Reshape", reshape, NULL, NULL, 0},
    {"ExpandDims", expand_dims, NULL, NULL, 0},
};

const grt_op_kernel* grt_cuda_array_kernels(int* n) {
  *n = (int)(sizeof kKernels / sizeof kKernels[0]);
  return kKernels;
}
