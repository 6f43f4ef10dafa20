/* Colocation groups: union-find over nodes joined by a reference edge (a
 * variable and every op taking it by reference) or by colocate_with. A group
 * carries the merge of its members' requests and the intersection of the
 * device types they support.
 *
 * Order follows TensorFlow's ColocationGraph: reference edges first, where a
 * consumer's conflicting request yields to its variable's; then
 * colocate_with, where a conflict is an error, or under soft placement is
 * resolved by dropping the id (same type) or the type, and where a group
 * that cannot be formed at all is left apart. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/context.h"

int32_t grt_ctx_find(grt_place_ctx* c, int32_t v) {
  int32_t r = v;
  while (c->parent[r] != r) r = c->parent[r];
  while (c->parent[v] != r) { /* path compression */
    int32_t next = c->parent[v];
    c->parent[v] = r;
    v = next;
  }
  return r;
}

static uint8_t merge_order(uint8_t a, uint8_t b) {
  if (a == GRT_ORDER_DEFAULT) return b;
  if (b == GRT_ORDER_DEFAULT || a == b) return a;
  return GRT_ORDER_DEFAULT; /* disagreeing priorities: TensorFlow falls back */
}

static grt_status* remember_ignored(grt_plan* p, int32_t node, int32_t other) {
  int32_t* list = grt_realloc(p->ignored, (size_t)(p->n_ignored + 1) * 2 * sizeof *list);
  if (!list) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  p->ignored = list;
  list[2 * p->n_ignored] = node;
  list[2 * p->n_ignored + 1] = other;
  p->n_ignored++;
  return NULL;
}

static grt_status* group_error(grt_place_ctx* c, int32_t rx, int32_t ry, const char* fmt,
                               const char* a, const char* b, const char* why) {
  grt_strbuf buf = {0};
  grt_strbuf_printf(&buf, fmt, a, b, why);
  grt_ctx_describe_group(c, rx, ry, &buf);
  grt_status* s = GRT_ERROR(INVALID_ARGUMENT, "%s", grt_strbuf_str(&buf));
  grt_free(buf.s);
  return s;
}

/* Joins the groups of x and y. For a reference edge x is the variable side. */
static grt_status* unite(grt_place_ctx* c, int32_t x, int32_t y, bool ref_edge) {
  int32_t rx = grt_ctx_find(c, x), ry = grt_ctx_find(c, y);
  if (rx == ry) return NULL;
  grt_requests* reqs = &c->plan->reqs;
  const char* xn = c->nodes[x].name;
  const char* yn = c->nodes[y].name;
  if (ref_edge && c->greq[rx] != c->greq[ry] &&
      !grt_device_name_compatible(&reqs->items[c->greq[rx]].name, &reqs->items[c->greq[ry]].name)) {
    c->greq[ry] = c->greq[rx];
    if (c->gref[ry] < 0) c->gref[ry] = x;
  }
  int32_t merged = c->greq[rx];
  int rc = 0;
  if (c->greq[ry] != merged) {
    if (merged == 0) {
      merged = c->greq[ry];
    } else if (c->greq[ry] != 0) {
      grt_device_name m = reqs->items[merged].name;
      char why[3 * GRT_DEVICE_NAME_MAX];
      rc = grt_device_name_merge_soft(&m, &reqs->items[c->greq[ry]].name, c->soft, why, sizeof why);
      if (rc < 0) {
        if (c->soft && !ref_edge) return remember_ignored(c->plan, x, y);
        return group_error(c, rx, ry, "Cannot colocate nodes %s and %s: %s", xn, yn, why);
      }
      GRT_RETURN_IF_ERROR(grt_requests_intern(reqs, &m, &merged));
    }
  }
  uint8_t types = c->gtypes[rx] & c->gtypes[ry];
  if (!types) {
    if (c->soft && !ref_edge) return remember_ignored(c->plan, x, y);
    return group_error(c, rx, ry,
                       ref_edge ? "Nodes were connected by a reference connection (requiring them "
                                  "to be on the same device), but no device type supports both: "
                                  "Cannot colocate nodes %s and %s%s"
                                : "Cannot colocate nodes %s and %s%s",
                       xn, yn,
                       " because no device type supports both of those nodes and the other "
                       "nodes colocated with them.");
  }
  /* Union by rank; the new root inherits the merged group state. */
  int32_t root = rx, child = ry;
  if (c->rank[rx] < c->rank[ry]) {
    root = ry;
    child = rx;
  } else if (c->rank[rx] == c->rank[ry] && c->rank[rx] < 255) {
    c->rank[rx]++;
  }
  c->parent[child] = root;
  int32_t sx = c->gsrc[rx], sy = c->gsrc[ry];
  c->gsrc[root] = sx < 0 ? sy : (sy < 0 || sx < sy ? sx : sy);
  c->gref[root] = c->gref[rx] >= 0 ? c->gref[rx] : c->gref[ry];
  c->greq[root] = merged;
  c->gtypes[root] = types;
  c->gorder[root] = merge_order(c->gorder[rx], c->gorder[ry]);
  c->gflags[root] = c->gflags[rx] | c->gflags[ry] | (rc == 1 ? GRT_GROUP_SOFT_CONFLICT : 0);
  return NULL;
}

grt_status* grt_ctx_colocate(grt_place_ctx* c) {
  for (int32_t v = 0; v < c->n; v++) {
    const grt_node* n = &c->nodes[v];
    for (int32_t i = 0; i < n->n_inputs; i++)
      if (n->sig.input_is_ref && n->sig.input_is_ref[i])
        GRT_RETURN_IF_ERROR(unite(c, n->inputs[i].src, v, true));
  }
  for (int32_t v = 0; v < c->n; v++) {
    const grt_node* n = &c->nodes[v];
    for (int32_t i = 0; i < n->n_colocate; i++) {
      int32_t other = grt_strmap_get(&c->g->by_name, n->colocate_with[i]);
      if (other < 0)
        return GRT_ERROR(NOT_FOUND,
                         "node '%s' (%s): colocate_with names '%s', which does not exist", n->name,
                         n->op, n->colocate_with[i]);
      GRT_RETURN_IF_ERROR(unite(c, v, other, false));
    }
  }
  return NULL;
}
