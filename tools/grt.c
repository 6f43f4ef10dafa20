/* grt: the command-line tool (docs/cli.md). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "grt/backend.h"
#include "grt/grt.h"
#include "tools/blas_core.h"
#include "tools/blas_threads.h"
#include "tools/commands.h"
#include "tools/stdout_check.h"

typedef struct {
  int (*run)(int argc, char** argv);
  const grt_cli_syntax* syntax; /* its name and synopsis */
  const char* what;             /* what it does, in a few words */
} command;

static const command kCommands[] = {
    {grt_cmd_convert, &grt_convert_syntax, "a graph from one form into another"},
    {grt_cmd_inspect, &grt_inspect_syntax, "a graph's feeds, outputs, targets and nodes"},
    {grt_cmd_ops, &grt_ops_syntax, "the op reference"},
    {grt_cmd_devices, &grt_devices_syntax, "the devices the runtime sees"},
    {grt_cmd_place, &grt_place_syntax, "plan a graph for devices, with a reason per node"},
    {grt_cmd_run, &grt_run_syntax, "run a graph: feeds, fetches, steps, checkpoints"},
    {grt_cmd_train_graph, &grt_train_graph_syntax, "make a graph trainable"},
    {grt_cmd_replicate, &grt_replicate_syntax, "a graph in towers over a split batch"},
};

static void usage(FILE* f) {
  fprintf(f, "usage:\n");
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; i++) {
    const grt_cli_syntax* c = kCommands[i].syntax;
    fprintf(f, "  grt %s %s\n      %s\n", c->command, c->synopsis, kCommands[i].what);
  }
  fprintf(f,
          "  grt --version             # the library's version and its backends\n"
          "  grt COMMAND --help        # one command's options\n");
}

/* The library's version and the backends it found: the built-in CPU one and
 * the plugins beside the library or on GRT_PLUGIN_PATH, with the refused
 * ones and why. (A plugin carries no version of its own, only the backend
 * API version it was built for, which must equal the library's.) */
static int version(void) {
  printf("grt %s (backend API version %u)\n", grt_version(), GRT_BACKEND_API_VERSION);
  char report[4096];
  size_t len = grt_backends_report(report, sizeof report);
  printf("backends:\n");
  for (const char* p = report; *p;) {
    const char* end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    printf("  %.*s\n", (int)(end - p), p);
    p = *end ? end + 1 : end;
  }
  if (len >= sizeof report) printf("  ...\n");
  return 0;
}

static int dispatch(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) return version();
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; i++)
    if (strcmp(argv[1], kCommands[i].syntax->command) == 0)
      return kCommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "grt: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}

/* The library's messages (the placement log of --log-device-placement
 * among them) go to its default sink, stderr, so that stdout holds only
 * what a command prints as its result: fetched tensors stay parseable. */
int main(int argc, char** argv) {
  /* A file-size limit (ulimit -f) then fails the write with EFBIG, which
   * the writer reports naming the file, instead of killing the command. */
  signal(SIGXFSZ, SIG_IGN);
  bool restart = grt_blas_threads_set();
  grt_select_blas_core(argv); /* re-executes (with both settings) on some CPUs */
  if (restart) grt_blas_threads_reexec(argv);
  grt_stdout_check_begin();
  return grt_stdout_check_end(dispatch(argc, argv));
}
