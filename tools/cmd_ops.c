/* grt ops [NAME] [--markdown]: the op reference (grt/op_reference.h). The
 * list, one op's entry, and docs/ops.md (--markdown) come from the same
 * registry calls, so the document cannot say what the library does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/backend.h"
#include "grt/grt.h"
#include "grt/op_reference.h"
#include "tools/closest.h"
#include "tools/commands.h"
#include "tools/options.h"

typedef struct {
  const char* name;
  bool markdown;
} ops_args;

static const grt_cli_option kOptions[] = {
    {"--markdown", NULL, GRT_CLI_FLAG, offsetof(ops_args, markdown), NULL,
     "the same as Markdown (docs/ops.md is `grt ops --markdown`)"},
};

const grt_cli_syntax grt_ops_syntax = {
    "ops",
    "[NAME] [options]",
    "  no NAME: every registered op, its family and the device types with kernels\n"
    "  NAME: the op's inputs, outputs and attrs (types, defaults, allowed dtypes)\n"
    "        and each device type's support rows (dtypes, arguments in host memory)\n",
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {offsetof(ops_args, name)},
    1,
    NULL,
};

static int by_name(const void* a, const void* b) {
  return strcmp(((const grt_op_info*)a)->name, ((const grt_op_info*)b)->name);
}

/* Every op, sorted by name; NULL when memory ran out. */
static grt_op_info* sorted_ops(int32_t* n) {
  *n = grt_op_info_count();
  grt_op_info* ops = calloc((size_t)*n + 1, sizeof *ops);
  if (!ops) return NULL;
  for (int32_t i = 0; i < *n; i++) (void)grt_op_info_at(i, &ops[i]);
  qsort(ops, (size_t)*n, sizeof *ops, by_name);
  return ops;
}

/* "CPU, GPU": the device types with at least one row, in type order. */
static void devices_of(const char* op, const char* sep, char* buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  const char* last = NULL;
  grt_op_kernel_info k;
  for (int32_t i = 0; grt_op_kernel_info_at(op, i, &k); i++) {
    if (last && strcmp(last, k.device) == 0) continue; /* rows come grouped by type */
    len +=
        (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", last ? sep : "", k.device);
    last = k.device;
  }
}

/* Calls `each` with every entry of a signature list (entries separated by
 * `sep`, surrounding spaces dropped). */
static void for_each_entry(const char* list, char sep, void (*each)(const char*, int, void*),
                           void* arg) {
  const char* p = list;
  while (*p) {
    while (*p == ' ') p++;
    const char* end = strchr(p, sep);
    if (!end) end = p + strlen(p);
    int len = (int)(end - p);
    while (len > 0 && p[len - 1] == ' ') len--;
    if (len > 0) each(p, len, arg);
    p = *end ? end + 1 : end;
  }
}

static void print_line(const char* entry, int len, void* arg) {
  (void)arg;
  printf("    %.*s\n", len, entry);
}

static void print_code(const char* entry, int len, void* arg) {
  int* count = arg;
  printf("%s`%.*s`", (*count)++ ? ", " : " ", len, entry);
}

static void print_text(const grt_op_info* op) {
  printf("%s (%s)%s%s\n", op->name, op->family, op->stateful ? ", stateful" : "",
         op->differentiable ? ", differentiable" : "");
  static const char* const kSections[] = {"inputs", "outputs", "attrs"};
  const char* lists[] = {op->inputs, op->outputs, op->attrs};
  for (int s = 0; s < 3; s++) {
    printf("  %s:%s\n", kSections[s], lists[s][0] ? "" : " none");
    for_each_entry(lists[s], s == 2 ? ';' : ',', print_line, NULL);
  }
  printf("  kernels:%s\n", grt_op_kernel_info_count(op->name) ? "" : " none (no device runs it)");
  grt_op_kernel_info k;
  for (int32_t i = 0; grt_op_kernel_info_at(op->name, i, &k); i++) {
    printf("    %-4s %s%s%s", k.device, k.constraints[0] ? k.constraints : "any dtypes",
           k.host_memory[0] ? "; host memory: " : "", k.host_memory);
    if (k.priority) printf("; kernel priority %d", (int)k.priority);
    printf("\n");
  }
}

static void print_markdown_op(const grt_op_info* op) {
  printf("\n## %s\n\nFamily `%s`; %s; %s.\n\n", op->name, op->family,
         op->stateful ? "stateful" : "stateless",
         op->differentiable ? "has a gradient" : "no gradient");
  static const char* const kSections[] = {"inputs", "outputs", "attrs"};
  const char* lists[] = {op->inputs, op->outputs, op->attrs};
  for (int s = 0; s < 3; s++) {
    int count = 0;
    printf("- %s:", kSections[s]);
    for_each_entry(lists[s], s == 2 ? ';' : ',', print_code, &count);
    printf("%s\n", count ? "" : " none");
  }
  if (!grt_op_kernel_info_count(op->name)) {
    printf("\nNo device type has a kernel for it.\n");
    return;
  }
  printf("\n| device | dtypes | host memory |\n|---|---|---|\n");
  grt_op_kernel_info k;
  for (int32_t i = 0; grt_op_kernel_info_at(op->name, i, &k); i++)
    printf("| %s | %s | %s |\n", k.device, k.constraints[0] ? k.constraints : "any", k.host_memory);
}

static void print_markdown(const grt_op_info* ops, int32_t n) {
  printf(
      "# Op reference\n\n"
      "Every op grt registers (TensorFlow's names, inputs, outputs and attrs), and\n"
      "which device types have kernels for it, for which dtypes, with which\n"
      "arguments in host memory. Generated by `grt ops --markdown` from the op\n"
      "registry (`ops/defs_*.c`) and the support rows of the built-in device types\n"
      "(`backends/cpu/support_cpu.c`, `backends/cuda/support_gpu.c`, compiled into\n"
      "the library, so the GPU rows hold without the CUDA plugin); a test fails\n"
      "when this file is out of date. Regenerate it with\n\n"
      "    bazel run //tools:grt -- ops --markdown > docs/ops.md\n\n"
      "`grt ops NAME` prints the same entry in a terminal.\n\n"
      "Signatures use the registry's syntax, modelled on TensorFlow's REGISTER_OP:\n"
      "an input or output is `name: TYPE`, TYPE a dtype (`int32`), a type attr\n"
      "(`T`), `N * T` (a list of N tensors of type T, N an int attr) or `Ref(T)`\n"
      "(a variable's reference). An attr is `name: KIND [>= MIN] [= DEFAULT]`;\n"
      "a KIND written as a set of dtypes (`{float32, float64}`) is a type attr\n"
      "limited to those. An attr without a default must be given. A support row\n"
      "`T in [...]` runs nodes whose attr T holds one of those dtypes; host memory\n"
      "names the arguments that stay in host memory on that device.\n\n"
      "| op | family | device types |\n|---|---|---|\n");
  char devices[128];
  for (int32_t i = 0; i < n; i++) {
    devices_of(ops[i].name, ", ", devices, sizeof devices);
    char anchor[128];
    size_t a = 0;
    for (const char* p = ops[i].name; *p && a + 1 < sizeof anchor; p++)
      anchor[a++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    anchor[a] = '\0';
    printf("| [%s](#%s) | %s | %s |\n", ops[i].name, anchor, ops[i].family,
           devices[0] ? devices : "none");
  }
  for (int32_t i = 0; i < n; i++) print_markdown_op(&ops[i]);
}

static int unknown_op(const char* name, const grt_op_info* ops, int32_t n) {
  const char** names = calloc((size_t)n + 1, sizeof *names);
  const char* close[3];
  size_t found = 0;
  if (names) {
    for (int32_t i = 0; i < n; i++) names[i] = ops[i].name;
    found = grt_closest_names(name, names, (size_t)n, close, 3);
  }
  fprintf(stderr, "grt ops: no op named '%s'", name);
  for (size_t i = 0; i < found; i++)
    fprintf(stderr, "%s%s", i ? (i + 1 == found ? " or " : ", ") : "; did you mean ", close[i]);
  fprintf(stderr, "%s\n", found ? "?" : "");
  fprintf(stderr, "hint: `grt ops` lists every op\n");
  free(names);
  return 1;
}

int grt_cmd_ops(int argc, char** argv) {
  ops_args args = {0};
  int rc = grt_cli_parse(&grt_ops_syntax, argc, argv, &args);
  if (rc) return rc < 0 ? 0 : rc;
  /* In a terminal, the types of plugins too (found and registered on first
   * use of the backend registry, which this is); docs/ops.md keeps to the
   * built-in types, whatever plugins the machine has. */
  if (!args.markdown) (void)grt_backends_report(NULL, 0);
  int32_t n;
  grt_op_info* ops = sorted_ops(&n);
  if (!ops) {
    fprintf(stderr, "grt ops: out of memory\n");
    return 1;
  }
  grt_op_info one;
  if (args.name && !grt_op_info_find(args.name, &one)) {
    rc = unknown_op(args.name, ops, n);
  } else if (args.name) {
    if (args.markdown)
      print_markdown_op(&one);
    else
      print_text(&one);
  } else if (args.markdown) {
    print_markdown(ops, n);
  } else {
    char devices[128];
    printf("%-32s %-12s %s\n", "OP", "FAMILY", "DEVICE TYPES");
    for (int32_t i = 0; i < n; i++) {
      devices_of(ops[i].name, " ", devices, sizeof devices);
      printf("%-32s %-12s %s\n", ops[i].name, ops[i].family, devices[0] ? devices : "-");
    }
    printf("\n%d ops; `grt ops NAME` for one op's inputs, outputs, attrs and kernels\n", (int)n);
  }
  free(ops);
  return rc;
}
