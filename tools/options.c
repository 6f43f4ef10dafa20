/* The table-driven option parser of tools/options.h. */
#include "tools/options.h"

#include <stdio.h>
#include <string.h>

int grt_cli_usage_error(const grt_cli_syntax* syntax, const char* why, const char* what) {
  if (why) {
    fprintf(stderr, "grt %s: ", syntax->command);
    fprintf(stderr, why, what);
    fputc('\n', stderr);
  }
  fputs(syntax->usage, stderr);
  return 2;
}

/* The option called `name` (its first `len` bytes), or NULL. */
static const grt_cli_option* find(const grt_cli_syntax* syntax, const char* name, size_t len) {
  for (size_t i = 0; i < syntax->n_options; i++) {
    const grt_cli_option* o = &syntax->options[i];
    if ((strlen(o->name) == len && strncmp(o->name, name, len) == 0) ||
        (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0))
      return o;
  }
  return NULL;
}

int grt_cli_parse(const grt_cli_syntax* syntax, int argc, char** argv, void* args) {
  char* base = args;
  int positional = 0;
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(syntax->usage, stdout);
      return -1;
    }
    if (arg[0] != '-' || arg[1] == '\0') { /* "-" alone names stdin */
      if (positional == syntax->n_positional)
        return grt_cli_usage_error(
            syntax,
            syntax->extra_positional ? syntax->extra_positional : "unexpected argument '%s'", arg);
      *(const char**)(base + syntax->positional[positional++]) = arg;
      continue;
    }
    const char* eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const grt_cli_option* o = strncmp(arg, "--", 2) == 0 ? find(syntax, arg, len) : NULL;
    if (!o) return grt_cli_usage_error(syntax, "unknown option '%s'", arg);
    if (o->flag) {
      if (eq) return grt_cli_usage_error(syntax, "%s takes no value", o->name);
      *(bool*)(base + o->offset) = true;
      continue;
    }
    const char** slot = (const char**)(base + o->offset);
    if (*slot) return grt_cli_usage_error(syntax, "%s given twice", o->name);
    if (eq) {
      *slot = eq + 1;
    } else {
      if (i + 1 >= argc) return grt_cli_usage_error(syntax, "%s needs a value", o->name);
      *slot = argv[++i];
    }
    if (!**slot) return grt_cli_usage_error(syntax, "%s needs a non-empty value", o->name);
  }
  return 0;
}
