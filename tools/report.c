#include "tools/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hints.h"

void grt_cli_report(const char* command, const grt_status* s) {
  fprintf(stderr, "grt %s: %s\n", command, grt_status_message(s));
  const char* debug = getenv("GRT_DEBUG_STATUS");
  const char* source = grt_status_source(s);
  if (debug && strcmp(debug, "1") == 0 && source)
    fprintf(stderr, "grt %s: (at %s)\n", command, source);
  grt_cli_hint_message(command, s);
}
