/* A graph's signature (tools/signature.h), printed from the library's
 * grt_graph_node_roles. */
#include "tools/signature.h"

#include <stdlib.h>
#include <string.h>

const char* grt_cli_shape_str(const grt_graph* g, int32_t node, int32_t k, char* buf, size_t size) {
  int32_t rank;
  int64_t dims[GRT_MAX_RANK];
  grt_status* s = grt_graph_node_output_shape(g, node, k, &rank, dims);
  if (s) {
    grt_status_free(s);
    return "-";
  }
  if (rank < 0) return "?";
  size_t len = (size_t)snprintf(buf, size, "[");
  for (int32_t d = 0; d < rank && len < size; d++) {
    if (dims[d] < 0)
      len += (size_t)snprintf(buf + len, size - len, "%s?", d ? "," : "");
    else
      len += (size_t)snprintf(buf + len, size - len, "%s%lld", d ? "," : "", (long long)dims[d]);
  }
  if (len < size) snprintf(buf + len, size - len, "]");
  return buf;
}

static void put_json_string(FILE* f, const char* s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* Output k of `node`: "  name:k  dtype  shape" or a JSON object with the
 * shape as a list (-1 for an unknown dimension; null for an unknown rank). */
static void print_tensor(FILE* f, const grt_graph* g, int32_t node, int32_t k, bool json) {
  char name[512], shape[GRT_MAX_RANK * 21 + 4];
  if (k)
    snprintf(name, sizeof name, "%s:%d", grt_graph_node_name(g, node), (int)k);
  else
    snprintf(name, sizeof name, "%s", grt_graph_node_name(g, node));
  const char* dtype = grt_dtype_name(grt_graph_node_output_type(g, node, k));
  /* A feed an importer renamed (an ONNX input whose name grt cannot use)
   * shows the model's name beside the one to feed. */
  const char* original = "";
  if (grt_graph_node_attr_type(g, node, "onnx_name") == GRT_ATTR_STRING)
    grt_status_free(grt_graph_node_attr_string(g, node, "onnx_name", &original));
  if (!json) {
    fprintf(f, "  %-32s %-10s %s", name, dtype, grt_cli_shape_str(g, node, k, shape, sizeof shape));
    if (*original) fprintf(f, "  (ONNX name '%s')", original);
    fputc('\n', f);
    return;
  }
  fprintf(f, "{\"name\": ");
  put_json_string(f, name);
  if (*original) {
    fprintf(f, ", \"onnx_name\": ");
    put_json_string(f, original);
  }
  fprintf(f, ", \"dtype\": \"%s\", \"shape\": ", dtype);
  int32_t rank = -1;
  int64_t dims[GRT_MAX_RANK];
  grt_status* st = grt_graph_node_output_shape(g, node, k, &rank, dims);
  if (st || rank < 0) {
    fprintf(f, "null}");
  } else {
    fputc('[', f);
    for (int32_t d = 0; d < rank; d++)
      fprintf(f, "%s%lld", d ? ", " : "", (long long)(dims[d] < 0 ? -1 : dims[d]));
    fprintf(f, "]}");
  }
  grt_status_free(st);
}

static void print_target(FILE* f, const grt_graph* g, int32_t node, bool json) {
  int32_t waits = grt_graph_node_num_control_inputs(g, node) + grt_graph_node_num_inputs(g, node);
  if (!json) {
    fprintf(f, "  %-32s %-10s waits for %d node%s\n", grt_graph_node_name(g, node),
            grt_graph_node_op(g, node), (int)waits, waits == 1 ? "" : "s");
    return;
  }
  fprintf(f, "{\"name\": ");
  put_json_string(f, grt_graph_node_name(g, node));
  fprintf(f, ", \"op\": ");
  put_json_string(f, grt_graph_node_op(g, node));
  fprintf(f, ", \"waits_for\": %d}", (int)waits);
}

/* One section: its heading (a JSON key) and every item of role `r`. */
static void print_section(FILE* f, const grt_graph* g, const grt_node_role* roles, grt_node_role r,
                          const char* heading, bool json) {
  int32_t n = grt_graph_num_nodes(g), count = 0;
  fprintf(f, json ? "\"%s\": [" : "%s:\n", heading);
  for (int32_t i = 0; i < n; i++) {
    if (roles[i] != r) continue;
    int32_t outputs = r == GRT_ROLE_OUTPUT ? grt_graph_node_num_outputs(g, i) : 1;
    for (int32_t k = 0; k < outputs; k++) {
      if (json && count) fprintf(f, ", ");
      if (r == GRT_ROLE_TARGET)
        print_target(f, g, i, json);
      else
        print_tensor(f, g, i, k, json);
      count++;
    }
  }
  if (json)
    fprintf(f, "]");
  else if (!count)
    fprintf(f, "  none\n");
}

bool grt_cli_print_signature(FILE* f, const grt_graph* g, bool json) {
  int32_t n = grt_graph_num_nodes(g);
  grt_node_role* roles = calloc((size_t)n + 1, sizeof *roles);
  grt_status* st = roles ? grt_graph_node_roles(g, roles) : NULL;
  if (!roles || st) {
    grt_status_free(st);
    free(roles);
    return false;
  }
  if (json) fprintf(f, "{");
  print_section(f, g, roles, GRT_ROLE_FEED, "feeds", json);
  if (json) fprintf(f, ", ");
  print_section(f, g, roles, GRT_ROLE_OUTPUT, "outputs", json);
  if (json) fprintf(f, ", ");
  print_section(f, g, roles, GRT_ROLE_TARGET, "targets", json);
  if (json) fprintf(f, "}\n");
  free(roles);
  return true;
}
