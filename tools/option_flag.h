/* --option KEY=VALUE, which convert, devices and run take: each value a
 * session option (docs/session-options.md), set in the order given. */
#ifndef GRT_TOOLS_OPTION_FLAG_H_
#define GRT_TOOLS_OPTION_FLAG_H_

#include "grt/grt.h"
#include "tools/options.h"

/* The first value of `values` not of the form KEY=VALUE, or NULL: a
 * usage error, which commands check while parsing. */
const char* grt_cli_bad_key_value(const grt_cli_list* values);

/* Sets `key` to `value` on scratch session options: whether the option
 * exists and takes that value, without a session. */
GRT_MUST_USE grt_status* grt_cli_try_option(const char* key, const char* value);

/* Checks every "KEY=VALUE" of `values` on scratch session options while
 * the command line is read: 0 when all are known options with good
 * values, else the usage error (2) printed for `syntax`, naming the value
 * and what is wrong with it. */
int grt_cli_check_options(const grt_cli_syntax* syntax, const grt_cli_list* values);

/* Sets every "KEY=VALUE" of `values` on o; an error names the flag and the
 * value ("--option gpu.memory_fraction=2: option gpu.memory_fraction: ..."). */
GRT_MUST_USE grt_status* grt_cli_set_options(grt_session_options* o, const grt_cli_list* values);

#endif /* GRT_TOOLS_OPTION_FLAG_H_ */
