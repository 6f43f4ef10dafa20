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
  const char* name;
  int (*run)(int argc, char** argv);
  const char* usage;
} command;

static const command kCommands[] = {
    {"convert", grt_cmd_convert, "convert IN OUT            # format chosen by extension"},
    {"inspect", grt_cmd_inspect,
     "inspect FILE [--no-mmap] [--verify] [--signature | --json]  # feeds, outputs, targets, "
     "nodes"},
    {"devices", grt_cmd_devices,
     "devices [--devices SPEC | --option KEY=VALUE...] [--backends]  # the device mapping the "
     "runtime sees"},
    {"place", grt_cmd_place,
     "place FILE --devices SPEC [--soft-placement] [--log]\n"
     "              [--plan-json OUT.json] [--dot OUT.dot|OUT.svg]\n"
     "              [--ps-devices DEV,DEV,...] [--ps-strategy greedy|round_robin]"},
    {"run", grt_cmd_run,
     "run FILE [--devices SPEC] [--soft-placement] [--log-device-placement]\n"
     "             [--feed NAME=VALUE]... [--fetch NAME[:K]]... [--target NAME]...\n"
     "             [--init TARGET] [--restore CKPT] [--steps N] [--quiet] [--save CKPT]\n"
     "             [--trace OUT.json]"},
    {"train-graph", grt_cmd_train_graph,
     "train-graph IN OUT --loss NAME [--vars A,B,...] --optimizer sgd|momentum|adam "
     "--learning-rate R [--colocate-gradients-with-ops]"},
    {"replicate", grt_cmd_replicate,
     "replicate IN OUT --towers N [--tower-devices D0,D1,...] --inputs X,... --outputs A,...\n"
     "             [--variables-on DEV | --ps-devices DEV,... [--ps-strategy greedy|round_robin]]\n"
     "             [--mirrored --loss NAME --optimizer sgd|momentum|adam --learning-rate R\n"
     "              [--all-reduce add_n|collective]]"},
    {"ops", grt_cmd_ops,
     "ops [NAME] [--markdown]  # the op reference: every op, or one op's signature and kernels"},
};

/* The library's messages: the placement log (INFO) on stdout, where the
 * command has always printed it; warnings and errors on stderr. */
static void log_sink(void* arg, grt_log_level level, const char* message) {
  FILE* f = level <= GRT_LOG_INFO ? stdout : stderr;
  fputs(message, f);
  fputc('\n', f);
}

static void usage(FILE* f) {
  fprintf(f, "usage:\n");
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; i++)
    fprintf(f, "  grt %s\n", kCommands[i].usage);
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
    if (strcmp(argv[1], kCommands[i].name) == 0) return kCommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "grt: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}

int main(int argc, char** argv) {
  /* A file-size limit (ulimit -f) then fails the write with EFBIG, which
   * the writer reports naming the file, instead of killing the command. */
  signal(SIGXFSZ, SIG_IGN);
  bool restart = grt_blas_threads_set();
  grt_select_blas_core(argv); /* re-executes (with both settings) on some CPUs */
  if (restart) grt_blas_threads_reexec(argv);
  grt_stdout_check_begin();
  grt_set_log_sink(log_sink, NULL);
  return grt_stdout_check_end(dispatch(argc, argv));
}
