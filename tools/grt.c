/* grt: the command-line tool (docs/cli.md). */
#include <stdio.h>
#include <string.h>

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
     "inspect FILE [--no-mmap] [--verify]  # nodes, ops, requested devices, constant bytes"},
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
  for (size_t i = 0; i < sizeof kCommands / sizeof kCommands[0]; i++)
    if (strcmp(argv[1], kCommands[i].name) == 0) return kCommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "grt: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}

int main(int argc, char** argv) {
  bool restart = grt_blas_threads_set();
  grt_select_blas_core(argv); /* re-executes (with both settings) on some CPUs */
  if (restart) grt_blas_threads_reexec(argv);
  grt_stdout_check_begin();
  grt_set_log_sink(log_sink, NULL);
  return grt_stdout_check_end(dispatch(argc, argv));
}
