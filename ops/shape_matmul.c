/* Shape functions of MatMul and BatchMatMulV2. */

#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"

/* Dim i of s counted from the end (1 = last); -1 when the rank is unknown. */
static int64_t dim_from_end(const grt_shape* s, int32_t i) {
  return s->rank >= i ? s->dims[s->rank - i] : -1;
}

static grt_status* inner_mismatch(const grt_shape* a, const grt_shape* b, int64_t ka, int64_t kb,
                                  const char* fa, bool va, const char* fb, bool vb) {
  char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT,
                   "Matrix size-incompatible: In[0]: %s, In[1]: %s (inner dimensions %lld and %lld "
                   "differ, %s=%s, %s=%s)",
                   grt_shape_str(a, sa, sizeof sa), grt_shape_str(b, sb, sizeof sb), (long long)ka,
                   (long long)kb, fa, va ? "true" : "false", fb, vb ? "true" : "false");
}

grt_status* grt_infer_matmul(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 2));
  bool ta, tb;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "transpose_a", &ta));
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "transpose_b", &tb));
  const grt_shape* a = &c->input_shapes[0];
  const grt_shape* b = &c->input_shapes[1];
  int64_t rows = dim_from_end(a, ta ? 1 : 2), ka = dim_from_end(a, ta ? 2 : 1);
  int64_t kb = dim_from_end(b, tb ? 1 : 2), cols = dim_from_end(b, tb ? 2 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb)
    return inner_mismatch(a, b, ka, kb, "transpose_a", ta, "transpose_b", tb);
  int64_t dims[2] = {rows, cols};
  return grt_infer_make(2, dims, &c->output_shapes[0]);
}

/* Batch dimensions broadcast as in element-wise ops; adj_x/adj_y transpose
 * the last two dimensions of each side. */
grt_status* grt_infer_batch_matmul_v2(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 1, 2));
  bool ax, ay;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "adj_x", &ax));
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "adj_y", &ay));
  const grt_shape* x = &c->input_shapes[0];
  const grt_shape* y = &c->input_shapes[1];
  int64_t rows = dim_from_end(x, ax ? 1 : 2), kx = dim_from_end(x, ax ? 2 : 1);
  int64_t ky = dim_from_end(y, ay ? 1 : 2), cols = dim_from_end(y, ay ? 2 : 1);
  if (kx >= 0 && ky >= 0 && kx != ky) return inner_mismatch(x, y, kx, ky, "adj_x", ax, "adj_y", ay);
  if (x->rank < 0 || y->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  grt_shape bx = *x, by = *y, batch;
  bx.rank -= 2;
  by.rank -= 2;
  grt_status* s = grt_infer_broadcast(&bx, &by, true, &batch);
  if (s) return grt_status_prefix(s, "batch dimensions of x and y must broadcast");
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < batch.rank; i++) dims[i] = batch.dims[i];
  dims[batch.rank] = rows;
  dims[batch.rank + 1] = cols;
  return grt_infer_make(batch.rank + 2, dims, &c->output_shapes[0]);
}
