/* Attr values and tensors in the JSON text form: the pieces shared by the
 * reader (json_read.c) and the writer (json_write.c), exposed for tests.
 *
 * Errors from these functions describe the fault without saying where it
 * is ("expected an integer, got a string"); callers put the node and attr
 * in front. */
#ifndef GRT_GRAPH_FORMAT_JSON_VALUE_H_
#define GRT_GRAPH_FORMAT_JSON_VALUE_H_

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "graph_format/json_buf.h"
#include "ops/attr.h"
#include "base/arena.h"
#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tensors with more elements than this are written as base64: a values
 * list of that size is no longer something a person reads. */
#define GRT_JSON_MAX_VALUES 4096

/* The most bytes one tensor in the text form may take. A two-number
 * "values" fill can ask for any size, so the limit stops a small file from
 * making the reader allocate and fill terabytes. */
#define GRT_JSON_MAX_TENSOR_BYTES ((size_t)1 << 30)

/* "a string", "an integer", ... for messages. */
const char* grt_json_kind(const json_t* j);

/* ---- reading ---- */

/* A shape: a list of ints (each >= 0, or -1 where `allow_unknown`) of at
 * most GRT_MAX_RANK; null (unknown rank) only where `allow_unknown`. */
GRT_MUST_USE grt_status* grt_json_read_shape(const json_t* j, bool allow_unknown, grt_shape* out);

/* A tensor {"dtype", "shape", "values" | "base64"}, allocated from the host
 * allocator. Caller owns *out. */
GRT_MUST_USE grt_status* grt_json_read_tensor(const json_t* j, grt_tensor** out);

/* Reads `j` as an attr of declared type `type` (a scalar type or a list of
 * one). Strings and lists are allocated from `arena`; tensors are new
 * references the caller owns (grt_attr_value_release drops them). */
GRT_MUST_USE grt_status* grt_json_read_attr(const json_t* j, grt_attr_type type, grt_arena* arena,
                                            grt_attr_value* out);

/* ---- writing ---- */

/* Appends the tensor as one line: the values form when it has at most
 * GRT_JSON_MAX_VALUES elements, all finite (a tensor whose elements are all
 * the same is written as a one-value fill), else the base64 form. */
GRT_MUST_USE grt_status* grt_json_write_tensor(grt_strbuf* b, const grt_tensor* t);

/* Appends the tensor as one line with every element in "values", whatever
 * its size or contents: floats in their shortest round-trip spelling,
 * non-finite ones as the strings "NaN", "Infinity" and "-Infinity" (which
 * the reader accepts). For programs that read fetched values. */
GRT_MUST_USE grt_status* grt_json_write_tensor_full(grt_strbuf* b, const grt_tensor* t);

/* Appends the attr value on one line. Non-finite float attrs, which JSON
 * numbers cannot hold, are written as the strings "NaN", "Infinity" and
 * "-Infinity", which the reader accepts for float attrs. */
GRT_MUST_USE grt_status* grt_json_write_attr(grt_strbuf* b, const grt_attr_value* v);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_JSON_VALUE_H_ */
