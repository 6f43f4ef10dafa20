/* grt convert IN OUT: any form grt reads (.json .grt .pb .onnx) into one it
 * writes (.json .grt .pb), by extension. */
#include <stdio.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/report.h"

int grt_cmd_convert(int argc, char** argv) {
  if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
    fprintf(stderr,
            "usage: grt convert IN OUT   (IN: *.json *.grt *.pb *.onnx; OUT: *.json *.grt *.pb)\n");
    return 2;
  }
  grt_graph* g = NULL;
  grt_status* s = grt_graph_load(argv[1], &g);
  if (!s) s = grt_graph_save(g, argv[2]);
  grt_graph_free(g);
  if (s) {
    grt_cli_report("convert", s);
    grt_status_free(s);
    return 1;
  }
  return 0;
}
