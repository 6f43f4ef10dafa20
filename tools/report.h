/* How the grt command shows a failed call. */
#ifndef GRT_TOOLS_REPORT_H_
#define GRT_TOOLS_REPORT_H_

#include "grt/status.h"

/* Prints "grt COMMAND: MESSAGE" to stderr; with GRT_DEBUG_STATUS=1 in the
 * environment, and a status that records where it was made (a library
 * built without NDEBUG: grt_status_source), a second line
 * "grt COMMAND: (at runtime/session/session.c:42)". Only on request, so
 * the messages that scripts and tests read stay as they are. Then any
 * hint lines the message calls for (tools/hints.h). */
void grt_cli_report(const char* command, const grt_status* s);

#endif /* GRT_TOOLS_REPORT_H_ */
