/* Cancellation inside a kernel's own loops. A loop whose work grows faster
 * than its input (Einsum, a determinant's LU, TopKV2's selection) or that
 * can copy gigabytes (gathers, scatters, Cumsum) adds the work each step
 * did, in rough element operations, and every GRT_CPU_WORK_STEP of it
 * checks the run's token: a cancelled run, or one past its deadline, stops
 * within about a millisecond of scalar work instead of running to the end,
 * while a small tensor pays one add and one compare per step.
 *
 * The token is the calling thread's (grt_cancel_current): the executor sets
 * it around a kernel and grt_parallel_for around each shard, so a meter
 * works the same in a kernel's body and in its shards. Without a token
 * (a kernel run outside a session) the meter never stops anything. */
#ifndef GRT_BACKENDS_CPU_WORK_METER_H_
#define GRT_BACKENDS_CPU_WORK_METER_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "base/cancel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* About a millisecond of the scalar loops that use a meter (an element
 * loaded, multiplied and added through grt_dtype_load_double is a few ns):
 * one clock read per step costs well under 0.1%. */
enum { GRT_CPU_WORK_STEP = 1 << 20 };

typedef struct {
  const grt_cancel_token* cancel;
  int64_t work; /* units since the last check */
} grt_work_meter;

static inline grt_work_meter grt_work_meter_start(void) {
  grt_work_meter m = {grt_cancel_current(), 0};
  return m;
}

/* Adds `units` of work done; true once the run has stopped (the kernel then
 * returns grt_work_meter_status: its outputs are dropped). */
static inline bool grt_work_meter_stop(grt_work_meter* m, int64_t units) {
  m->work += units;
  if (m->work < GRT_CPU_WORK_STEP) return false;
  m->work = 0;
  return grt_cancel_check(m->cancel) != GRT_OK;
}

/* The error a kernel returns when its meter stopped it. The executor puts
 * its own CANCELLED or DEADLINE_EXCEEDED message in its place. */
static inline grt_status* grt_work_meter_status(const grt_work_meter* m) {
  grt_code code = grt_cancel_seen(m->cancel);
  return grt_status_new(code == GRT_OK ? GRT_CANCELLED : code,
                        "stopped inside the kernel: the run was cancelled or passed its deadline");
}

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_WORK_METER_H_ */
