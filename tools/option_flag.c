/* --option KEY=VALUE (tools/option_flag.h). */
#include "tools/option_flag.h"

#include <stdlib.h>
#include <string.h>

const char* grt_cli_bad_key_value(const grt_cli_list* values) {
  for (int i = 0; i < values->n; i++) {
    const char* eq = strchr(values->items[i], '=');
    if (!eq || eq == values->items[i]) return values->items[i];
  }
  return NULL;
}

grt_status* grt_cli_set_options(grt_session_options* o, const grt_cli_list* values) {
  for (int i = 0; i < values->n; i++) {
    const char* kv = values->items[i];
    const char* eq = strchr(kv, '=');
    if (!eq || eq == kv) return grt_status_new(GRT_INVALID_ARGUMENT, "--option needs KEY=VALUE");
    char* key = strndup(kv, (size_t)(eq - kv));
    grt_status* st = key ? grt_session_options_set(o, key, eq + 1)
                         : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
    free(key);
    if (st) return grt_status_prefix(st, "--option %s", kv);
  }
  return NULL;
}

grt_status* grt_cli_try_option(const char* key, const char* value) {
  grt_session_options* o = NULL;
  grt_status* st = grt_session_options_new(&o);
  if (!st) st = grt_session_options_set(o, key, value);
  grt_session_options_free(o);
  return st;
}

int grt_cli_check_options(const grt_cli_syntax* syntax, const grt_cli_list* values) {
  grt_session_options* o = NULL;
  grt_status* st = grt_session_options_new(&o);
  if (!st) st = grt_cli_set_options(o, values);
  grt_session_options_free(o);
  if (!st) return 0;
  int rc = grt_cli_usage_error(syntax, "%s", grt_status_message(st));
  grt_status_free(st);
  return rc;
}
