/* Fuzz target for one tensor in the JSON text form (grt run --feed
 * NAME=VALUE, grt_json_tensor_from_text). Every input is parsed or
 * rejected without a crash, leak or hang; whatever parses must print in the
 * full form (grt_json_tensor_format), read back, and print again to the
 * same text, and its compact form must read back to the same bytes unless a
 * NaN is in it (whose payload neither form keeps). A broken promise traps.
 *
 * Runs as a plain test over tensor_corpus/ with the standalone driver, or
 * under libFuzzer through scripts/fuzz_all.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/memory.h"
#include "grt/grt.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void trap(const char* why, const char* text) {
  fprintf(stderr, "%s\n%s\n", why, text ? text : "");
  __builtin_trap();
}

static int has_nan(const grt_tensor* t) {
  int64_t n = grt_tensor_num_elements(t);
  const void* p = grt_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    if (grt_tensor_dtype(t) == GRT_FLOAT32 && ((const float*)p)[i] != ((const float*)p)[i])
      return 1;
    if (grt_tensor_dtype(t) == GRT_FLOAT64 && ((const double*)p)[i] != ((const double*)p)[i])
      return 1;
    if (grt_tensor_dtype(t) == GRT_FLOAT16 || grt_tensor_dtype(t) == GRT_BFLOAT16) return 1;
  }
  return 0;
}

/* A large constant fill (one value filling millions of elements) takes
 * milliseconds to seconds per input, most of it printing every element in
 * the round trip, and finds nothing a small one does not: under a soft
 * heap limit of 1 MiB above what is in use, it fails as running out of
 * memory does, a path worth fuzzing too. (The other JSON target allows
 * 64 MiB: it never prints what it reads.) Lifted again before the round
 * trip, which holds two more tensors and their texts. */
static void cap_heap(int on) { grt_soft_heap_limit64(on ? grt_heap_used() + (1 << 20) : 0); }

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  grt_tensor* t = NULL;
  cap_heap(1);
  grt_status* s = grt_json_tensor_from_text((const char*)data, size, &t);
  cap_heap(0);
  if (s) {
    grt_status_free(s);
    return 0;
  }
  char *full = NULL, *again = NULL, *compact = NULL;
  size_t len = 0, len2 = 0, clen = 0;
  grt_tensor *back = NULL, *cback = NULL;
  s = grt_json_tensor_format(t, 0, &full, &len);
  if (!s) {
    s = grt_json_tensor_from_text(full, len, &back);
    if (s && grt_status_code(s) != GRT_RESOURCE_EXHAUSTED)
      trap("full form does not read back", full);
  }
  if (!s) {
    s = grt_json_tensor_format(back, 0, &again, &len2);
    if (!s && (len != len2 || memcmp(full, again, len) != 0))
      trap("full form changed on a round trip", full);
  }
  grt_status_free(s);
  s = grt_json_tensor_format(t, GRT_JSON_TENSOR_COMPACT, &compact, &clen);
  if (!s) s = grt_json_tensor_from_text(compact, clen, &cback);
  if (!s && !has_nan(t) &&
      memcmp(grt_tensor_data(t), grt_tensor_data(cback), grt_tensor_byte_size(t)) != 0)
    trap("compact form does not read back to the same bytes", compact);
  grt_status_free(s);
  free(full);
  free(again);
  free(compact);
  grt_tensor_free(back);
  grt_tensor_free(cback);
  grt_tensor_free(t);
  return 0;
}
