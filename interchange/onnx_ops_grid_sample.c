/* ONNX GridSample (opset 16, 4-D) as GatherNd sampling computed at run
 * time. X [N,C,H,W] is transposed to [N,H,W,C] so one GatherNd of
 * (n, y, x) coordinates [N,Ho,Wo,3] fetches every channel of a sample;
 * the weights [N,Ho,Wo,1] broadcast over the channels; the result goes
 * back to [N,C,Ho,Wo].
 *
 * Grid values g in [-1, 1] become pixel coordinates (align_corners:
 * (g+1)/2 (size-1); else ((g+1) size - 1)/2), then, as the usual
 * grid-sampling definition does:
 *   border: clamped to [0, size-1]
 *   reflection: reflected about [0, size-1] (align_corners) or
 *     [-0.5, size-0.5], then clamped
 *   bilinear: the four neighbours floor(x), floor(x)+1 weighted by the
 *     distances; nearest: x rounded half to even; bicubic: the 4x4
 *     neighbours of floor(x) with the cubic convolution weights (A =
 *     -0.75), each neighbour's coordinate padded as above.
 * A sample outside the image reads 0. Everything is float64 until the
 * weights meet X's type. */
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

typedef enum { GS_BILINEAR, GS_NEAREST, GS_BICUBIC } gs_mode;
typedef enum { GS_ZEROS, GS_BORDER, GS_REFLECTION } gs_pad;

typedef struct {
  onnx_import* ctx;
  gs_mode mode;
  gs_pad pad;
  bool align;
  grt_dtype t;
  const char* xt;    /* X as [N,H,W,C] */
  const char* batch; /* n of every sample, int64 [N,Ho,Wo,1] */
} sampler;

static grt_status* bin(sampler* s, const char* op, const char* a, const char* b, const char** out) {
  const char* in[2] = {a, b};
  return onnx_emit(s->ctx, op, "gs", GRT_FLOAT64, in, 2, NULL, out);
}

static grt_status* num(sampler* s, double v, const char** out) {
  return onnx_const_scalar(s->ctx, GRT_FLOAT64, v, out);
}

static grt_status* cast(sampler* s, const char* v, grt_dtype from, grt_dtype to, const char** out) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(s->ctx, "Cast", "cast", GRT_DTYPE_INVALID, &v, 1, &idx, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(s->ctx->g, idx, "SrcT", from));
  return grt_graph_set_attr_type(s->ctx->g, idx, "DstT", to);
}

/* A comparison as float64 0/1. */
static grt_status* test(sampler* s, const char* op, const char* a, const char* b,
                        const char** out) {
  const char* m;
  const char* in[2] = {a, b};
  GRT_RETURN_IF_ERROR(onnx_emit(s->ctx, op, "gs_test", GRT_FLOAT64, in, 2, NULL, &m));
  return cast(s, m, GRT_BOOL, GRT_FLOAT64, out);
}

/* floor(x): the cast truncates toward zero, then one less where that went up. */
static grt_status* floor_f(sampler* s, const char* x, const char** out) {
  const char *ti, *tf, *above;
  GRT_RETURN_IF_ERROR(cast(s, x, GRT_FLOAT64, GRT_INT64, &ti));
  GRT_RETURN_IF_ERROR(cast(s, ti, GRT_INT64, GRT_FLOAT64, &tf));
  GRT_RETURN_IF_ERROR(test(s, "Greater", tf, x, &above));
  return bin(s, "Sub", tf, above, out);
}

/* 1 where the integer-valued f is odd: f != 2 floor(f/2). */
static grt_status* odd(sampler* s, const char* f, const char** out) {
  const char *half, *h, *fl, *twice, *same, *one;
  GRT_RETURN_IF_ERROR(num(s, 0.5, &half));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", f, half, &h));
  GRT_RETURN_IF_ERROR(floor_f(s, h, &fl));
  GRT_RETURN_IF_ERROR(bin(s, "AddV2", fl, fl, &twice));
  GRT_RETURN_IF_ERROR(test(s, "Equal", twice, f, &same));
  GRT_RETURN_IF_ERROR(num(s, 1, &one));
  return bin(s, "Sub", one, same, out);
}

/* x rounded half to even. */
static grt_status* round_even(sampler* s, const char* x, const char** out) {
  const char *half, *xh, *f, *d, *tie, *o, *both;
  GRT_RETURN_IF_ERROR(num(s, 0.5, &half));
  GRT_RETURN_IF_ERROR(bin(s, "AddV2", x, half, &xh));
  GRT_RETURN_IF_ERROR(floor_f(s, xh, &f));
  GRT_RETURN_IF_ERROR(bin(s, "Sub", f, x, &d));
  GRT_RETURN_IF_ERROR(test(s, "Equal", d, half, &tie));
  GRT_RETURN_IF_ERROR(odd(s, f, &o));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", tie, o, &both));
  return bin(s, "Sub", f, both, out);
}

static grt_status* clamp(sampler* s, const char* x, const char* hi, const char** out) {
  const char *zero, *lo;
  GRT_RETURN_IF_ERROR(num(s, 0, &zero));
  GRT_RETURN_IF_ERROR(bin(s, "Maximum", x, zero, &lo));
  return bin(s, "Minimum", lo, hi, out);
}

/* Reflection about [lo, lo + span] (twice_low = 2 lo): |x - lo| folded
 * into span, mirrored on odd folds. */
static grt_status* reflect(sampler* s, const char* x, double twice_low, const char* twice_high,
                           const char** out) {
  const char *tl, *lo, *half, *span, *d, *ad, *neg, *q, *flips, *extra, *sf, *o, *back, *mirror,
      *diff, *pick;
  GRT_RETURN_IF_ERROR(num(s, twice_low, &tl));
  GRT_RETURN_IF_ERROR(num(s, twice_low / 2, &lo));
  GRT_RETURN_IF_ERROR(num(s, 0.5, &half));
  GRT_RETURN_IF_ERROR(bin(s, "Sub", twice_high, tl, &span));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", span, half, &span));
  GRT_RETURN_IF_ERROR(bin(s, "Sub", x, lo, &d));
  GRT_RETURN_IF_ERROR(onnx_emit(s->ctx, "Neg", "gs", GRT_FLOAT64, &d, 1, NULL, &neg));
  GRT_RETURN_IF_ERROR(bin(s, "Maximum", d, neg, &ad));
  GRT_RETURN_IF_ERROR(bin(s, "RealDiv", ad, span, &q));
  GRT_RETURN_IF_ERROR(floor_f(s, q, &flips));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", flips, span, &sf));
  GRT_RETURN_IF_ERROR(bin(s, "Sub", ad, sf, &extra));
  GRT_RETURN_IF_ERROR(bin(s, "AddV2", extra, lo, &back));   /* even: extra + lo */
  GRT_RETURN_IF_ERROR(bin(s, "Sub", span, extra, &mirror)); /* odd: span - extra + lo */
  GRT_RETURN_IF_ERROR(bin(s, "AddV2", mirror, lo, &mirror));
  GRT_RETURN_IF_ERROR(odd(s, flips, &o));
  GRT_RETURN_IF_ERROR(bin(s, "Sub", mirror, back, &diff));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", diff, o, &pick));
  return bin(s, "AddV2", back, pick, out);
}

/* The padding mode's coordinate (size as float64 scalar, last = size-1). */
static grt_status* pad_coord(sampler* s, const char* x, const char* size, const char* last,
                             const char** out) {
  if (s->pad == GS_ZEROS) {
    *out = x;
    return NULL;
  }
  if (s->pad == GS_REFLECTION) {
    const char* twice;
    if (s->align) {
      GRT_RETURN_IF_ERROR(bin(s, "AddV2", last, last, &twice));
      GRT_RETURN_IF_ERROR(reflect(s, x, 0, twice, &x));
    } else {
      const char* one;
      GRT_RETURN_IF_ERROR(num(s, 1, &one));
      GRT_RETURN_IF_ERROR(bin(s, "AddV2", size, size, &twice));
      GRT_RETURN_IF_ERROR(bin(s, "Sub", twice, one, &twice));
      GRT_RETURN_IF_ERROR(reflect(s, x, -1, twice, &x));
    }
  }
  return clamp(s, x, last, out);
}

/* X at integer-valued (x, y) [N,Ho,Wo,1] times weight (0 outside the
 * image): [N,Ho,Wo,C] of X's type. */
static grt_status* sample(sampler* s, const char* x, const char* y, const char* w,
                          const char* lastx, const char* lasty, const char** out) {
  const char *zero, *a, *b, *c, *d, *m, *cx, *cy, *xi, *yi, *three, *coords, *g, *wt;
  GRT_RETURN_IF_ERROR(num(s, 0, &zero));
  GRT_RETURN_IF_ERROR(test(s, "GreaterEqual", x, zero, &a));
  GRT_RETURN_IF_ERROR(test(s, "GreaterEqual", lastx, x, &b));
  GRT_RETURN_IF_ERROR(test(s, "GreaterEqual", y, zero, &c));
  GRT_RETURN_IF_ERROR(test(s, "GreaterEqual", lasty, y, &d));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", a, b, &m));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", m, c, &m));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", m, d, &m));
  GRT_RETURN_IF_ERROR(bin(s, "Mul", w, m, &wt));
  GRT_RETURN_IF_ERROR(clamp(s, x, lastx, &cx));
  GRT_RETURN_IF_ERROR(clamp(s, y, lasty, &cy));
  GRT_RETURN_IF_ERROR(cast(s, cx, GRT_FLOAT64, GRT_INT64, &xi));
  GRT_RETURN_IF_ERROR(cast(s, cy, GRT_FLOAT64, GRT_INT64, &yi));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(s->ctx, GRT_INT32, 3, &three));
  const char* parts[4] = {s->batch, yi, xi, three};
  int32_t idx;
  GRT_RETURN_IF_ERROR(
      onnx_emit(s->ctx, "ConcatV2", "gs_coords", GRT_INT64, parts, 4, &idx, &coords));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(s->ctx->g, idx, "N", 3));
  const char* gin[2] = {s->xt, coords};
  GRT_RETURN_IF_ERROR(
      onnx_emit(s->ctx, "GatherNd", "gs_gather", GRT_DTYPE_INVALID, gin, 2, &idx, &g));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(s->ctx->g, idx, "Tparams", s->t));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(s->ctx->g, idx, "Tindices", GRT_INT64));
  GRT_RETURN_IF_ERROR(cast(s, wt, GRT_FLOAT64, s->t, &wt));
  const char* mul[2] = {g, wt};
  return onnx_emit(s->ctx, "Mul", "gs_term", s->t, mul, 2, NULL, out);
}

static grt_status* add_term(sampler* s, const char** sum, const char* term) {
  if (!*sum) {
    *sum = term;
    return NULL;
  }
  const char* in[2] = {*sum, term};
  return onnx_emit(s->ctx, "AddV2", "gs_sum", s->t, in, 2, NULL, sum);
}

/* Cubic convolution weights (A = -0.75) of the 4 neighbours at distance
 * t+1, t, 1-t, 2-t. */
static grt_status* cubic_weights(sampler* s, const char* t, const char** w) {
  const double a = -0.75;
  const char *one, *two, *d[4];
  GRT_RETURN_IF_ERROR(num(s, 1, &one));
  GRT_RETURN_IF_ERROR(num(s, 2, &two));
  GRT_RETURN_IF_ERROR(bin(s, "AddV2", t, one, &d[0]));
  d[1] = t;
  GRT_RETURN_IF_ERROR(bin(s, "Sub", one, t, &d[2]));
  GRT_RETURN_IF_ERROR(bin(s, "Sub", two, t, &d[3]));
  for (int i = 0; i < 4; i++) {
    const char *c1, *c2, *c3, *v;
    bool near = i == 1 || i == 2;
    /* near: ((A+2)d - (A+3)) d² + 1;  far: ((A d - 5A) d + 8A) d - 4A */
    GRT_RETURN_IF_ERROR(num(s, near ? a + 2 : a, &c1));
    GRT_RETURN_IF_ERROR(num(s, near ? a + 3 : 5 * a, &c2));
    GRT_RETURN_IF_ERROR(bin(s, "Mul", d[i], c1, &v));
    GRT_RETURN_IF_ERROR(bin(s, "Sub", v, c2, &v));
    GRT_RETURN_IF_ERROR(bin(s, "Mul", v, d[i], &v));
    if (near) {
      GRT_RETURN_IF_ERROR(bin(s, "Mul", v, d[i], &v));
      GRT_RETURN_IF_ERROR(bin(s, "AddV2", v, one, &w[i]));
    } else {
      GRT_RETURN_IF_ERROR(num(s, 8 * a, &c3));
      GRT_RETURN_IF_ERROR(bin(s, "AddV2", v, c3, &v));
      GRT_RETURN_IF_ERROR(bin(s, "Mul", v, d[i], &v));
      GRT_RETURN_IF_ERROR(num(s, 4 * a, &c3));
      GRT_RETURN_IF_ERROR(bin(s, "Sub", v, c3, &w[i]));
    }
  }
  return NULL;
}

static grt_status* str_attr(onnx_import* ctx, const char* name, const char* const* names, int n,
                            int* out) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, name);
  *out = 0;
  if (!a) return NULL;
  for (int i = 0; a->has_s && i < n; i++)
    if (a->s.len == strlen(names[i]) && memcmp(a->s.data, names[i], a->s.len) == 0) {
      *out = i;
      return NULL;
    }
  return GRT_ERROR(INVALID_ARGUMENT, "unknown %s", name);
}

static grt_status* grid_sample(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *grid;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &grid));
  if (x->rank != 4) return GRT_ERROR(UNIMPLEMENTED, "only 4-D inputs of known rank are supported");
  if (x->dtype != GRT_FLOAT32 && x->dtype != GRT_FLOAT64)
    return GRT_ERROR(UNIMPLEMENTED, "X must be float32 or float64");
  static const char* const kModes[] = {"bilinear", "nearest", "bicubic"};
  static const char* const kPads[] = {"zeros", "border", "reflection"};
  int mode, pad;
  int64_t align;
  GRT_RETURN_IF_ERROR(str_attr(ctx, "mode", kModes, 3, &mode));
  GRT_RETURN_IF_ERROR(str_attr(ctx, "padding_mode", kPads, 3, &pad));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "align_corners", 0, &align));
  sampler s = {ctx, (gs_mode)mode, (gs_pad)pad, align != 0, x->dtype, NULL, NULL};
  static const int64_t kNhwc[4] = {0, 2, 3, 1}, kNchw[4] = {0, 3, 1, 2};
  const char *perm, *xs, *g, *three, *split, *gx, *gy, *wf, *hf, *lastx, *lasty, *one, *half, *ix,
      *iy, *y = NULL;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kNhwc, 4, &perm));
  const char* tin[2] = {x->ref, perm};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", "nhwc", x->dtype, tin, 2, &idx, &s.xt));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64));
  /* sizes */
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", x->dtype, &x->ref, 1, &idx, &xs));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
  GRT_RETURN_IF_ERROR(cast(&s, xs, GRT_INT64, GRT_FLOAT64, &xs));
  const char* dimv[2];
  for (int i = 0; i < 2; i++) {
    const char *b, *n, *sl, *none;
    int64_t at = 2 + i, len = 1;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &len, 1, &n));
    const char* in[3] = {xs, b, n};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "size", GRT_FLOAT64, in, 3, &idx, &sl));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, NULL, 0, &none));
    const char* rs[2] = {sl, none};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "size", GRT_FLOAT64, rs, 2, &idx, &dimv[i]));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  }
  hf = dimv[0];
  wf = dimv[1];
  GRT_RETURN_IF_ERROR(num(&s, 1, &one));
  GRT_RETURN_IF_ERROR(num(&s, 0.5, &half));
  GRT_RETURN_IF_ERROR(bin(&s, "Sub", wf, one, &lastx));
  GRT_RETURN_IF_ERROR(bin(&s, "Sub", hf, one, &lasty));
  /* grid -> gx, gy [N,Ho,Wo,1] float64 */
  GRT_RETURN_IF_ERROR(cast(&s, grid->ref, grid->dtype, GRT_FLOAT64, &g));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 3, &three));
  const char* sp[2] = {three, g};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Split", "xy", GRT_FLOAT64, sp, 2, &idx, &split));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "num_split", 2));
  gx = split;
  size_t len = strlen(split) + 3;
  char* second = grt_arena_alloc(ctx->g->arena, len);
  if (!second) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  memcpy(second, split, len - 3);
  memcpy(second + len - 3, ":1", 3);
  gy = second;
  /* batch index of every sample: Range(N) as [N,1,1,1] + zeros */
  {
    const char *zi, *oi, *n64, *n, *seq, *shaped, *zeros, *gi;
    GRT_RETURN_IF_ERROR(cast(&s, gx, GRT_FLOAT64, GRT_INT64, &gi));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zeros", GRT_INT64, &gi, 1, NULL, &zeros));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", x->dtype, &x->ref, 1, &idx, &n64));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
    int64_t at = 0, l1 = 1, sh[4] = {-1, 1, 1, 1};
    const char *b, *ln, *sl, *none, *shp;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &l1, 1, &ln));
    const char* in[3] = {n64, b, ln};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "batch", GRT_INT64, in, 3, &idx, &sl));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, NULL, 0, &none));
    const char* rs[2] = {sl, none};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "batch", GRT_INT64, rs, 2, &idx, &n));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &zi));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &oi));
    const char* rg[3] = {zi, n, oi};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Range", "batch", GRT_DTYPE_INVALID, rg, 3, &idx, &seq));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, sh, 4, &shp));
    const char* r2[2] = {seq, shp};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "batch", GRT_INT64, r2, 2, &idx, &shaped));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
    const char* ad[2] = {shaped, zeros};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "AddV2", "batch", GRT_INT64, ad, 2, NULL, &s.batch));
  }
  /* unnormalise */
  const char* c[2] = {gx, gy};
  const char* size[2] = {wf, hf};
  const char* last[2] = {lastx, lasty};
  const char* pix[2];
  for (int i = 0; i < 2; i++) {
    const char* v;
    GRT_RETURN_IF_ERROR(bin(&s, "AddV2", c[i], one, &v));
    if (s.align) {
      GRT_RETURN_IF_ERROR(bin(&s, "Mul", v, half, &v));
      GRT_RETURN_IF_ERROR(bin(&s, "Mul", v, last[i], &pix[i]));
    } else {
      GRT_RETURN_IF_ERROR(bin(&s, "Mul", v, size[i], &v));
      GRT_RETURN_IF_ERROR(bin(&s, "Sub", v, one, &v));
      GRT_RETURN_IF_ERROR(bin(&s, "Mul", v, half, &pix[i]));
    }
  }
  if (s.mode == GS_BICUBIC) {
    const char *x0, *y0, *tx, *ty, *wx[4], *wy[4];
    GRT_RETURN_IF_ERROR(floor_f(&s, pix[0], &x0));
    GRT_RETURN_IF_ERROR(floor_f(&s, pix[1], &y0));
    GRT_RETURN_IF_ERROR(bin(&s, "Sub", pix[0], x0, &tx));
    GRT_RETURN_IF_ERROR(bin(&s, "Sub", pix[1], y0, &ty));
    GRT_RETURN_IF_ERROR(cubic_weights(&s, tx, wx));
    GRT_RETURN_IF_ERROR(cubic_weights(&s, ty, wy));
    const char *xn[4], *yn[4];
    for (int i = 0; i < 4; i++) {
      const char* o;
      GRT_RETURN_IF_ERROR(num(&s, i - 1, &o));
      GRT_RETURN_IF_ERROR(bin(&s, "AddV2", x0, o, &xn[i]));
      GRT_RETURN_IF_ERROR(pad_coord(&s, xn[i], wf, lastx, &xn[i]));
      GRT_RETURN_IF_ERROR(floor_f(&s, xn[i], &xn[i])); /* the padded coordinate read as an index */
      GRT_RETURN_IF_ERROR(bin(&s, "AddV2", y0, o, &yn[i]));
      GRT_RETURN_IF_ERROR(pad_coord(&s, yn[i], hf, lasty, &yn[i]));
      GRT_RETURN_IF_ERROR(floor_f(&s, yn[i], &yn[i]));
    }
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        const char *w, *term;
        GRT_RETURN_IF_ERROR(bin(&s, "Mul", wx[i], wy[j], &w));
        GRT_RETURN_IF_ERROR(sample(&s, xn[i], yn[j], w, lastx, lasty, &term));
        GRT_RETURN_IF_ERROR(add_term(&s, &y, term));
      }
  } else {
    GRT_RETURN_IF_ERROR(pad_coord(&s, pix[0], wf, lastx, &ix));
    GRT_RETURN_IF_ERROR(pad_coord(&s, pix[1], hf, lasty, &iy));
    if (s.mode == GS_NEAREST) {
      const char *xr, *yr;
      GRT_RETURN_IF_ERROR(round_even(&s, ix, &xr));
      GRT_RETURN_IF_ERROR(round_even(&s, iy, &yr));
      GRT_RETURN_IF_ERROR(sample(&s, xr, yr, one, lastx, lasty, &y));
    } else {
      const char *x0, *y0, *x1, *y1, *wx1, *wy1, *wx0, *wy0;
      GRT_RETURN_IF_ERROR(floor_f(&s, ix, &x0));
      GRT_RETURN_IF_ERROR(floor_f(&s, iy, &y0));
      GRT_RETURN_IF_ERROR(bin(&s, "AddV2", x0, one, &x1));
      GRT_RETURN_IF_ERROR(bin(&s, "AddV2", y0, one, &y1));
      GRT_RETURN_IF_ERROR(bin(&s, "Sub", ix, x0, &wx1));
      GRT_RETURN_IF_ERROR(bin(&s, "Sub", iy, y0, &wy1));
      GRT_RETURN_IF_ERROR(bin(&s, "Sub", x1, ix, &wx0));
      GRT_RETURN_IF_ERROR(bin(&s, "Sub", y1, iy, &wy0));
      const char* xs4[2] = {x0, x1};
      const char* ys4[2] = {y0, y1};
      const char* wxs[2] = {wx0, wx1};
      const char* wys[2] = {wy0, wy1};
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
          const char *w, *term;
          GRT_RETURN_IF_ERROR(bin(&s, "Mul", wxs[i], wys[j], &w));
          GRT_RETURN_IF_ERROR(sample(&s, xs4[i], ys4[j], w, lastx, lasty, &term));
          GRT_RETURN_IF_ERROR(add_term(&s, &y, term));
        }
    }
  }
  const char* back;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kNchw, 4, &back));
  const char* bin2[2] = {y, back};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", NULL, x->dtype, bin2, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, 4);
}

const onnx_op_row grt_onnx_ops_grid_sample[] = {
    {"GridSample", grid_sample, NULL, "align_corners,mode,padding_mode"},
    {NULL, NULL, NULL, NULL},
};
