/* Command-line options of the grt subcommands, one table per command, from
 * which the command's parsing, its usage and `--help` all come (and which
 * tests/tools:cli_docs_test holds docs/cli.md to).
 *
 * An option is "--name VALUE", "--name=VALUE" or a flag "--name"; a value
 * option lands in a `const char*` field of the command's argument struct,
 * a repeatable one in a `grt_cli_list` field, and a flag in a `bool`
 * field, found by offset. Every usage error prints "grt COMMAND: WHY" and
 * the command's usage to stderr. */
#ifndef GRT_TOOLS_OPTIONS_H_
#define GRT_TOOLS_OPTIONS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum grt_cli_kind {
  GRT_CLI_VALUE, /* const char*: given at most once */
  GRT_CLI_FLAG,  /* bool: set by the bare name */
  GRT_CLI_LIST,  /* grt_cli_list: repeatable, values in order */
} grt_cli_kind;

/* The values of a repeatable option, pointing into argv. */
typedef struct grt_cli_list {
  const char** items; /* malloc'ed by grt_cli_parse; freed by grt_cli_free */
  int n;
} grt_cli_list;

typedef struct grt_cli_option {
  const char* name;  /* "--devices" */
  const char* alias; /* another spelling, or NULL */
  grt_cli_kind kind;
  size_t offset;     /* of the field in the argument struct */
  const char* value; /* what the value is in the usage ("SPEC"); NULL for a flag */
  const char* help;  /* one line of the usage */
} grt_cli_option;

typedef struct grt_cli_syntax {
  const char* command;  /* "place": messages start "grt place: " */
  const char* synopsis; /* the arguments: "FILE --devices SPEC [options]" */
  const char* notes;    /* lines printed after the options (each ends in \n), or NULL */
  const grt_cli_option* options;
  size_t n_options;
  /* Positional arguments fill these `const char*` fields in order. */
  size_t positional[2];
  int n_positional;
  /* Format (one %s: the argument) for a positional argument too many;
   * NULL: "unexpected argument '%s'". */
  const char* extra_positional;
} grt_cli_syntax;

/* Fills `args` (which starts zeroed) from argv[1..argc-1]. Returns 0 when parsed,
 * 2 after printing a usage error, -1 after printing the usage for --help or
 * -h. Checks only the shape of the command line; what the values mean and
 * which are required is the command's to check. Call grt_cli_free after,
 * whatever it returned. */
int grt_cli_parse(const grt_cli_syntax* syntax, int argc, char** argv, void* args);

/* Frees what grt_cli_parse allocated in `args` (the lists' items). */
void grt_cli_free(const grt_cli_syntax* syntax, void* args);

/* "usage: grt COMMAND SYNOPSIS", then a line per option and the notes. */
void grt_cli_print_usage(const grt_cli_syntax* syntax, FILE* f);

/* Prints "grt COMMAND: " + printf(why, what) (when why is not NULL) and
 * the usage to stderr; returns 2, the usage error exit status. */
int grt_cli_usage_error(const grt_cli_syntax* syntax, const char* why, const char* what);

#endif /* GRT_TOOLS_OPTIONS_H_ */
