/* Fuzz target for the .npy reader: any bytes give a tensor or an error. */
#include <stddef.h>
#include <stdint.h>

#include "graph_format/npy.h"
#include "base/status.h"
#include "base/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  grt_tensor* t = NULL;
  grt_status* s = grt_npy_parse(data, size, "fuzz.npy", &t);
  if ((s == NULL) == (t == NULL)) __builtin_trap(); /* exactly one of them */
  grt_status_free(s);
  grt_tensor_free(t);
  return 0;
}
