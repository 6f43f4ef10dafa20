/* grt — checkpoints: a session's variables saved to a file and restored
 * from one (the file format: docs/checkpoint-format.md).
 *
 * The variables are the graph's variable nodes (VariableV2, Variable), by
 * node name. Saving writes a new file beside the destination and renames it
 * into place (flushed to disk before and after), so a crash while saving
 * leaves the previous checkpoint whole. Restoring checks the entire file
 * first (checksums of the header, the index and every tensor) and every
 * variable against it (present, same dtype, a shape the variable allows),
 * and copies the values onto the variables' devices; only when all of that
 * has succeeded are the variables assigned, so a failed restore changes
 * nothing. */
#ifndef GRT_CHECKPOINT_H_
#define GRT_CHECKPOINT_H_

#include "grt/session.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Saves every variable of the session's graph to `path`. A variable with no
 * value yet is an error naming it (run the initializer first); `path` is
 * then untouched. Safe while other runs go on, though a variable being
 * updated at that moment may be saved before or after the update. */
GRT_API GRT_MUST_USE grt_status* grt_session_save_variables(grt_session* s, const char* path);

/* Restores every variable of the session's graph from `path`. Errors
 * (nothing is assigned): NOT_FOUND for a missing file; DATA_LOSS for a
 * damaged or truncated one; INVALID_ARGUMENT naming the variable that the
 * checkpoint lacks or holds with another dtype or shape. Variables in the
 * checkpoint that the graph does not have are ignored, as TensorFlow's
 * Saver does. */
GRT_API GRT_MUST_USE grt_status* grt_session_restore_variables(grt_session* s, const char* path);

/* The same with per-run options (`opts` may be NULL): like a run, a save or
 * restore fails with DEADLINE_EXCEEDED once it has taken the options'
 * timeout, or CANCELLED after grt_session_cancel, checked between
 * variables and between reading, checking, copying and writing (so the
 * wait is bounded by the largest single variable's work). A stopped save
 * leaves the previous file at `path` whole; a stopped restore assigns
 * nothing. The plain calls above stop on grt_session_cancel too. */
GRT_API GRT_MUST_USE grt_status* grt_session_save_variables_with_options(
    grt_session* s, const char* path, const grt_run_options* opts);
GRT_API GRT_MUST_USE grt_status* grt_session_restore_variables_with_options(
    grt_session* s, const char* path, const grt_run_options* opts);

#ifdef __cplusplus
}
#endif

#endif /* GRT_CHECKPOINT_H_ */
