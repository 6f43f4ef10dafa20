// The convolutions on the GPU through cuDNN 9: Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter and DepthwiseConv2dNative (cuDNN's grouped
// convolution, one group per input channel), NHWC and NCHW, in float32,
// float16 and bfloat16 (computed in float32, as TensorFlow) and float64
// (which cuDNN runs in NCHW: an NHWC graph's tensors are converted around it).
//
// grt's filters are HWIO; cuDNN takes them as KCRS (OIHW) or KRSC (OHWI),
// neither of which HWIO is, so the filter is transposed into a scratch
// tensor on every run (and the filter gradient back), except a Const filter
// (the session's rewrite marks the node `_grt_const_b`): that one is
// transposed on the first run and kept in the node's state (kept_tensor.h).
// cuDNN pads symmetrically; TensorFlow's SAME (and EXPLICIT) padding may
// put one more row or column after than before, so the part beyond the
// symmetric padding is done by hand: the input is copied into a zeroed
// larger tensor (and the input gradient computed for that larger tensor,
// then cut back). As in TensorFlow 1.x, no TF32 unless GRT_CUDA_ALLOW_TF32=1
// (cuDNN's FMA math otherwise, for float32).
//
// Descriptors and algorithms are chosen once per convolution and device,
// as TensorFlow's autotune cache does: the device's cache (dnn_cache.h)
// maps the pass's full key to its descriptors and the algorithm chosen,
// the first of cuDNN's ranked heuristic choices that runs with a workspace
// the allocator can give. A failed attempt's CUDA error is cleared.
//
// tests/gpu/gpu_suite_ops.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_copy.cuh"
#include "cudnn_handle.h"
#include "kept_tensor.h"

namespace grt_cuda {
namespace {

struct ConvGeom {
  grt_window w;  // grt_op_window: the CPU's and the shape function's reading
  int64_t n, ih, iw, ic;
  int64_t kh, kw, fic, oc, groups;
  int64_t oh, ow;
  int64_t sym[2];    // symmetric padding cuDNN applies
  int64_t extra[2];  // rows/columns of zeros added after the input by hand
  int64_t extra_before[2];
  bool run_nchw;  // cuDNN runs in NCHW (the user's NHWC is converted around it)
  grt_dtype dtype;
  size_t esize;
};

grt_shape Shape4(bool nchw, int64_t n, int64_t c, int64_t h, int64_t w) {
  grt_shape s = {4, {0}};
  if (nchw) {
    s.dims[0] = n;
    s.dims[1] = c;
    s.dims[2] = h;
    s.dims[3] = w;
  } else {
    s.dims[0] = n;
    s.dims[1] = h;
    s.dims[2] = w;
    s.dims[3] = c;
  }
  return s;
}

grt_status* MakeGeom(const grt_kernel_ctx* ctx, const grt_shape& in, const grt_shape& f,
                     bool depthwise, ConvGeom* g) {
  grt_status* st = grt_op_window(ctx, GRT_WINDOW_DILATIONS, &g->w);
  if (st) return st;
  // Ranks and depths: the CPU's checks (grt_op_conv_depths).
  if ((st = grt_op_conv_depths(&in, &f, g->w.nchw, depthwise, &g->groups, &g->oc))) return st;
  bool nchw = g->w.nchw;
  g->n = in.dims[0];
  g->ic = in.dims[nchw ? 1 : 3];
  g->ih = in.dims[nchw ? 2 : 1];
  g->iw = in.dims[nchw ? 3 : 2];
  g->kh = f.dims[0];
  g->kw = f.dims[1];
  g->fic = depthwise ? 1 : f.dims[2];
  int64_t in_hw[2] = {g->ih, g->iw}, k[2] = {g->kh, g->kw}, out[2];
  for (int d = 0; d < 2; d++) {
    int64_t before, after;
    if ((st = grt_window_dim(&g->w, d, in_hw[d], k[d], &out[d], &before, &after))) return st;
    g->sym[d] = before < after ? before : after;
    g->extra_before[d] = before - g->sym[d];
    g->extra[d] = after - g->sym[d];
  }
  g->oh = out[0];
  g->ow = out[1];
  g->run_nchw = nchw;
  return NULL;
}

bool Padded(const ConvGeom& g) {
  return g.extra[0] || g.extra[1] || g.extra_before[0] || g.extra_before[1];
}
int64_t PaddedH(const ConvGeom& g) { return g.ih + g.extra_before[0] + g.extra[0]; }
int64_t PaddedW(const ConvGeom& g) { return g.iw + g.extra_before[1] + g.extra[1]; }

// The box between the input (dense) and its place inside the padded input.
Box PadBox(const ConvGeom& g, int64_t* offset) {
  int64_t ph = PaddedH(g), pw = PaddedW(g);
  grt_shape in = Shape4(g.w.nchw, g.n, g.ic, g.ih, g.iw);
  grt_shape pad = Shape4(g.w.nchw, g.n, g.ic, ph, pw);
  Box b = Dense(4, in.dims);
  Box p = Dense(4, pad.dims);
  for (int k = 0; k < 4; k++) b.dst_strides[k] = p.dst_strides[k];
  int h = g.w.nchw ? 2 : 1;
  *offset = g.extra_before[0] * p.dst_strides[h] + g.extra_before[1] * p.dst_strides[h + 1];
  return b;
}

// The input with the hand-made padding (a new scratch tensor).
grt_status* PadInput(grt_kernel_ctx* ctx, const ConvGeom& g, const grt_tensor* x,
                     grt_tensor** out) {
  grt_shape s = Shape4(g.w.nchw, g.n, g.ic, PaddedH(g), PaddedW(g));
  grt_status* st = grt_kernel_alloc_temp(ctx, g.dtype, &s, out);
  if (st) return st;
  cudaStream_t str = grt_cuda_stream(ctx->stream);
  st = grt_cuda_error(cudaMemsetAsync(grt_tensor_data(*out), 0, grt_tensor_byte_size(*out), str),
                      "cudaMemsetAsync");
  int64_t offset;
  Box b = PadBox(g, &offset);
  if (!st)
    st = CopyBox(ctx, false, g.esize, b, grt_tensor_num_elements(x), grt_tensor_data(x),
                 (char*)grt_tensor_data(*out) + offset * (int64_t)g.esize, "pad");
  if (st) {
    grt_tensor_free(*out);
    *out = NULL;
  }
  return st;
}

// HWIO [kh, kw, fic, oc] -> OIHW [oc, fic, kh, kw] (to_oihw), or back.
grt_status* TransposeFilter(grt_kernel_ctx* ctx, const ConvGeom& g, const void* src, void* dst,
                            bool to_oihw) {
  Box b = {};
  b.rank = 4;
  if (to_oihw) {
    int64_t dims[4] = {g.oc, g.fic, g.kh, g.kw};
    b = Dense(4, dims);
    b.src_strides[0] = 1;
    b.src_strides[1] = g.oc;
    b.src_strides[2] = g.kw * g.fic * g.oc;
    b.src_strides[3] = g.fic * g.oc;
  } else {
    int64_t dims[4] = {g.kh, g.kw, g.fic, g.oc};
    b = Dense(4, dims);
    b.src_strides[0] = g.kw;
    b.src_strides[1] = 1;
    b.src_strides[2] = g.kh * g.kw;
    b.src_strides[3] = g.fic * g.kh * g.kw;
  }
  return CopyBox(ctx, false, g.esize, b, g.kh * g.kw * g.fic * g.oc, src, dst, "filter transpose");
}

// The filter in OIHW for a forward or backward-data pass: transposed into
// a temporary on every call, or, when the filter is a Const (the session's
// rewrite marks the node), once per session into the node's state
// (kept_tensor.h) and shared by every later call. *fk is the caller's to
// free either way.
grt_status* FilterOihw(grt_kernel_ctx* ctx, const ConvGeom& g, const grt_tensor* f,
                       grt_tensor** fk) {
  grt_shape fs = {4, {g.oc, g.fic, g.kh, g.kw}};
  grt_cuda_kept* k = grt_cuda_const_weights(ctx) ? (grt_cuda_kept*)ctx->state : NULL;
  if (!k) {
    grt_status* st = grt_kernel_alloc_temp(ctx, g.dtype, &fs, fk);
    if (!st) st = TransposeFilter(ctx, g, grt_tensor_data(f), grt_tensor_data(*fk), true);
    return st;
  }
  grt_shape from = ShapeOf(f);
  grt_status* st = NULL;
  pthread_mutex_lock(&k->mu);
  grt_tensor* kept = grt_cuda_kept_find(k, grt_tensor_data(f), g.dtype, &from);
  if (kept) {
    *fk = grt_tensor_ref(kept);
  } else {
    st = grt_kernel_alloc_temp(ctx, g.dtype, &fs, fk);
    if (!st) st = TransposeFilter(ctx, g, grt_tensor_data(f), grt_tensor_data(*fk), true);
    if (!st) grt_cuda_kept_store(k, *fk, grt_tensor_data(f), g.dtype, &from);
  }
  pthread_mutex_unlock(&k->mu);
  return st;
}

// A [n, c, h, w] tensor from NHWC to NCHW (to_nchw) or back, for the
// passes cuDNN runs in NCHW only.
grt_status* Relayout(grt_kernel_ctx* ctx, size_t esize, int64_t n, int64_t c, int64_t h, int64_t w,
                     const void* src, void* dst, bool to_nchw) {
  Box b = {};
  if (to_nchw) {  // walk NCHW, read NHWC
    int64_t dims[4] = {n, c, h, w};
    b = Dense(4, dims);
    b.src_strides[0] = h * w * c;
    b.src_strides[1] = 1;
    b.src_strides[2] = w * c;
    b.src_strides[3] = c;
  } else {  // walk NHWC, read NCHW
    int64_t dims[4] = {n, h, w, c};
    b = Dense(4, dims);
    b.src_strides[0] = c * h * w;
    b.src_strides[1] = w;
    b.src_strides[2] = 1;
    b.src_strides[3] = h * w;
  }
  return CopyBox(ctx, false, esize, b, n * c * h * w, src, dst, "layout conversion");
}

// An NCHW scratch tensor of [n, c, h, w] when the pass runs in NCHW for an
// NHWC graph (else NULL), filled from `src` (the NHWC tensor) if given.
grt_status* NchwCopy(grt_kernel_ctx* ctx, const ConvGeom& g, int64_t n, int64_t c, int64_t h,
                     int64_t w, const void* src, grt_tensor** out) {
  *out = NULL;
  if (g.run_nchw == g.w.nchw) return NULL;
  grt_shape s = Shape4(true, n, c, h, w);
  grt_status* st = grt_kernel_alloc_temp(ctx, g.dtype, &s, out);
  if (!st && src) st = Relayout(ctx, g.esize, n, c, h, w, src, grt_tensor_data(*out), true);
  if (st) {
    grt_tensor_free(*out);
    *out = NULL;
  }
  return st;
}

// The dtypes the convolutions take: half and bfloat16 data computed in
// float (as TensorFlow's cuDNN convolutions), double in double.
struct DnnType {
  grt_dtype dtype;
  cudnnDataType_t data, compute;
};
const DnnType kDnnTypes[] = {
    {GRT_FLOAT32, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {GRT_FLOAT16, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {GRT_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {GRT_FLOAT64, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
};

const DnnType* DnnTypeOf(grt_dtype dt) {
  for (const DnnType& t : kDnnTypes)
    if (t.dtype == dt) return &t;
  return NULL;
}

enum Pass { kForward, kBackwardData, kBackwardFilter };

// Everything a pass's descriptors and algorithm depend on: the key of the
// device's cache (dnn_cache.h). Integers only, zeroed first, so no padding
// byte differs between equal keys.
struct ConvKey {
  int32_t pass, dtype, nchw, tf32, measured;
  int64_t n, c, h, w;  // the input as cuDNN sees it (padded)
  int64_t oc, fic, kh, kw, oh, ow, groups;
  int64_t pad[2], stride[2], dilation[2];
};

ConvKey KeyOf(Pass pass, const ConvGeom& g, grt_dtype dt, bool tf32, bool measured) {
  ConvKey k;
  memset(&k, 0, sizeof k);
  k.pass = pass;
  k.measured = measured;
  k.dtype = dt;
  k.nchw = g.run_nchw;
  k.tf32 = tf32;
  k.n = g.n;
  k.c = g.ic;
  k.h = PaddedH(g);
  k.w = PaddedW(g);
  k.oc = g.oc;
  k.fic = g.fic;
  k.kh = g.kh;
  k.kw = g.kw;
  k.oh = g.oh;
  k.ow = g.ow;
  k.groups = g.groups;
  for (int d = 0; d < 2; d++) {
    k.pad[d] = g.sym[d];
    k.stride[d] = g.w.strides[d];
    k.dilation[d] = g.w.dilations[d];
  }
  return k;
}

// A key's descriptors and the algorithm chosen for it: the cache's value.
struct ConvPlan {
  grt_cudnn_cached base;  // first: the cache frees it through base.destroy
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t f;
  cudnnConvolutionDescriptor_t c;
  int algo;  // the pass's cudnnConvolution*Algo_t
  cudnnMathType_t math;
  size_t workspace;
};

void DestroyPlan(grt_cudnn_cached* self) {
  ConvPlan* p = (ConvPlan*)self;
  if (p->x) grt_cudnn.DestroyTensorDescriptor(p->x);
  if (p->y) grt_cudnn.DestroyTensorDescriptor(p->y);
  if (p->f) grt_cudnn.DestroyFilterDescriptor(p->f);
  if (p->c) grt_cudnn.DestroyConvolutionDescriptor(p->c);
  free(p);
}

// The math the heuristics and the search may offer: float32 without TF32
// only FMA (cuDNN's DEFAULT math permits TF32 on Ampere and later);
// float64 cuDNN's default; the 16-bit types and float32 with TF32 tensor
// cores too.
cudnnMathType_t SearchMath(grt_dtype dt, bool tf32) {
  if (dt == GRT_FLOAT32 && !tf32) return CUDNN_FMA_MATH;
  return dt == GRT_FLOAT64 ? CUDNN_DEFAULT_MATH : CUDNN_TENSOR_OP_MATH;
}

grt_status* MakePlan(const ConvGeom& g, const DnnType& t, bool tf32, ConvPlan** out) {
  *out = NULL;
  ConvPlan* d = (ConvPlan*)calloc(1, sizeof(ConvPlan));
  if (!d) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of host memory for a convolution");
  d->base.destroy = DestroyPlan;
  cudnnTensorFormat_t fmt = g.run_nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  grt_status* st =
      grt_cudnn_error(grt_cudnn.CreateTensorDescriptor(&d->x), "cudnnCreateTensorDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.CreateTensorDescriptor(&d->y), "cudnnCreateTensorDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.CreateFilterDescriptor(&d->f), "cudnnCreateFilterDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.CreateConvolutionDescriptor(&d->c),
                         "cudnnCreateConvolutionDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetTensor4dDescriptor(d->x, fmt, t.data, (int)g.n, (int)g.ic,
                                                         (int)PaddedH(g), (int)PaddedW(g)),
                         "cudnnSetTensor4dDescriptor (input)");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetTensor4dDescriptor(d->y, fmt, t.data, (int)g.n, (int)g.oc,
                                                         (int)g.oh, (int)g.ow),
                         "cudnnSetTensor4dDescriptor (output)");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetFilter4dDescriptor(d->f, t.data, CUDNN_TENSOR_NCHW, (int)g.oc,
                                                         (int)g.fic, (int)g.kh, (int)g.kw),
                         "cudnnSetFilter4dDescriptor");
  if (!st)
    st = grt_cudnn_error(
        grt_cudnn.SetConvolution2dDescriptor(
            d->c, (int)g.sym[0], (int)g.sym[1], (int)g.w.strides[0], (int)g.w.strides[1],
            (int)g.w.dilations[0], (int)g.w.dilations[1], CUDNN_CROSS_CORRELATION, t.compute),
        "cudnnSetConvolution2dDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetConvolutionGroupCount(d->c, (int)g.groups),
                         "cudnnSetConvolutionGroupCount");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetConvolutionMathType(d->c, SearchMath(t.dtype, tf32)),
                         "cudnnSetConvolutionMathType");
  if (st) {
    DestroyPlan(&d->base);
    return st;
  }
  *out = d;
  return NULL;
}

// A workspace of `bytes` (NULL tensor for none).
grt_status* Workspace(grt_kernel_ctx* ctx, size_t bytes, grt_tensor** out) {
  *out = NULL;
  if (!bytes) return NULL;
  grt_shape s = {1, {(int64_t)bytes}};
  return grt_kernel_alloc_temp(ctx, GRT_UINT8, &s, out);
}

// float32 with tensor-core math is TF32, which TensorFlow 1.x never used:
// only with GRT_CUDA_ALLOW_TF32=1. Half, bfloat16 and double take any.
bool MathAllowed(cudnnMathType_t m, grt_dtype dt, bool tf32) {
  return dt != GRT_FLOAT32 || tf32 || m == CUDNN_FMA_MATH;
}

// One pass's launch with the plan's descriptors: x, f, y are device
// pointers (x padded, f OIHW); the pass writes y, x or f.
struct Operands {
  cudnnHandle_t h;
  void *x, *f, *y;
  const void *one, *zero;  // float, or double for double data
};

cudnnStatus_t Launch(Pass pass, const ConvPlan& p, const Operands& o, int algo, void* ws,
                     size_t bytes) {
  switch (pass) {
    case kForward:
      return grt_cudnn.ConvolutionForward(o.h, o.one, p.x, o.x, p.f, o.f, p.c,
                                          (cudnnConvolutionFwdAlgo_t)algo, ws, bytes, o.zero, p.y,
                                          o.y);
    case kBackwardData:
      return grt_cudnn.ConvolutionBackwardData(o.h, o.one, p.f, o.f, p.y, o.y, p.c,
                                               (cudnnConvolutionBwdDataAlgo_t)algo, ws, bytes,
                                               o.zero, p.x, o.x);
    default:
      return grt_cudnn.ConvolutionBackwardFilter(o.h, o.one, p.x, o.x, p.y, o.y, p.c,
                                                 (cudnnConvolutionBwdFilterAlgo_t)algo, ws, bytes,
                                                 o.zero, p.f, o.f);
  }
}

// Runs with `algo` and a workspace of `bytes`: SUCCESS, cuDNN's failure,
// or ALLOC_FAILED when the allocator cannot give the workspace now. A
// failed attempt may leave an error in CUDA's last-error state (a launch
// cuDNN made that did not start); it is cleared so the next kernel's launch
// check does not report it.
cudnnStatus_t Attempt(grt_kernel_ctx* ctx, Pass pass, const ConvPlan& p, const Operands& o,
                      int algo, size_t bytes) {
  grt_tensor* ws;
  grt_status* wst = Workspace(ctx, bytes, &ws);
  if (wst) {
    grt_status_free(wst);
    return CUDNN_STATUS_ALLOC_FAILED;
  }
  cudnnStatus_t r = Launch(pass, p, o, algo, ws ? grt_tensor_data(ws) : NULL, bytes);
  grt_tensor_free(ws);
  if (r != CUDNN_STATUS_SUCCESS) (void)cudaGetLastError();
  return r;
}

// cuDNN's ranked heuristic choices for the pass, as one shape.
struct Candidate {
  int algo;
  cudnnStatus_t status;
  size_t memory;
  cudnnMathType_t math;
};
enum { kMaxAlgos = 16 };

template <typename Perf>
int Candidates(const Perf* perf, int returned, Candidate* out) {
  for (int i = 0; i < returned; i++)
    out[i] = {(int)perf[i].algo, perf[i].status, perf[i].memory, perf[i].mathType};
  return returned;
}

grt_status* Ranked(Pass pass, const ConvPlan& p, cudnnHandle_t h, Candidate* out, int* n) {
  int returned = 0;
  *n = 0;
  grt_status* st;
  if (pass == kForward) {
    cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(grt_cudnn.GetConvolutionForwardAlgorithm_v7(h, p.x, p.f, p.c, p.y,
                                                                     kMaxAlgos, &returned, perf),
                         "cudnnGetConvolutionForwardAlgorithm_v7");
    if (!st) *n = Candidates(perf, returned, out);
  } else if (pass == kBackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(grt_cudnn.GetConvolutionBackwardDataAlgorithm_v7(
                             h, p.f, p.y, p.c, p.x, kMaxAlgos, &returned, perf),
                         "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    if (!st) *n = Candidates(perf, returned, out);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(grt_cudnn.GetConvolutionBackwardFilterAlgorithm_v7(
                             h, p.x, p.y, p.c, p.f, kMaxAlgos, &returned, perf),
                         "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    if (!st) *n = Candidates(perf, returned, out);
  }
  return st;
}

// GRT_CUDNN_AUTOTUNE=1: rank by measuring (cudnnFind*Ex), as TensorFlow's
// TF_CUDNN_USE_AUTOTUNE; otherwise by cuDNN's heuristics.
bool Measured() {
  const char* v = getenv("GRT_CUDNN_AUTOTUNE");
  return v && strcmp(v, "1") == 0;
}

// The ranking by measurement: every algorithm timed on this call's data
// (the pass's output is overwritten by the trials, then by the chosen run)
// with the largest workspace the heuristics' allowed choices ask for, or
// as much of it as the allocator gives now. `heur` are the heuristic
// candidates, for the workspace size.
grt_status* Measure(grt_kernel_ctx* ctx, Pass pass, grt_dtype dt, bool tf32, const ConvPlan& p,
                    const Operands& o, const Candidate* heur, int n_heur, Candidate* out, int* n) {
  size_t bytes = 0;
  for (int i = 0; i < n_heur; i++)
    if (heur[i].status == CUDNN_STATUS_SUCCESS && MathAllowed(heur[i].math, dt, tf32) &&
        heur[i].memory > bytes)
      bytes = heur[i].memory;
  grt_tensor* ws = NULL;
  for (; bytes; bytes /= 2) {  // what can be had now
    grt_status* wst = Workspace(ctx, bytes, &ws);
    if (!wst) break;
    grt_status_free(wst);
  }
  void* w = ws ? grt_tensor_data(ws) : NULL;
  // Measured under the math the heuristics were asked with.
  grt_status* st = grt_cudnn_error(grt_cudnn.SetConvolutionMathType(p.c, SearchMath(dt, tf32)),
                                   "cudnnSetConvolutionMathType");
  int returned = 0;
  *n = 0;
  if (!st && pass == kForward) {
    cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(
        grt_cudnn.FindConvolutionForwardAlgorithmEx(o.h, p.x, o.x, p.f, o.f, p.c, p.y, o.y,
                                                    kMaxAlgos, &returned, perf, w, bytes),
        "cudnnFindConvolutionForwardAlgorithmEx");
    if (!st) *n = Candidates(perf, returned, out);
  } else if (!st && pass == kBackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(
        grt_cudnn.FindConvolutionBackwardDataAlgorithmEx(o.h, p.f, o.f, p.y, o.y, p.c, p.x, o.x,
                                                         kMaxAlgos, &returned, perf, w, bytes),
        "cudnnFindConvolutionBackwardDataAlgorithmEx");
    if (!st) *n = Candidates(perf, returned, out);
  } else if (!st) {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(
        grt_cudnn.FindConvolutionBackwardFilterAlgorithmEx(o.h, p.x, o.x, p.y, o.y, p.c, p.f, o.f,
                                                           kMaxAlgos, &returned, perf, w, bytes),
        "cudnnFindConvolutionBackwardFilterAlgorithmEx");
    if (!st) *n = Candidates(perf, returned, out);
  }
  grt_tensor_free(ws);
  (void)cudaGetLastError();  // a trial that failed to launch is not this call's error
  return st;
}

// Chooses for a new key: cuDNN's heuristic choices in rank order, skipping
// those it marks failed, those with tensor-core math the dtype's options
// do not allow, and those whose workspace the allocator cannot give; the
// first that runs is the choice (its run is this call's result). *last is
// the last failure (NOT_SUPPORTED when none was tried).
grt_status* Choose(grt_kernel_ctx* ctx, Pass pass, grt_dtype dt, bool tf32, bool measured,
                   ConvPlan* p, const Operands& o, bool* done, cudnnStatus_t* last) {
  Candidate heur[kMaxAlgos], timed[kMaxAlgos];
  int n;
  *done = false;
  *last = CUDNN_STATUS_NOT_SUPPORTED;
  grt_status* st = Ranked(pass, *p, o.h, heur, &n);
  const Candidate* cand = heur;
  if (!st && measured) {
    int n_heur = n;
    st = Measure(ctx, pass, dt, tf32, *p, o, heur, n_heur, timed, &n);
    cand = timed;
  }
  for (int i = 0; !st && !*done && i < n; i++) {
    if (cand[i].status != CUDNN_STATUS_SUCCESS || !MathAllowed(cand[i].math, dt, tf32)) continue;
    st = grt_cudnn_error(grt_cudnn.SetConvolutionMathType(p->c, cand[i].math),
                         "cudnnSetConvolutionMathType");
    if (st) break;
    cudnnStatus_t r = Attempt(ctx, pass, *p, o, cand[i].algo, cand[i].memory);
    if (r == CUDNN_STATUS_SUCCESS) {
      *done = true;
      p->algo = cand[i].algo;
      p->math = cand[i].math;
      p->workspace = cand[i].memory;
    } else {
      *last = r;
    }
  }
  return st;
}

// Runs one pass: with the algorithm the device's cache holds for this
// convolution, or one chosen now and kept there.
grt_status* RunPass(grt_kernel_ctx* ctx, Pass pass, const ConvGeom& g, grt_dtype dt, void* x,
                    void* f, void* y, const char* op) {
  cuda_device* dev = grt_cuda_device(ctx->stream);
  const DnnType* t = DnnTypeOf(dt);
  if (!t) return NoKernel(op, dt);
  grt_status* st = grt_cudnn_open(op);  // the first convolution maps cuDNN
  if (st) return st;
  bool measured = Measured();
  ConvKey key = KeyOf(pass, g, dt, dev->tf32, measured);
  const float onef = 1.0f, zerof = 0.0f;
  const double oned = 1.0, zerod = 0.0;
  Operands o = {NULL, x, f, y, &onef, &zerof};
  if (dt == GRT_FLOAT64) {
    o.one = &oned;
    o.zero = &zerod;
  }
  if ((st = grt_cudnn_acquire(dev, &o.h))) return st;
  grt_dnn_cache* cache = grt_cudnn_cache(dev);
  ConvPlan* p = (ConvPlan*)grt_dnn_cache_get(cache, &key, sizeof key);
  cudnnStatus_t r = CUDNN_STATUS_NOT_SUPPORTED;
  if (p) {
    r = Attempt(ctx, pass, *p, o, p->algo, p->workspace);
    if (r == CUDNN_STATUS_ALLOC_FAILED) p = NULL;  // memory is short now: choose again below
  }
  if (!p) {
    bool done = false;
    if (!(st = MakePlan(g, *t, dev->tf32, &p)))
      st = Choose(ctx, pass, dt, dev->tf32, measured, p, o, &done, &r);
    if (!st && done) {
      r = CUDNN_STATUS_SUCCESS;
      grt_status* kept = grt_dnn_cache_put(cache, &key, sizeof key, p);  // takes p
      grt_status_free(kept);  // not kept (no host memory): the next call chooses again
    } else if (p) {
      DestroyPlan(&p->base);
    }
  }
  grt_cudnn_release(dev);
  if (st || r == CUDNN_STATUS_SUCCESS) return st;
  char what[160];  // which convolution, for the message
  snprintf(what, sizeof what, "%s (%s, %s in cuDNN, %s): no cuDNN algorithm ran, the last said", op,
           grt_dtype_name(dt), g.run_nchw ? "NCHW" : "NHWC",
           pass == kForward        ? "forward"
           : pass == kBackwardData ? "backward data"
                                   : "backward filter");
  return grt_cudnn_error(r, what);
}

// The convolution's dtype into the geometry, or the missing kernel's error.
// cuDNN's double convolutions, and the backward passes (`backward`), run in
// NCHW: an NHWC graph's tensors are converted around them. The first GPU
// run (an H200, cuDNN 9) found every float32 NHWC backward algorithm
// refused (CUDNN_STATUS_NOT_SUPPORTED); TensorFlow too runs float32
// convolutions in NCHW on GPUs.
grt_status* SetType(const char* op, grt_dtype dt, bool backward, ConvGeom* g) {
  if (!DnnTypeOf(dt)) return NoKernel(op, dt);
  g->dtype = dt;
  g->esize = grt_dtype_size(dt);
  g->run_nchw = g->w.nchw || dt == GRT_FLOAT64 || backward;
  return NULL;
}

void* Data(const grt_tensor* scratch, const grt_tensor* t) {
  return grt_tensor_data(scratch ? scratch : t);
}

grt_status* Zero(grt_kernel_ctx* ctx, grt_tensor* t) {
  size_t n = grt_tensor_byte_size(t);
  if (!n) return NULL;
  return grt_cuda_error(cudaMemsetAsync(grt_tensor_data(t), 0, n, grt_cuda_stream(ctx->stream)),
                        "cudaMemsetAsync");
}

// The 4-element sizes input (input_sizes, filter_sizes) as a shape.
grt_status* SizesInput(const grt_tensor* t, const char* what, grt_shape* out) {
  if (!IsIndexType(grt_tensor_dtype(t)) || grt_tensor_num_elements(t) != 4)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s must be a 4-element int32/int64 vector", what);
  out->rank = 4;
  for (int i = 0; i < 4; i++) {
    out->dims[i] = HostInt(t, i);
    if (out->dims[i] < 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "%s must be non-negative", what);
  }
  return NULL;
}

bool Empty(const ConvGeom& g) {
  return g.n * g.ic * g.ih * g.iw == 0 || g.oc * g.oh * g.ow == 0 || g.kh * g.kw * g.fic == 0;
}

grt_status* Forward(grt_kernel_ctx* ctx, bool depthwise, const char* op) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* f = ctx->inputs[1];
  ConvGeom g;
  grt_status* st = MakeGeom(ctx, ShapeOf(x), ShapeOf(f), depthwise, &g);
  if (st || (st = SetType(op, grt_tensor_dtype(x), false, &g))) return st;
  grt_shape ys = Shape4(g.w.nchw, g.n, g.oc, g.oh, g.ow);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, g.dtype, &ys, &y))) return st;
  if (Empty(g)) return Zero(ctx, y);
  grt_tensor *fk = NULL, *xp = NULL, *xt = NULL, *yt = NULL;
  st = FilterOihw(ctx, g, f, &fk);
  if (!st && Padded(g)) st = PadInput(ctx, g, x, &xp);
  if (!st) st = NchwCopy(ctx, g, g.n, g.ic, PaddedH(g), PaddedW(g), Data(xp, x), &xt);
  if (!st) st = NchwCopy(ctx, g, g.n, g.oc, g.oh, g.ow, NULL, &yt);
  if (!st)
    st = RunPass(ctx, kForward, g, g.dtype, Data(xt, xp ? xp : x), grt_tensor_data(fk), Data(yt, y),
                 op);
  if (!st && yt)
    st = Relayout(ctx, g.esize, g.n, g.oc, g.oh, g.ow, grt_tensor_data(yt), grt_tensor_data(y),
                  false);
  grt_tensor_free(fk);
  grt_tensor_free(xp);
  grt_tensor_free(xt);
  grt_tensor_free(yt);
  return st;
}

grt_status* Conv2DCompute(grt_kernel_ctx* ctx) { return Forward(ctx, false, "Conv2D"); }
grt_status* DepthwiseCompute(grt_kernel_ctx* ctx) {
  return Forward(ctx, true, "DepthwiseConv2dNative");
}

grt_status* BackpropInputCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* f = ctx->inputs[1];
  const grt_tensor* dy = ctx->inputs[2];
  const char* op = "Conv2DBackpropInput";
  grt_shape xs;
  grt_status* st = SizesInput(ctx->inputs[0], "input_sizes", &xs);
  if (st) return st;
  ConvGeom g;
  if ((st = MakeGeom(ctx, xs, ShapeOf(f), false, &g))) return st;
  if ((st = SetType(op, grt_tensor_dtype(dy), true, &g))) return st;
  grt_shape want = Shape4(g.w.nchw, g.n, g.oc, g.oh, g.ow);
  if (grt_tensor_rank(dy) != 4 || NumElements(ShapeOf(dy)) != NumElements(want))
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "Conv2DBackpropInput: out_backprop does not match the computed output shape");
  grt_tensor* dx;
  if ((st = grt_kernel_alloc_output(ctx, 0, g.dtype, &xs, &dx))) return st;
  if (Empty(g)) return Zero(ctx, dx);
  grt_tensor *fk = NULL, *dxp = NULL, *dyt = NULL, *dxt = NULL;
  st = FilterOihw(ctx, g, f, &fk);
  if (!st && Padded(g)) {
    grt_shape ps = Shape4(g.w.nchw, g.n, g.ic, PaddedH(g), PaddedW(g));
    st = grt_kernel_alloc_temp(ctx, g.dtype, &ps, &dxp);
  }
  if (!st) st = NchwCopy(ctx, g, g.n, g.oc, g.oh, g.ow, grt_tensor_data(dy), &dyt);
  if (!st) st = NchwCopy(ctx, g, g.n, g.ic, PaddedH(g), PaddedW(g), NULL, &dxt);
  if (!st)
    st = RunPass(ctx, kBackwardData, g, g.dtype, Data(dxt, dxp ? dxp : dx), grt_tensor_data(fk),
                 Data(dyt, dy), op);
  if (!st && dxt)
    st = Relayout(ctx, g.esize, g.n, g.ic, PaddedH(g), PaddedW(g), grt_tensor_data(dxt),
                  Data(dxp, dx), false);
  if (!st && dxp) {  // cut the hand-made padding's gradient away
    int64_t offset;
    Box b = PadBox(g, &offset);
    for (int k = 0; k < 4; k++) {  // read from the padded layout, write dense
      int64_t t = b.dst_strides[k];
      b.dst_strides[k] = b.src_strides[k];
      b.src_strides[k] = t;
    }
    st = CopyBox(ctx, false, g.esize, b, grt_tensor_num_elements(dx),
                 (const char*)grt_tensor_data(dxp) + offset * (int64_t)g.esize, grt_tensor_data(dx),
                 op);
  }
  grt_tensor_free(fk);
  grt_tensor_free(dxp);
  grt_tensor_free(dyt);
  grt_tensor_free(dxt);
  return st;
}

grt_status* BackpropFilterCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[2];
  const char* op = "Conv2DBackpropFilter";
  grt_shape fs;
  grt_status* st = SizesInput(ctx->inputs[1], "filter_sizes", &fs);
  if (st) return st;
  ConvGeom g;
  if ((st = MakeGeom(ctx, ShapeOf(x), fs, false, &g))) return st;
  if ((st = SetType(op, grt_tensor_dtype(x), true, &g))) return st;
  grt_shape want = Shape4(g.w.nchw, g.n, g.oc, g.oh, g.ow);
  if (grt_tensor_rank(dy) != 4 || NumElements(ShapeOf(dy)) != NumElements(want))
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "Conv2DBackpropFilter: out_backprop does not match the computed output shape");
  grt_tensor* df;
  if ((st = grt_kernel_alloc_output(ctx, 0, g.dtype, &fs, &df))) return st;
  if (Empty(g)) return Zero(ctx, df);
  grt_shape ks = {4, {g.oc, g.fic, g.kh, g.kw}};
  grt_tensor *dfk = NULL, *xp = NULL, *xt = NULL, *dyt = NULL;
  st = grt_kernel_alloc_temp(ctx, g.dtype, &ks, &dfk);
  if (!st && Padded(g)) st = PadInput(ctx, g, x, &xp);
  if (!st) st = NchwCopy(ctx, g, g.n, g.ic, PaddedH(g), PaddedW(g), Data(xp, x), &xt);
  if (!st) st = NchwCopy(ctx, g, g.n, g.oc, g.oh, g.ow, grt_tensor_data(dy), &dyt);
  if (!st)
    st = RunPass(ctx, kBackwardFilter, g, g.dtype, Data(xt, xp ? xp : x), grt_tensor_data(dfk),
                 Data(dyt, dy), op);
  if (!st) st = TransposeFilter(ctx, g, grt_tensor_data(dfk), grt_tensor_data(df), false);
  grt_tensor_free(dfk);
  grt_tensor_free(xp);
  grt_tensor_free(xt);
  grt_tensor_free(dyt);
  return st;
}

const grt_op_kernel kKernels[] = {
    {"Conv2D", Conv2DCompute, grt_cuda_kept_new, grt_cuda_kept_free, 0},
    {"DepthwiseConv2dNative", DepthwiseCompute, grt_cuda_kept_new, grt_cuda_kept_free, 0},
    {"Conv2DBackpropInput", BackpropInputCompute, grt_cuda_kept_new, grt_cuda_kept_free, 0},
    {"Conv2DBackpropFilter", BackpropFilterCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

// Conv2D into output 0, for _FusedConv2D (fused.cu).
extern "C" grt_status* grt_cuda_conv2d_forward(grt_kernel_ctx* ctx) {
  return grt_cuda::Forward(ctx, false, "_FusedConv2D");
}

extern "C" const grt_op_kernel* grt_cuda_cudnn_conv_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
