/* A shared library opened the first time it is needed, with a table of the
 * calls made into it. A heavy library costs every process start that maps
 * it, whether or not the process uses it (hundreds of megabytes to map, a
 * constructor that starts threads), so a backend links none and opens each
 * on first use with this loader: the CPU backend and the CUDA plugin say
 * which libraries and why (backends/cpu, backends/cuda). A leaf of base/
 * that needs only the public headers, so a plugin links it without seeing
 * the rest of grt. Tested on host libraries (tests/base/lazy_lib_test.cc).
 *
 * Where a library is looked for, in order (each soname in each place):
 *  1. the folders of the environment variable `path_env` (colon-separated),
 *     when it is set: what the user names wins;
 *  2. the loader's own search (the plain soname: LD_LIBRARY_PATH, the
 *     ld.so cache, the caller's runpath);
 *  3. the folders `package_dirs` (relative: "nvidia/cudnn/lib") under the
 *     folders above the library that holds `anchor` (for the CUDA plugin,
 *     cudart: a cudart from a Python wheel has its siblings beside it), then
 *     under the usual Python package roots ($VIRTUAL_ENV, $CONDA_PREFIX,
 *     ~/.local, /usr/lib, /usr/local/lib, /opt/x/.venv and /opt/x: each
 *     lib/python3.x/site-packages or dist-packages), where NVIDIA's wheels
 *     put their libraries and no loader looks.
 * A library opened from a folder first opens the `companions` it finds
 * there (cuBLAS's cuBLASLt, cuDNN's engine libraries), so a library that
 * expects them on the loader's path finds them already loaded. A failure
 * names every folder tried and `path_env`. */
#ifndef GRT_BASE_LAZY_LIB_H_
#define GRT_BASE_LAZY_LIB_H_

#include <pthread.h>
#include <stddef.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call: its name in the library and where its address goes in the
 * table (offsetof a field of the library's table struct). */
typedef struct {
  const char* name;
  size_t offset;
} grt_lazy_symbol;

typedef struct {
  const char* what;               /* how messages name it */
  const char* const* sonames;     /* tried in order, NULL-terminated */
  const grt_lazy_symbol* symbols; /* every call, resolved together */
  size_t n_symbols;
  void* table; /* the struct the addresses go into */
  /* The search beyond the loader's (above); each may be NULL. */
  const char* path_env;            /* "GRT_CUDA_LIBRARY_PATH" */
  const char* const* package_dirs; /* NULL-terminated, relative to a package root */
  const char* const* companions;   /* NULL-terminated sonames opened first */
  void (*anchor)(void);            /* a function of a library already loaded */
  /* State, zero-initialised but for mu (PTHREAD_MUTEX_INITIALIZER). */
  pthread_mutex_t mu;
  int state; /* 0 untried, 1 open, 2 failed (atomic) */
  void* handle;
  char error[2048]; /* why it failed, kept for every later caller */
} grt_lazy_lib;

/* A table's field for `symbol`, typed from the library's own header (the
 * plugin is compiled against the toolkit's headers; only the linking is
 * deferred), and the row that resolves it. */
#ifdef __cplusplus
#define GRT_LAZY_FIELD(field, symbol) decltype(&::symbol) field;
#else
#define GRT_LAZY_FIELD(field, symbol) __typeof__(&symbol) field;
#endif
#define GRT_LAZY_ROW(table_type, field, symbol) {#symbol, offsetof(table_type, field)},

/* Opens the library and fills its table, once; later calls return at once.
 * A failure is kept: every call after it fails with the same message,
 * FAILED_PRECONDITION naming the library, what was tried and dlerror's
 * words (or the missing call), and `needed_for` ("MatMul on GPU:0"). */
GRT_MUST_USE grt_status* grt_lazy_lib_open(grt_lazy_lib* lib, const char* needed_for);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_LAZY_LIB_H_ */
