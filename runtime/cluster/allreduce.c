/* All-reduces across the tasks of a cluster (DESIGN.md, "Multi-worker
 * mirrored"): the sum of one buffer over every rank, through the transport's
 * non-blocking iall_reduce, started and polled by the run's thread of every
 * rank in one order. The executor decides the order and what is summed; this
 * file only names the group in the errors. */
#include "base/status.h"
#include "runtime/cluster/cluster.h"
#include "runtime/cluster/cluster_internal.h"

grt_status* grt_cluster_all_reduce_start(grt_cluster* c, const char* group, const void* in,
                                         void* out, int64_t count, grt_dtype dtype,
                                         grt_transport_request** req) {
  *req = NULL;
  char why[256] = "";
  if (c->t->iall_reduce(in, out, count, (int32_t)dtype, req, why, sizeof why))
    return GRT_ERROR(UNAVAILABLE, "all-reduce '%s' of %lld %s across the cluster's %d tasks: %s",
                     group, (long long)count, grt_dtype_name(dtype), (int)c->size, why);
  return NULL;
}

grt_status* grt_cluster_all_reduce_poll(grt_cluster* c, const char* group,
                                        grt_transport_request* req, bool* done) {
  int ok = 0;
  char why[256] = "";
  *done = false;
  if (c->t->test(req, &ok, why, sizeof why))
    return GRT_ERROR(UNAVAILABLE, "all-reduce '%s' across the cluster's %d tasks: %s", group,
                     (int)c->size, why);
  *done = ok != 0;
  return NULL;
}

void grt_cluster_all_reduce_abandon(grt_cluster* c, grt_transport_request* req) {
  if (req) c->t->cancel(req);
}
