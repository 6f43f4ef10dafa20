/* The table-driven option parser of tools/options.h. */
#include "tools/options.h"

#include <stdlib.h>
#include <string.h>

/* Options whose name and value are longer than this get their help on the
 * next line. */
enum { kNameColumn = 30 };

void grt_cli_print_usage(const grt_cli_syntax* syntax, FILE* f) {
  fprintf(f, "usage: grt %s %s\n", syntax->command, syntax->synopsis);
  if (syntax->n_options) fprintf(f, "options:\n");
  for (size_t i = 0; i < syntax->n_options; i++) {
    const grt_cli_option* o = &syntax->options[i];
    char left[128];
    snprintf(left, sizeof left, "%s%s%s%s%s%s", o->name, o->value ? " " : "",
             o->value ? o->value : "", o->alias ? ", " : "", o->alias ? o->alias : "",
             o->kind == GRT_CLI_LIST ? " ..." : "");
    if (strlen(left) > kNameColumn)
      fprintf(f, "  %s\n  %-*s %s\n", left, kNameColumn, "", o->help);
    else
      fprintf(f, "  %-*s %s\n", kNameColumn, left, o->help);
  }
  if (syntax->notes) fputs(syntax->notes, f);
}

int grt_cli_usage_error(const grt_cli_syntax* syntax, const char* why, const char* what) {
  if (why) {
    fprintf(stderr, "grt %s: ", syntax->command);
    fprintf(stderr, why, what);
    fputc('\n', stderr);
  }
  grt_cli_print_usage(syntax, stderr);
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
      grt_cli_print_usage(syntax, stdout);
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
    if (o->kind == GRT_CLI_FLAG) {
      if (eq) return grt_cli_usage_error(syntax, "%s takes no value", o->name);
      *(bool*)(base + o->offset) = true;
      continue;
    }
    const char* value;
    if (eq) {
      value = eq + 1;
    } else {
      if (i + 1 >= argc) return grt_cli_usage_error(syntax, "%s needs a value", o->name);
      value = argv[++i];
    }
    if (!*value) return grt_cli_usage_error(syntax, "%s needs a non-empty value", o->name);
    if (o->kind == GRT_CLI_LIST) {
      grt_cli_list* list = (grt_cli_list*)(base + o->offset);
      /* argc bounds how many values any option can have. */
      if (!list->items) list->items = calloc((size_t)argc, sizeof *list->items);
      if (!list->items) return grt_cli_usage_error(syntax, "%s", "out of memory");
      list->items[list->n++] = value;
      continue;
    }
    const char** slot = (const char**)(base + o->offset);
    if (*slot) return grt_cli_usage_error(syntax, "%s given twice", o->name);
    *slot = value;
  }
  return 0;
}

void grt_cli_free(const grt_cli_syntax* syntax, void* args) {
  char* base = args;
  for (size_t i = 0; i < syntax->n_options; i++) {
    const grt_cli_option* o = &syntax->options[i];
    if (o->kind != GRT_CLI_LIST) continue;
    grt_cli_list* list = (grt_cli_list*)(base + o->offset);
    free(list->items);
    list->items = NULL;
    list->n = 0;
  }
}
