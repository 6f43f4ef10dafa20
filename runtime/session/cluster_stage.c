/* Staging device-memory members of an all-reduce across tasks through host
 * memory (cluster_stage.h). Blocking copies on the run's thread: it is the
 * thread that starts and polls the transport's all-reduce anyway, and the
 * sum cannot start before its input is on the host. */
#include "runtime/session/cluster_stage.h"

#include "base/status.h"
#include "base/tensor.h"

static grt_device* member_device(const grt_session* s, const grt_executable* e, const exec_group* g,
                                 int32_t k) {
  return s->device[e->nodes[e->group_members[g->start + k]].device];
}

bool grt_cluster_stage_needed(const grt_session* s, const grt_executable* e, const exec_group* g) {
  return g->n > 0 && !member_device(s, e, g, 0)->host_addressable;
}

grt_status* grt_cluster_stage_down(grt_session* s, const grt_executable* e, const exec_group* g,
                                   int32_t k, const grt_tensor* src, grt_tensor** out_host) {
  *out_host = NULL;
  for (int32_t m = 0; m < g->n; m++) {
    grt_device* d = member_device(s, e, g, m);
    GRT_RETURN_IF_ERROR_ANNOTATED(grt_stream_sync(d->streams[GRT_STREAM_COMPUTE]),
                                  "all-reduce '%s' across tasks: %s", g->shared_name, d->name);
  }
  int64_t dims[1] = {2 * grt_tensor_num_elements(src)};
  grt_tensor* host = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(src->dtype, 1, dims, &host));
  grt_device* d = member_device(s, e, g, k);
  grt_stream* down = d->streams[GRT_STREAM_DEVICE_TO_HOST];
  grt_status* st = grt_stream_memcpy(down, grt_tensor_data(host), grt_tensor_data(src),
                                     grt_tensor_byte_size(src));
  if (!st) st = grt_stream_sync(down);
  if (st) {
    grt_tensor_free(host);
    return grt_status_prefix(st, "all-reduce '%s' across tasks: copying %s's part to the host",
                             g->shared_name, d->name);
  }
  *out_host = host;
  return NULL;
}

grt_status* grt_cluster_stage_up(grt_session* s, const grt_executable* e, const exec_group* g,
                                 const grt_tensor* host, grt_tensor* const* outputs) {
  size_t half = grt_tensor_byte_size(host) / 2;
  const char* sum = (const char*)grt_tensor_data(host) + half;
  for (int32_t k = 0; k < g->n; k++) {
    grt_device* d = member_device(s, e, g, k);
    grt_stream* up = d->streams[GRT_STREAM_HOST_TO_DEVICE];
    grt_status* st = grt_stream_memcpy(up, grt_tensor_data(outputs[k]), sum, half);
    if (!st) st = grt_stream_sync(up);
    if (st)
      return grt_status_prefix(st, "all-reduce '%s' across tasks: copying the sum to %s",
                               g->shared_name, d->name);
  }
  return NULL;
}
