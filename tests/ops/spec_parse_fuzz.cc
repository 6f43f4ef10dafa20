// Fuzz target for the op spec parser: the input is split at NUL bytes into
// inputs, outputs and attrs sections. Malformed specs must give an error,
// never a crash; a parsed def must be self-consistent.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include "ops/op_def.h"
#include "base/arena.h"
#include "base/status.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string parts[3];
  size_t k = 0;
  for (size_t i = 0; i < size && k < 3; i++) {
    if (data[i] == 0)
      k++;
    else
      parts[k].push_back(static_cast<char>(data[i]));
  }
  grt_arena* arena = grt_arena_new();
  if (!arena) return 0;
  grt_op_spec spec = {"FuzzOp", parts[0].c_str(), parts[1].c_str(), parts[2].c_str(), 0, nullptr};
  grt_op_def def;
  grt_status* s = grt_op_spec_parse(&spec, arena, &def);
  if (s) {
    if (grt_status_code(s) != GRT_INVALID_ARGUMENT && grt_status_code(s) != GRT_RESOURCE_EXHAUSTED)
      abort();
    grt_status_free(s);
  } else {
    // Every arg's type attr and number attr must name a declared attr.
    for (int32_t side = 0; side < 2; side++) {
      const grt_arg_def* args = side ? def.outputs : def.inputs;
      int32_t n = side ? def.n_outputs : def.n_inputs;
      for (int32_t i = 0; i < n; i++) {
        const grt_arg_def& a = args[i];
        if (a.type_attr && grt_op_find_attr(&def, a.type_attr)->type != GRT_ATTR_TYPE) abort();
        if (a.number_attr && grt_op_find_attr(&def, a.number_attr)->type != GRT_ATTR_INT) abort();
        if (!a.type_attr && (a.type <= GRT_DTYPE_INVALID || a.type > GRT_BOOL)) abort();
      }
    }
  }
  grt_arena_free(arena);
  return 0;
}
