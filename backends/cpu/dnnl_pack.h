/* Constant weights packed once into a oneDNN primitive's layout.
 *
 * Why: a primitive asked for weights in "any" layout picks a blocked one
 * its kernel reads fastest, and weights in grt's plain layout must be
 * reordered into it before each call. When the weights are a Const (the
 * session's rewrite pass marks such nodes `_grt_const_b`), the reordered
 * copy is the same every run, so it is made on the first run and kept in
 * the node's state. Used by MatMul/_FusedMatMul (matmul_dnnl.c) and
 * Conv2D, DepthwiseConv2dNative and _FusedConv2D (conv.c, conv_fused.c).
 *
 * The same holds for a variable that no run writes while it is read: the
 * copy is keyed on the variable's version as well (op_kernel.h), so a
 * value assigned between runs is packed again.
 *
 * A copy is found by the weights' address and the plan key it was made
 * for; a node keeps at most GRT_DNNL_PACKS copies, after which it
 * reorders per call. */
#ifndef GRT_BACKENDS_CPU_DNNL_PACK_H_
#define GRT_BACKENDS_CPU_DNNL_PACK_H_

#include <dnnl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRT_DNNL_PACKS 4
#define GRT_DNNL_PACK_KEY_MAX 40

typedef struct grt_dnnl_packed {
  const void* src;
  int64_t key[GRT_DNNL_PACK_KEY_MAX];
  int32_t key_n;
  uint64_t version; /* the variable's version packed (0 for a Const) */
  int32_t users;    /* calls reading data now, under the mutex */
  void* raw;        /* what grt_malloc returned; data is raw aligned to 64 */
  void* data;
} grt_dnnl_packed;

/* A node's packed copies (part of its kernel state). */
typedef struct grt_dnnl_packs {
  pthread_mutex_t mu;
  int32_t n;
  grt_dnnl_packed items[GRT_DNNL_PACKS];
  /* The variable weights' address and version on the node's last call. */
  const void* seen_src;
  uint64_t seen_version;
  bool seen;
} grt_dnnl_packs;

void grt_dnnl_packs_init(grt_dnnl_packs* p);
void grt_dnnl_packs_free(grt_dnnl_packs* p);

/* Whether the weights (input 1) of this call may be packed and kept, and
 * under which version:
 *   - a Const (`_grt_const_b`, set by the session's rewrite pass): always,
 *     version 0;
 *   - a variable (`_grt_var_b`, and the executor gave the variable in
 *     input_refs[1]): when no write of it is under way and this node saw
 *     the same address and version on its previous call. A variable
 *     written every run (training) thus never is, and the kernel keeps its
 *     unpacked path; one assigned between runs is packed again on the
 *     second run that sees the new value.
 * packs may be NULL (no state: never). Thread-safe. */
typedef struct grt_dnnl_weights {
  bool keep;
  uint64_t version;
} grt_dnnl_weights;
grt_dnnl_weights grt_dnnl_weights_of(const grt_kernel_ctx* ctx, grt_dnnl_packs* packs,
                                     const void* src);

struct grt_dnnl_call;

/* Weights `src` (descriptor plain) in layout `packed` for the plan under
 * key[0..n): src itself when the layouts are equal; the kept copy for
 * w.keep and packs not NULL (made now when missing or of another version,
 * unless a call still reads the old one); otherwise a reorder into a
 * temporary of `call`. *held is the kept copy handed out (or NULL): give
 * it back with grt_dnnl_packed_release once the primitive has run.
 * Thread-safe. */
GRT_MUST_USE grt_status* grt_dnnl_packed_weights(grt_dnnl_packs* packs, grt_dnnl_weights w,
                                                 struct grt_dnnl_call* call, const int64_t* key,
                                                 int32_t n, const dnnl_memory_desc_t* plain,
                                                 const void* src, const dnnl_memory_desc_t* packed,
                                                 const void** out, grt_dnnl_packed** held);
void grt_dnnl_packed_release(grt_dnnl_packs* packs, grt_dnnl_packed* held);

/* Test hook: packed copies made by this process so far. */
int64_t grt_dnnl_pack_count(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_DNNL_PACK_H_ */
