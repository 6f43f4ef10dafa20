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

/* The product's rows and cols from the last two dims of inputs 0 and 1,
 * transposed where the bool attrs `fa` and `fb` say; known inner dims must
 * agree. */
static grt_status* matrix_dims(grt_shape_ctx* c, const char* fa, const char* fb, int64_t* rows,
                               int64_t* cols) {
  bool ta, tb;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, fa, &ta));
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, fb, &tb));
  const grt_shape* a = &c->input_shapes[0];
  const grt_shape* b = &c->input_shapes[1];
  int64_t ka = dim_from_end(a, ta ? 2 : 1), kb = dim_from_end(b, tb ? 1 : 2);
  if (ka >= 0 && kb >= 0 && ka != kb) return inner_mismatch(a, b, ka, kb, fa, ta, fb, tb);
  *rows = dim_from_end(a, ta ? 1 : 2);
  *cols = dim_from_end(b, tb ? 2 : 1);
  return NULL;
}

grt_status* grt_infer_matmul(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 2));
  int64_t dims[2];
  GRT_RETURN_IF_ERROR(matrix_dims(c, "transpose_a", "transpose_b", &dims[0], &dims[1]));
  return grt_infer_make(2, dims, &c->output_shapes[0]);
}

/* Batch dimensions broadcast as in element-wise ops; adj_x/adj_y transpose
 * the last two dimensions of each side. */
grt_status* grt_infer_batch_matmul_v2(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 1, 2));
  int64_t rows, cols;
  GRT_RETURN_IF_ERROR(matrix_dims(c, "adj_x", "adj_y", &rows, &cols));
  const grt_shape* x = &c->input_shapes[0];
  const grt_shape* y = &c->input_shapes[1];
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
