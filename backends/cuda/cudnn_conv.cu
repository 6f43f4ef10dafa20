// The convolutions on the GPU through cuDNN 9: Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter and DepthwiseConv2dNative (cuDNN's grouped
// convolution, one group per input channel), NHWC and NCHW, float32.
//
// grt's filters are HWIO; cuDNN takes them as KCRS (OIHW), so the filter is
// transposed into a scratch tensor first (and the filter gradient back).
// cuDNN pads symmetrically; TensorFlow's SAME (and EXPLICIT) padding may
// put one more row or column after than before, so the part beyond the
// symmetric padding is done by hand: the input is copied into a zeroed
// larger tensor (and the input gradient computed for that larger tensor,
// then cut back). As in TensorFlow 1.x, no TF32 unless GRT_CUDA_ALLOW_TF32=1
// (cuDNN's FMA math otherwise). Algorithms come from cuDNN's heuristics
// (the first that runs with a workspace the allocator can give).
//
// UNVERIFIED on a GPU: tests/gpu/gpu_suite_ops.cc compares each with the CPU.
#include "box_copy.cuh"
#include "cudnn_handle.h"

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
  grt_status* st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &s, out);
  if (st) return st;
  cudaStream_t str = grt_cuda_stream(ctx->stream);
  st = grt_cuda_error(cudaMemsetAsync(grt_tensor_data(*out), 0, grt_tensor_byte_size(*out), str),
                      "cudaMemsetAsync");
  int64_t offset;
  Box b = PadBox(g, &offset);
  if (!st)
    st = CopyBox(ctx, false, 4, b, grt_tensor_num_elements(x), grt_tensor_data(x),
                 (float*)grt_tensor_data(*out) + offset, "pad");
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
  return CopyBox(ctx, false, 4, b, g.kh * g.kw * g.fic * g.oc, src, dst, "filter transpose");
}

struct Descs {
  cudnnTensorDescriptor_t x = NULL, y = NULL;
  cudnnFilterDescriptor_t f = NULL;
  cudnnConvolutionDescriptor_t c = NULL;
  ~Descs() {
    if (x) grt_cudnn.DestroyTensorDescriptor(x);
    if (y) grt_cudnn.DestroyTensorDescriptor(y);
    if (f) grt_cudnn.DestroyFilterDescriptor(f);
    if (c) grt_cudnn.DestroyConvolutionDescriptor(c);
  }
};

grt_status* MakeDescs(const ConvGeom& g, bool tf32, Descs* d) {
  cudnnTensorFormat_t fmt = g.w.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
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
    st = grt_cudnn_error(
        grt_cudnn.SetTensor4dDescriptor(d->x, fmt, CUDNN_DATA_FLOAT, (int)g.n, (int)g.ic,
                                        (int)PaddedH(g), (int)PaddedW(g)),
        "cudnnSetTensor4dDescriptor (input)");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetTensor4dDescriptor(d->y, fmt, CUDNN_DATA_FLOAT, (int)g.n,
                                                         (int)g.oc, (int)g.oh, (int)g.ow),
                         "cudnnSetTensor4dDescriptor (output)");
  if (!st)
    st = grt_cudnn_error(
        grt_cudnn.SetFilter4dDescriptor(d->f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)g.oc,
                                        (int)g.fic, (int)g.kh, (int)g.kw),
        "cudnnSetFilter4dDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetConvolution2dDescriptor(
                             d->c, (int)g.sym[0], (int)g.sym[1], (int)g.w.strides[0],
                             (int)g.w.strides[1], (int)g.w.dilations[0], (int)g.w.dilations[1],
                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                         "cudnnSetConvolution2dDescriptor");
  if (!st)
    st = grt_cudnn_error(grt_cudnn.SetConvolutionGroupCount(d->c, (int)g.groups),
                         "cudnnSetConvolutionGroupCount");
  if (!st)
    st = grt_cudnn_error(
        grt_cudnn.SetConvolutionMathType(d->c, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
        "cudnnSetConvolutionMathType");
  return st;
}

// A workspace of `bytes` (NULL tensor for none).
grt_status* Workspace(grt_kernel_ctx* ctx, size_t bytes, grt_tensor** out) {
  *out = NULL;
  if (!bytes) return NULL;
  grt_shape s = {1, {(int64_t)bytes}};
  return grt_kernel_alloc_temp(ctx, GRT_UINT8, &s, out);
}

// cuDNN's DEFAULT math permits TF32 on Ampere and later: only FMA without it.
bool MathAllowed(cudnnMathType_t m, bool tf32) { return tf32 || m == CUDNN_FMA_MATH; }

enum Pass { kForward, kBackwardData, kBackwardFilter };

// Tries cuDNN's heuristic choices in order (perf[0..returned)) until one
// runs: skips those that failed, that use tensor-core math the options do
// not allow, or whose workspace does not fit in what is free. `run(algo,
// workspace, bytes)` launches the pass. Returns the last launch's status
// (CUDNN_STATUS_NOT_SUPPORTED when none was tried); *done when one ran.
template <typename Perf, typename Run>
cudnnStatus_t TryAlgos(grt_kernel_ctx* ctx, const Perf* perf, int returned,
                       cudnnConvolutionDescriptor_t c, bool tf32, Run run, bool* done) {
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; !*done && i < returned; i++) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || !MathAllowed(perf[i].mathType, tf32)) continue;
    grt_tensor* ws;
    grt_status* wst = Workspace(ctx, perf[i].memory, &ws);
    if (wst) {  // too large for what is free: try the next algorithm
      grt_status_free(wst);
      continue;
    }
    grt_cudnn.SetConvolutionMathType(c, perf[i].mathType);
    last = run(perf[i].algo, ws ? grt_tensor_data(ws) : NULL, perf[i].memory);
    grt_tensor_free(ws);
    *done = last == CUDNN_STATUS_SUCCESS;
  }
  return last;
}

// Runs one pass with the first heuristic algorithm that works. x, f, y are
// device pointers (x padded, f OIHW); the pass writes y, x or f.
grt_status* RunPass(grt_kernel_ctx* ctx, Pass pass, const ConvGeom& g, void* x, void* f, void* y,
                    const char* op) {
  cuda_device* dev = grt_cuda_device(ctx->stream);
  grt_status* st = grt_cudnn_open(op);  // the first convolution maps cuDNN
  if (st) return st;
  Descs d;
  if ((st = MakeDescs(g, dev->tf32, &d))) return st;
  cudnnHandle_t h;
  if ((st = grt_cudnn_acquire(dev, &h))) return st;
  const float one = 1.0f, zero = 0.0f;
  enum { kMaxAlgos = 16 };
  int returned = 0;
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  bool done = false;
  if (pass == kForward) {
    cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(grt_cudnn.GetConvolutionForwardAlgorithm_v7(h, d.x, d.f, d.c, d.y,
                                                                     kMaxAlgos, &returned, perf),
                         "cudnnGetConvolutionForwardAlgorithm_v7");
    if (!st)
      last = TryAlgos(
          ctx, perf, returned, d.c, dev->tf32,
          [&](cudnnConvolutionFwdAlgo_t algo, void* ws, size_t bytes) {
            return grt_cudnn.ConvolutionForward(h, &one, d.x, x, d.f, f, d.c, algo, ws, bytes,
                                                &zero, d.y, y);
          },
          &done);
  } else if (pass == kBackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(grt_cudnn.GetConvolutionBackwardDataAlgorithm_v7(
                             h, d.f, d.y, d.c, d.x, kMaxAlgos, &returned, perf),
                         "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    if (!st)
      last = TryAlgos(
          ctx, perf, returned, d.c, dev->tf32,
          [&](cudnnConvolutionBwdDataAlgo_t algo, void* ws, size_t bytes) {
            return grt_cudnn.ConvolutionBackwardData(h, &one, d.f, f, d.y, y, d.c, algo, ws, bytes,
                                                     &zero, d.x, x);
          },
          &done);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
    st = grt_cudnn_error(grt_cudnn.GetConvolutionBackwardFilterAlgorithm_v7(
                             h, d.x, d.y, d.c, d.f, kMaxAlgos, &returned, perf),
                         "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    if (!st)
      last = TryAlgos(
          ctx, perf, returned, d.c, dev->tf32,
          [&](cudnnConvolutionBwdFilterAlgo_t algo, void* ws, size_t bytes) {
            return grt_cudnn.ConvolutionBackwardFilter(h, &one, d.x, x, d.y, y, d.c, algo, ws,
                                                       bytes, &zero, d.f, f);
          },
          &done);
  }
  grt_cudnn_release(dev);
  if (st) return st;
  if (!done)
    return grt_cudnn_error(last == CUDNN_STATUS_SUCCESS ? CUDNN_STATUS_NOT_SUPPORTED : last, op);
  return NULL;
}

// NHWC [n, h, w, c] <-> NCHW [n, c, h, w] of float32 (to_nchw: from NHWC).
grt_status* TransposeLayout(grt_kernel_ctx* ctx, bool to_nchw, int64_t n, int64_t c, int64_t h,
                            int64_t w, const void* src, void* dst) {
  int64_t nchw[4] = {n, c, h, w}, nhwc[4] = {n, h, w, c};
  Box b = Dense(4, to_nchw ? nchw : nhwc);
  if (to_nchw) {  // walk NCHW, read NHWC
    b.src_strides[0] = h * w * c;
    b.src_strides[1] = 1;
    b.src_strides[2] = w * c;
    b.src_strides[3] = c;
  } else {  // walk NHWC, read NCHW
    b.src_strides[0] = c * h * w;
    b.src_strides[1] = w;
    b.src_strides[2] = 1;
    b.src_strides[3] = h * w;
  }
  return CopyBox(ctx, false, 4, b, n * c * h * w, src, dst, "layout transpose");
}

// RunPass for any data format. cuDNN 9 has no float32 algorithm with FMA
// math for the backward passes in NHWC (the first GPU run: every one
// CUDNN_STATUS_NOT_SUPPORTED, on an H200); as TensorFlow does for float32
// on GPUs, an NHWC backward pass runs in NCHW: its NHWC inputs transposed
// into scratch tensors, the pass, its gradient transposed back. The filter
// (OIHW) is the same in both. Forward passes stay in NHWC, which cuDNN runs.
grt_status* RunPassAnyLayout(grt_kernel_ctx* ctx, Pass pass, const ConvGeom& g, void* x, void* f,
                             void* y, const char* op) {
  if (g.w.nchw || pass == kForward) return RunPass(ctx, pass, g, x, f, y, op);
  ConvGeom gn = g;
  gn.w.nchw = true;
  int64_t ph = PaddedH(g), pw = PaddedW(g);
  grt_shape xs = {4, {g.n, g.ic, ph, pw}}, ys = {4, {g.n, g.oc, g.oh, g.ow}};
  grt_tensor *xn = NULL, *yn = NULL;
  grt_status* st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &xs, &xn);
  if (!st) st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &ys, &yn);
  // Both backward passes read dy (y); the filter pass reads x too.
  if (!st) st = TransposeLayout(ctx, true, g.n, g.oc, g.oh, g.ow, y, grt_tensor_data(yn));
  if (!st && pass == kBackwardFilter)
    st = TransposeLayout(ctx, true, g.n, g.ic, ph, pw, x, grt_tensor_data(xn));
  if (!st) st = RunPass(ctx, pass, gn, grt_tensor_data(xn), f, grt_tensor_data(yn), op);
  if (!st && pass == kBackwardData)
    st = TransposeLayout(ctx, false, g.n, g.ic, ph, pw, grt_tensor_data(xn), x);
  grt_tensor_free(xn);
  grt_tensor_free(yn);
  return st;
}

grt_status* NeedF32(const char* op, const grt_tensor* t) {
  return grt_tensor_dtype(t) == GRT_FLOAT32 ? NULL : NoKernel(op, grt_tensor_dtype(t));
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
  grt_status* st = NeedF32(op, x);
  if (st) return st;
  ConvGeom g;
  if ((st = MakeGeom(ctx, ShapeOf(x), ShapeOf(f), depthwise, &g))) return st;
  grt_shape ys = Shape4(g.w.nchw, g.n, g.oc, g.oh, g.ow);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &ys, &y))) return st;
  if (Empty(g)) return Zero(ctx, y);
  grt_shape fs = {4, {g.oc, g.fic, g.kh, g.kw}};
  grt_tensor *fk = NULL, *xp = NULL;
  st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &fs, &fk);
  if (!st) st = TransposeFilter(ctx, g, grt_tensor_data(f), grt_tensor_data(fk), true);
  if (!st && Padded(g)) st = PadInput(ctx, g, x, &xp);
  if (!st)
    st = RunPass(ctx, kForward, g, grt_tensor_data(xp ? xp : x), grt_tensor_data(fk),
                 grt_tensor_data(y), op);
  grt_tensor_free(fk);
  grt_tensor_free(xp);
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
  grt_status* st = NeedF32(op, dy);
  if (st) return st;
  grt_shape xs;
  if ((st = SizesInput(ctx->inputs[0], "input_sizes", &xs))) return st;
  ConvGeom g;
  if ((st = MakeGeom(ctx, xs, ShapeOf(f), false, &g))) return st;
  grt_shape want = Shape4(g.w.nchw, g.n, g.oc, g.oh, g.ow);
  if (grt_tensor_rank(dy) != 4 || NumElements(ShapeOf(dy)) != NumElements(want))
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "Conv2DBackpropInput: out_backprop does not match the computed output shape");
  grt_tensor* dx;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &xs, &dx))) return st;
  if (Empty(g)) return Zero(ctx, dx);
  grt_shape fs = {4, {g.oc, g.fic, g.kh, g.kw}};
  grt_tensor *fk = NULL, *dxp = NULL;
  st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &fs, &fk);
  if (!st) st = TransposeFilter(ctx, g, grt_tensor_data(f), grt_tensor_data(fk), true);
  if (!st && Padded(g)) {
    grt_shape ps = Shape4(g.w.nchw, g.n, g.ic, PaddedH(g), PaddedW(g));
    st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &ps, &dxp);
  }
  if (!st)
    st = RunPassAnyLayout(ctx, kBackwardData, g, grt_tensor_data(dxp ? dxp : dx),
                          grt_tensor_data(fk), grt_tensor_data(dy), op);
  if (!st && dxp) {  // cut the hand-made padding's gradient away
    int64_t offset;
    Box b = PadBox(g, &offset);
    for (int k = 0; k < 4; k++) {  // read from the padded layout, write dense
      int64_t t = b.dst_strides[k];
      b.dst_strides[k] = b.src_strides[k];
      b.src_strides[k] = t;
    }
    st = CopyBox(ctx, false, 4, b, grt_tensor_num_elements(dx),
                 (const float*)grt_tensor_data(dxp) + offset, grt_tensor_data(dx), op);
  }
  grt_tensor_free(fk);
  grt_tensor_free(dxp);
  return st;
}

grt_status* BackpropFilterCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[2];
  const char* op = "Conv2DBackpropFilter";
  grt_status* st = NeedF32(op, x);
  if (st) return st;
  grt_shape fs;
  if ((st = SizesInput(ctx->inputs[1], "filter_sizes", &fs))) return st;
  ConvGeom g;
  if ((st = MakeGeom(ctx, ShapeOf(x), fs, false, &g))) return st;
  grt_shape want = Shape4(g.w.nchw, g.n, g.oc, g.oh, g.ow);
  if (grt_tensor_rank(dy) != 4 || NumElements(ShapeOf(dy)) != NumElements(want))
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "Conv2DBackpropFilter: out_backprop does not match the computed output shape");
  grt_tensor* df;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &fs, &df))) return st;
  if (Empty(g)) return Zero(ctx, df);
  grt_shape ks = {4, {g.oc, g.fic, g.kh, g.kw}};
  grt_tensor *dfk = NULL, *xp = NULL;
  st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &ks, &dfk);
  if (!st && Padded(g)) st = PadInput(ctx, g, x, &xp);
  if (!st)
    st = RunPassAnyLayout(ctx, kBackwardFilter, g, grt_tensor_data(xp ? xp : x),
                          grt_tensor_data(dfk), grt_tensor_data(dy), op);
  if (!st) st = TransposeFilter(ctx, g, grt_tensor_data(dfk), grt_tensor_data(df), false);
  grt_tensor_free(dfk);
  grt_tensor_free(xp);
  return st;
}

const grt_op_kernel kKernels[] = {
    {"Conv2D", Conv2DCompute, NULL, NULL, 0},
    {"DepthwiseConv2dNative", DepthwiseCompute, NULL, NULL, 0},
    {"Conv2DBackpropInput", BackpropInputCompute, NULL, NULL, 0},
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
