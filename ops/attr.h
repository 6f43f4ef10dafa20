/* Attr values: what a node's attrs hold in memory. */
#ifndef GRT_OPS_ATTR_H_
#define GRT_OPS_ATTR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/graph.h"
#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_attr_value {
  grt_attr_type type;
  union {
    int64_t i;
    float f; /* TensorFlow's float attrs are float32 */
    bool b;
    const char* s;
    grt_dtype t;
    grt_shape shape;
    grt_tensor* tensor; /* one reference owned by the graph */
    struct {
      int32_t n;
      union {
        int64_t* i;
        float* f;
        bool* b;
        const char** s;
        grt_dtype* t;
        grt_shape* shape;
        grt_tensor** tensor;
      } v;
    } list;
  } u;
} grt_attr_value;

typedef struct grt_attr {
  const char* name;
  grt_attr_value value;
} grt_attr;

/* "int", "list(shape)", ... as used in messages and op specs. */
const char* grt_attr_type_name(grt_attr_type t);
bool grt_attr_type_valid(int t);

/* Bytes of one element of a list of `base` (a scalar attr type) in
 * memory; 0 when `base` is not one. */
size_t grt_attr_elem_size(grt_attr_type base);
/* Stores scalar `item` (of the list's base type) as element j of `list`,
 * whose array is already allocated. */
void grt_attr_list_put(grt_attr_value* list, int32_t j, const grt_attr_value* item);
/* Element j of `list` as a scalar value of the list's base type. */
void grt_attr_list_get(const grt_attr_value* list, int32_t j, grt_attr_value* item);
/* Drops the tensor references `v` holds (a tensor or a list of them) and
 * clears those pointers; other values hold no references. */
void grt_attr_value_release(grt_attr_value* v);

struct grt_node;
struct grt_op_def;

/* The attr `name` as a node holds it: set on `node` (which may be NULL),
 * else `def`'s declared default (def may be NULL), else NULL. */
const grt_attr_value* grt_attr_lookup(const struct grt_node* node, const struct grt_op_def* def,
                                      const char* name);

/* Typed reads: the one accessor family shape functions (grt_infer_attr_*),
 * kernels (grt_kernel_attr_*) and the public getters read attrs through.
 * `v` is the attr found under `name` (NULL when there is none). Errors are
 * INVALID_ARGUMENT: "attr 'NAME' is missing", "attr 'NAME' must be int, got
 * bool"; callers put the node in front. Results borrow from `v`. */
GRT_MUST_USE grt_status* grt_attr_get(const grt_attr_value* v, const char* name, grt_attr_type want,
                                      const grt_attr_value** out);
GRT_MUST_USE grt_status* grt_attr_get_int(const grt_attr_value* v, const char* name, int64_t* out);
GRT_MUST_USE grt_status* grt_attr_get_float(const grt_attr_value* v, const char* name, float* out);
GRT_MUST_USE grt_status* grt_attr_get_bool(const grt_attr_value* v, const char* name, bool* out);
/* A NULL string value reads as "". */
GRT_MUST_USE grt_status* grt_attr_get_string(const grt_attr_value* v, const char* name,
                                             const char** out);
GRT_MUST_USE grt_status* grt_attr_get_type(const grt_attr_value* v, const char* name,
                                           grt_dtype* out);
GRT_MUST_USE grt_status* grt_attr_get_tensor(const grt_attr_value* v, const char* name,
                                             const grt_tensor** out);
GRT_MUST_USE grt_status* grt_attr_get_int_list(const grt_attr_value* v, const char* name,
                                               const int64_t** out, int32_t* out_n);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_ATTR_H_ */
