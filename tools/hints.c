/* The hint lines of tools/hints.h. They read the library's messages, whose
 * wording the tests that assert these hints keep fixed. */
#include "tools/hints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/closest.h"

/* "unknown op 'X'": the closest registered op names and where to look. */
static void unknown_op(const char* message) {
  static const char kKey[] = "unknown op '";
  const char* at = strstr(message, kKey);
  if (!at) return;
  at += sizeof kKey - 1;
  const char* end = strchr(at, '\'');
  if (!end || end == at || end - at > 63) return;
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(end - at), at);
  int32_t n = grt_op_info_count();
  const char** names = calloc((size_t)n + 1, sizeof *names);
  const char* close[3];
  size_t found = 0;
  if (names) {
    grt_op_info info;
    for (int32_t i = 0; i < n; i++) names[i] = grt_op_info_at(i, &info) ? info.name : "";
    found = grt_closest_names(name, names, (size_t)n, close, 3);
  }
  fprintf(stderr, "hint: ");
  for (size_t i = 0; i < found; i++)
    fprintf(stderr, "%s'%s'", i ? (i + 1 == found ? " or " : ", ") : "did you mean ", close[i]);
  fprintf(stderr, "%s`grt ops` lists the ops, `grt ops NAME` one op's inputs and attrs\n",
          found ? "? " : "");
  free(names);
}

void grt_cli_hint_message(const char* command, const grt_status* s) {
  const char* message = grt_status_message(s);
  unknown_op(message);
  /* The placer's words for a request it cannot meet without soft
   * placement (with it, such a node falls back instead). */
  bool placing = strcmp(command, "run") == 0 || strcmp(command, "place") == 0;
  if (placing && strstr(message, "Cannot assign a device for operation"))
    fprintf(stderr,
            "hint: with --soft-placement a node whose requested device is missing or lacks its "
            "kernel falls back to one that can run it\n");
}

/* The graph's init target: a node named "init" (what train-graph and
 * replicate make, and TensorFlow's global_variables_initializer is named),
 * else a NoOp whose name ends in "init", or NULL. */
static const char* init_target(const grt_graph* g) {
  int32_t at = grt_graph_find_node(g, "init");
  if (at >= 0) return grt_graph_node_name(g, at);
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++) {
    const char* name = grt_graph_node_name(g, i);
    size_t len = strlen(name);
    if (strcmp(grt_graph_node_op(g, i), "NoOp") == 0 && len >= 4 &&
        strcmp(name + len - 4, "init") == 0)
      return name;
  }
  return NULL;
}

void grt_cli_hint_init(const grt_graph* g, const grt_status* s) {
  const char* message = grt_status_message(s);
  if (!g || (!strstr(message, "uninitialized value") && !strstr(message, "has no value yet")))
    return;
  const char* init = init_target(g);
  if (init)
    fprintf(stderr,
            "hint: the graph's init target is '%s': add --init %s (or --restore CKPT for saved "
            "values)\n",
            init, init);
  else
    fprintf(stderr,
            "hint: run the variable's initialiser first with --init NODE (its Assign), or "
            "--restore CKPT\n");
}
