/* The grt command's subcommands. Each takes argv with argv[0] the subcommand
 * name and returns the exit status: 0 success, 1 failure of the input or the
 * run (message on stderr), 2 usage error. */
#ifndef GRT_TOOLS_COMMANDS_H_
#define GRT_TOOLS_COMMANDS_H_

int grt_cmd_convert(int argc, char** argv);
int grt_cmd_inspect(int argc, char** argv);
int grt_cmd_place(int argc, char** argv);
int grt_cmd_devices(int argc, char** argv);
int grt_cmd_run(int argc, char** argv);
int grt_cmd_train_graph(int argc, char** argv);
int grt_cmd_replicate(int argc, char** argv);
int grt_cmd_ops(int argc, char** argv);

#endif /* GRT_TOOLS_COMMANDS_H_ */
