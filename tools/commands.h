/* The grt command's subcommands. Each takes argv with argv[0] the subcommand
 * name and returns the exit status: 0 success, 1 failure of the input or the
 * run (message on stderr), 2 usage error. */
#ifndef GRT_TOOLS_COMMANDS_H_
#define GRT_TOOLS_COMMANDS_H_

#include "tools/options.h"

int grt_cmd_convert(int argc, char** argv);
int grt_cmd_inspect(int argc, char** argv);
int grt_cmd_place(int argc, char** argv);
int grt_cmd_devices(int argc, char** argv);
int grt_cmd_run(int argc, char** argv);
int grt_cmd_train_graph(int argc, char** argv);
int grt_cmd_replicate(int argc, char** argv);
int grt_cmd_ops(int argc, char** argv);

/* Each command's option table, from which its usage comes; `grt --help`
 * lists their synopses. */
extern const grt_cli_syntax grt_convert_syntax;
extern const grt_cli_syntax grt_inspect_syntax;
extern const grt_cli_syntax grt_devices_syntax;
extern const grt_cli_syntax grt_place_syntax;
extern const grt_cli_syntax grt_run_syntax;
extern const grt_cli_syntax grt_train_graph_syntax;
extern const grt_cli_syntax grt_replicate_syntax;
extern const grt_cli_syntax grt_ops_syntax;

#endif /* GRT_TOOLS_COMMANDS_H_ */
