/* grt/op_reference.h: the op registry and the kernel support rows, read out
 * for references. Here rather than in ops/ because a reference wants both,
 * and the support rows sit above the ops. */
#include "grt/op_reference.h"

#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "kernels/kernel_registry.h"
#include "ops/grad.h"
#include "ops/op_def.h"

static void fill_info(const grt_op_def* def, grt_op_info* out) {
  const grt_op_spec* spec = def->spec;
  *out = (grt_op_info){
      .name = def->name,
      .family = def->family ? def->family : "",
      .inputs = spec && spec->inputs ? spec->inputs : "",
      .outputs = spec && spec->outputs ? spec->outputs : "",
      .attrs = spec && spec->attrs ? spec->attrs : "",
      .stateful = (def->flags & GRT_OP_STATEFUL) != 0,
      .differentiable = def->grad && def->grad->fn,
  };
}

int32_t grt_op_info_count(void) { return grt_op_count(); }

bool grt_op_info_at(int32_t i, grt_op_info* out) {
  const grt_op_def* def = grt_op_at(i);
  if (!def || !out) return false;
  fill_info(def, out);
  return true;
}

bool grt_op_info_find(const char* name, grt_op_info* out) {
  const grt_op_def* def = grt_op_lookup(name);
  if (!def || !out) return false;
  fill_info(def, out);
  return true;
}

int32_t grt_op_kernel_info_count(const char* op) { return op ? grt_kernel_find_op(op, NULL) : 0; }

/* The names of the arguments whose bits are set in `mask`. */
static size_t append_args(char* buf, size_t size, size_t len, const char** sep,
                          const grt_arg_def* args, int32_t n, uint32_t mask) {
  for (int32_t a = 0; a < n && a < 32; a++) {
    if (!(mask & (1u << a))) continue;
    len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", *sep, args[a].name);
    *sep = ", ";
  }
  return len;
}

/* From the parsed row, not the row's strings: an int32-on-host row has no
 * string of its own (kernels/kernel_registry.h). */
bool grt_op_kernel_info_at(const char* op, int32_t i, grt_op_kernel_info* out) {
  const grt_kernel_def* const* rows;
  int32_t n = op ? grt_kernel_find_op(op, &rows) : 0;
  if (i < 0 || i >= n || !out) return false;
  const grt_kernel_def* k = rows[i];
  memset(out, 0, sizeof *out);
  out->device = grt_device_type_name(k->device);
  out->priority = k->priority;
  size_t len = 0, size = sizeof out->constraints;
  for (int32_t c = 0; c < k->n_constraints; c++) {
    len += (size_t)snprintf(out->constraints + len, len < size ? size - len : 0, "%s%s in [",
                            c ? "; " : "", k->constraints[c].attr);
    const char* sep = "";
    for (int t = 1; t < GRT_NUM_DTYPES; t++) {
      if (!(k->constraints[c].allowed & grt_dtype_bit((grt_dtype)t))) continue;
      len += (size_t)snprintf(out->constraints + len, len < size ? size - len : 0, "%s%s", sep,
                              grt_dtype_name((grt_dtype)t));
      sep = ", ";
    }
    len += (size_t)snprintf(out->constraints + len, len < size ? size - len : 0, "]");
  }
  const grt_op_def* def = grt_op_lookup(k->op);
  if (def) {
    const char* sep = "";
    size_t hlen = append_args(out->host_memory, sizeof out->host_memory, 0, &sep, def->inputs,
                              def->n_inputs, k->host_inputs);
    append_args(out->host_memory, sizeof out->host_memory, hlen, &sep, def->outputs, def->n_outputs,
                k->host_outputs);
  }
  return true;
}
