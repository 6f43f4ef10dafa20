/* The header of a .npy file: a Python dict literal, parsed as one. */
#ifndef GRT_GRAPH_FORMAT_NPY_HEADER_H_
#define GRT_GRAPH_FORMAT_NPY_HEADER_H_

#include <stdbool.h>
#include <stddef.h>

#include "base/shape.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char descr[16]; /* the 'descr' string, e.g. "<f4" */
  bool fortran_order;
  grt_shape shape;
} grt_npy_header;

/* Parses `len` bytes of header text, which must be exactly
 * {'descr': STR, 'fortran_order': True|False, 'shape': TUPLE} as Python
 * reads it: each key once, no other key, string keys in either quote, a
 * tuple of non-negative ints ((), (3,), (2, 4), trailing commas allowed;
 * (3) is an int, not a tuple), blanks between tokens, then only blanks and
 * the closing newline. Errors name `name` and the field. */
GRT_MUST_USE grt_status* grt_npy_header_parse(const char* text, size_t len, const char* name,
                                              grt_npy_header* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_NPY_HEADER_H_ */
