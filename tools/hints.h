/* Hint lines: after a failed command's message, a line "hint: ..." saying
 * how to fix the most common mistakes (an op typo, a device the machine
 * lacks, a variable read before its initialiser ran). The message itself
 * stays as the library wrote it; a hint is only ever an extra line. */
#ifndef GRT_TOOLS_HINTS_H_
#define GRT_TOOLS_HINTS_H_

#include "grt/grt.h"

/* Hints read off the message alone, for every command: an unknown op gets
 * the closest registered names and `grt ops`; for `run` and `place`, a
 * device request that cannot be met gets --soft-placement. */
void grt_cli_hint_message(const char* command, const grt_status* s);

/* For grt run without --init: a variable read (or saved) before it has a
 * value gets the graph's init target, when it has one, and --init. */
void grt_cli_hint_init(const grt_graph* g, const grt_status* s);

#endif /* GRT_TOOLS_HINTS_H_ */
