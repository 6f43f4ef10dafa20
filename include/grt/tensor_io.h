/* grt — tensors to and from files and text, and atomic file writes: what
 * the grt command uses to read feeds and print fetches, for hosts that want
 * the same spellings. */
#ifndef GRT_TENSOR_IO_H_
#define GRT_TENSOR_IO_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/api.h"
#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A NumPy .npy file (format versions 1.0, 2.0 and 3.0: little-endian,
 * C-order arrays of grt's dtypes) as a new tensor the caller owns. */
GRT_API GRT_MUST_USE grt_status* grt_npy_read(const char* path, grt_tensor** out);

/* The same from `len` bytes of a .npy file in memory; `name` is used in
 * error messages. */
GRT_API GRT_MUST_USE grt_status* grt_npy_parse(const void* data, size_t len, const char* name,
                                               grt_tensor** out);

/* Parses one tensor in the JSON text form, {"dtype", "shape", "values"} or
 * {"dtype", "shape", "base64"} (docs/json-format.md's tensor value). Caller
 * owns *out (grt_tensor_free). */
GRT_API GRT_MUST_USE grt_status* grt_json_tensor_from_text(const char* text, size_t len,
                                                           grt_tensor** out);

/* The tensor as one line of JSON (no newline), spelled as in a graph file,
 * in a malloc'd, NUL-terminated string the caller frees with free(). */
GRT_API GRT_MUST_USE grt_status* grt_json_tensor_to_text(const grt_tensor* t, char** out_text,
                                                         size_t* out_len);

/* The tensor as one line of JSON for a program to read: by default every
 * element in "values" (a uniform tensor too), floats in the shortest
 * spelling that reads back bit-identical, NaN and infinities as the strings
 * "NaN", "Infinity" and "-Infinity" (grt_json_tensor_from_text accepts
 * them). With GRT_JSON_TENSOR_COMPACT, grt_json_tensor_to_text's short form
 * for people (one value filling a uniform tensor; base64 for big or
 * non-finite ones). Caller frees *out_text with free(). */
#define GRT_JSON_TENSOR_COMPACT 1u
GRT_API GRT_MUST_USE grt_status* grt_json_tensor_format(const grt_tensor* t, uint32_t flags,
                                                        char** out_text, size_t* out_len);

/* Calls write(ctx, f) on a new file in `path`'s directory (unnamed, by
 * O_TMPFILE, where the file system allows), then flushes, syncs and links it
 * into place, replacing `path` atomically; on any failure (write's status
 * included) nothing is left behind and `path` is untouched. A symlink is
 * followed and its target replaced; a destination that is not a regular
 * file (a device, a FIFO, /dev/stdout, /dev/fd/N) is written directly. A
 * failed write is an error naming `path` and the OS reason. Never changes
 * the umask: new files get 0666 less it, a replaced file keeps its mode.
 * A symlink in a sticky, world-writable directory (/tmp) is followed only
 * when its owner is the directory's or this process's, the rule of the
 * kernel's fs.protected_symlinks; another is refused (PERMISSION_DENIED).
 * A write past the process's file-size limit (RLIMIT_FSIZE, `ulimit -f`)
 * raises SIGXFSZ, which kills a process by default: a host that wants the
 * error (EFBIG, naming `path`) instead ignores SIGXFSZ, as `grt` does; the
 * library never changes signal dispositions. */
GRT_API GRT_MUST_USE grt_status* grt_write_file_atomic(const char* path,
                                                       grt_status* (*write)(void* ctx, FILE* f),
                                                       void* ctx);

#ifdef __cplusplus
}
#endif

#endif /* GRT_TENSOR_IO_H_ */
