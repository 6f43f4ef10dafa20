/* The devices a group may use: those matching its merged request with a
 * device type every member has a kernel for: a type a kernel priority puts
 * first, then by device type priority (GPU before TEST before CPU), lowest
 * id first. When none qualifies, soft placement relaxes the request step by
 * step (drop the id; keep only the type; drop the type too); without it
 * the error uses TensorFlow's wording so users can search for it. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "placer/context.h"
#include "base/status.h"

bool grt_ctx_allowed(const grt_place_ctx* c, int32_t r, int32_t d) {
  if (d < 0) return false;
  const grt_request* q = &c->plan->reqs.items[c->gspec[r]];
  return q->match[d] && (c->gtypes[r] & (1u << c->plan->devices->devs[d].type));
}

/* The member an error should name: the first (in graph order) whose own
 * request is the group's, else the first with any request, else the first. */
static int32_t reporter(grt_place_ctx* c, int32_t r, int32_t* out_size) {
  int32_t same = -1, any = -1, first = -1, size = 0;
  for (int32_t v = 0; v < c->n; v++) {
    if (grt_ctx_find(c, v) != r) continue;
    size++;
    if (first < 0) first = v;
    if (any < 0 && c->plan->request[v]) any = v;
    if (same < 0 && c->plan->request[v] == c->greq[r]) same = v;
  }
  *out_size = size;
  return same >= 0 ? same : any >= 0 ? any : first;
}

static grt_status* no_device_error(grt_place_ctx* c, int32_t r, grt_place_cause cause) {
  int32_t size;
  int32_t v = reporter(c, r, &size);
  const grt_node* n = &c->nodes[v];
  const grt_requests* reqs = &c->plan->reqs;
  const grt_request* group = &reqs->items[c->greq[r]];
  const grt_request* own = &reqs->items[c->plan->request[v]];
  grt_strbuf b = {0};
  grt_strbuf_printf(&b, "Cannot assign a device for operation %s: ", n->name);
  if (c->greq[r] == 0) {
    grt_strbuf_printf(&b,
                      "Node had no OpKernel registered to support this operation: Operation was "
                      "%s and inputs were ",
                      n->op);
    grt_ctx_describe_inputs(n, &b);
    grt_strbuf_printf(&b, ".");
    grt_ctx_describe_group(c, r, -1, &b);
  } else if (c->plan->request[v] != c->greq[r]) {
    char* all = grt_device_set_list(c->plan->devices, "", "");
    grt_strbuf_printf(&b,
                      "Could not satisfy explicit device specification '%s' because the node %s "
                      "was colocated with a group of nodes that required incompatible device "
                      "'%s'. All available devices [%s]. ",
                      own->text, n->name, group->text, all ? all : "");
    grt_free(all);
    grt_ctx_describe_group(c, r, -1, &b);
  } else if (cause == GRT_CAUSE_NO_SUCH_DEVICE) {
    char* all = grt_device_set_list(c->plan->devices, "[ ", " ]");
    grt_strbuf_printf(&b,
                      "Operation was explicitly assigned to %s but available devices are %s. "
                      "Make sure the device specification refers to a valid device.",
                      own->text, all ? all : "[ ]");
    grt_free(all);
    if (size > 1) grt_ctx_describe_group(c, r, -1, &b);
  } else if (own->name.has_type) {
    grt_strbuf_printf(&b,
                      "Could not satisfy explicit device specification '%s' because no supported "
                      "kernel for %s devices is available.",
                      own->text, own->name.type);
    grt_ctx_describe_group(c, r, -1, &b);
    grt_strbuf_printf(&b, "\nOp: %s\nNode attrs: ", n->op);
    grt_ctx_describe_attrs(n, &b);
    char kernels[2048];
    grt_kernel_describe_op(n->op, kernels, sizeof kernels);
    grt_strbuf_printf(&b, "\nRegistered kernels:\n%s", kernels);
  } else {
    grt_strbuf_printf(&b, "Could not satisfy explicit device specification '%s'", own->text);
    grt_ctx_describe_group(c, r, -1, &b);
  }
  grt_status* s = GRT_ERROR(INVALID_ARGUMENT, "%s", grt_strbuf_str(&b));
  grt_free(b.s);
  return s;
}

/* Tries the request `name` for group r; true when a device qualifies. */
static grt_status* try_spec(grt_place_ctx* c, int32_t r, const grt_device_name* name, bool* found) {
  int32_t id;
  GRT_RETURN_IF_ERROR(grt_requests_intern(&c->plan->reqs, name, &id));
  int32_t d = grt_requests_best(&c->plan->reqs, id, c->gtypes[r], c->gorder[r]);
  *found = d >= 0;
  if (*found) {
    c->gcand[r] = d;
    c->gspec[r] = id;
  }
  return NULL;
}

static grt_status* group_candidates(grt_place_ctx* c, int32_t r) {
  c->gflags[r] |= GRT_GROUP_CANDIDATES;
  grt_requests* reqs = &c->plan->reqs;
  int32_t q = c->greq[r];
  int32_t d = grt_requests_best(reqs, q, c->gtypes[r], c->gorder[r]);
  if (d >= 0) {
    c->gcand[r] = d;
    c->gspec[r] = q;
    return NULL;
  }
  grt_place_cause cause =
      reqs->items[q].n_match > 0 ? GRT_CAUSE_NO_KERNEL : GRT_CAUSE_NO_SUCH_DEVICE;
  if (!c->soft || q == 0) return no_device_error(c, r, cause);
  c->gcause[r] = (uint8_t)cause;
  grt_device_name name = reqs->items[q].name;
  bool found = false;
  if (name.has_id) { /* keep everything but the id */
    name.has_id = false;
    c->gstage[r] = 1;
    GRT_RETURN_IF_ERROR(try_spec(c, r, &name, &found));
  }
  if (!found && name.has_type && (name.has_job || name.has_replica || name.has_task)) {
    /* keep only the type: a missing job or task is no reason to leave the GPU */
    name.has_job = name.has_replica = name.has_task = false;
    c->gstage[r] = 2;
    GRT_RETURN_IF_ERROR(try_spec(c, r, &name, &found));
  }
  if (!found) { /* drop the type too: any supported device */
    memset(&name, 0, sizeof name);
    c->gstage[r] = 3;
    GRT_RETURN_IF_ERROR(try_spec(c, r, &name, &found));
  }
  if (!found) return no_device_error(c, r, cause);
  return NULL;
}

grt_status* grt_ctx_candidates(grt_place_ctx* c) {
  for (int32_t v = 0; v < c->n; v++) {
    int32_t r = grt_ctx_find(c, v);
    if (!(c->gflags[r] & GRT_GROUP_CANDIDATES)) GRT_RETURN_IF_ERROR(group_candidates(c, r));
  }
  return NULL;
}
