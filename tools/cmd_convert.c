/* grt convert IN OUT [--optimize [--optimizer-report] [--option KEY=VALUE]...]:
 * any form grt reads (.json .grt .pb .onnx) into one it writes (.json .grt
 * .pb), by extension; --optimize writes the graph the optimizer makes of it
 * for the host CPU (folded constants, fused ops). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"
#include "tools/commands.h"
#include "tools/option_flag.h"
#include "tools/options.h"
#include "tools/report.h"

typedef struct {
  const char* in;
  const char* out;
  bool optimize, report;
  grt_cli_list options;
} convert_args;

static const grt_cli_option kOptions[] = {
    {"--optimize", NULL, GRT_CLI_FLAG, offsetof(convert_args, optimize), NULL,
     "write the graph the optimizer makes of IN for the host CPU"},
    {"--optimizer-report", NULL, GRT_CLI_FLAG, offsetof(convert_args, report), NULL,
     "with --optimize: what each pass did, on stderr"},
    {"--option", NULL, GRT_CLI_LIST, offsetof(convert_args, options), "KEY=VALUE",
     "with --optimize: a session option (optimizer_off, fold_max_bytes)"},
};

const grt_cli_syntax grt_convert_syntax = {
    "convert",
    "IN OUT [options]",
    "  IN: *.json *.grt *.pb *.onnx; OUT: *.json *.grt *.pb (format by extension)\n",
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {offsetof(convert_args, in), offsetof(convert_args, out)},
    2,
    "more than two files given ('%s')",
};

static int convert(const convert_args* a) {
  grt_session_options* o = NULL;
  grt_graph* g = NULL;
  grt_graph* opt = NULL;
  char* text = NULL;
  grt_status* s = grt_session_options_new(&o);
  if (!s) s = grt_cli_set_options(o, &a->options);
  if (!s) s = grt_graph_load(a->in, &g);
  if (!s && a->optimize) s = grt_graph_optimize(g, o, &opt, a->report ? &text : NULL);
  if (!s) s = grt_graph_save(opt ? opt : g, a->out);
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

int grt_cmd_convert(int argc, char** argv) {
  convert_args a = {0};
  int rc = grt_cli_parse(&grt_convert_syntax, argc, argv, &a);
  const char* bad = rc == 0 ? grt_cli_bad_key_value(&a.options) : NULL;
  if (rc == 0 && (!a.in || !a.out))
    rc = grt_cli_usage_error(&grt_convert_syntax, "%s", "needs IN and OUT");
  else if (rc == 0 && bad)
    rc = grt_cli_usage_error(&grt_convert_syntax, "--option needs KEY=VALUE, not '%s'", bad);
  else if (rc == 0 && (a.report || a.options.n) && !a.optimize)
    rc = grt_cli_usage_error(&grt_convert_syntax, "%s",
                             "--optimizer-report and --option go with --optimize");
  else if (rc == 0) /* a malformed value is a usage error, as in every command */
    rc = grt_cli_check_options(&grt_convert_syntax, &a.options);
  if (rc == 0) rc = convert(&a);
  grt_cli_free(&grt_convert_syntax, &a);
  return rc < 0 ? 0 : rc;
}
