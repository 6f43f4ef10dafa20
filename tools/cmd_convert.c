/* grt convert IN OUT [--optimize [--optimizer-report] [--option KEY=VALUE]...]:
 * any form grt reads (.json .grt .pb .onnx) into one it writes (.json .grt
 * .pb), by extension; --optimize writes the graph the optimizer makes of it
 * for the host CPU (folded constants, fused ops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/report.h"

static const char kUsage[] =
    "usage: grt convert IN OUT [--optimize [--optimizer-report] [--option KEY=VALUE]...]\n"
    "  IN: *.json *.grt *.pb *.onnx; OUT: *.json *.grt *.pb\n"
    "  --optimize: write the optimized graph (session options optimizer_off,\n"
    "  fold_max_bytes through --option)\n";

static int usage(const char* why) {
  if (why) fprintf(stderr, "grt convert: %s\n", why);
  fputs(kUsage, stderr);
  return 2;
}

int grt_cmd_convert(int argc, char** argv) {
  const char* in = NULL;
  const char* out = NULL;
  bool optimize = false, report = false;
  grt_session_options* o = NULL;
  grt_status* s = grt_session_options_new(&o);
  for (int i = 1; i < argc && !s; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(kUsage, stdout); /* asked for: not an error */
      grt_session_options_free(o);
      return 0;
    } else if (!strcmp(argv[i], "--optimize")) {
      optimize = true;
    } else if (!strcmp(argv[i], "--optimizer-report")) {
      report = true;
    } else if (!strcmp(argv[i], "--option") && i + 1 < argc) {
      const char* kv = argv[++i];
      const char* eq = strchr(kv, '=');
      if (!eq || eq == kv) {
        grt_session_options_free(o);
        return usage("--option needs KEY=VALUE");
      }
      char* key = strndup(kv, (size_t)(eq - kv));
      s = key ? grt_session_options_set(o, key, eq + 1)
              : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
      free(key);
      if (s) { /* a malformed value is a usage error, as in every command */
        fprintf(stderr, "grt convert: --option %s: %s\n", kv, grt_status_message(s));
        grt_status_free(s);
        grt_session_options_free(o);
        return usage(NULL);
      }
    } else if (argv[i][0] == '-') {
      grt_session_options_free(o);
      return usage("unknown flag");
    } else if (!in) {
      in = argv[i];
    } else if (!out) {
      out = argv[i];
    } else {
      grt_session_options_free(o);
      return usage("more than two files given");
    }
  }
  if (!s && (!in || !out)) {
    grt_session_options_free(o);
    return usage(NULL);
  }
  if (!s && report && !optimize) {
    grt_session_options_free(o);
    return usage("--optimizer-report goes with --optimize");
  }
  grt_graph* g = NULL;
  grt_graph* opt = NULL;
  char* text = NULL;
  if (!s) s = grt_graph_load(in, &g);
  if (!s && optimize) s = grt_graph_optimize(g, o, &opt, report ? &text : NULL);
  if (!s) s = grt_graph_save(opt ? opt : g, out);
  if (text) fputs(text, stderr);
  free(text);
  grt_graph_free(opt);
  grt_graph_free(g);
  grt_session_options_free(o);
  if (s) {
    grt_cli_report("convert", s);
    grt_status_free(s);
    return 1;
  }
  return 0;
}
