/* Text for placement errors: a colocation group's members, what each asked
 * for and which device types can run it; a node's input dtypes and attrs. */
#include <stdio.h>

#include "placer/context.h"

/* Members without a request are listed up to this many per group; members
 * with one are always listed, since they are what a conflict is about. */
enum { kMaxQuietMembers = 32 };

void grt_ctx_describe_types(uint32_t mask, grt_strbuf* b) {
  bool any = false;
  for (grt_device_type t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
    if (!(mask & (1u << t))) continue;
    grt_strbuf_printf(b, "%s%s", any ? " " : "", grt_device_type_name(t));
    any = true;
  }
  if (!any) grt_strbuf_printf(b, "<none>");
}

void grt_ctx_describe_group(grt_place_ctx* c, int32_t r1, int32_t r2, grt_strbuf* b) {
  int32_t size = 0, quiet = 0, skipped = 0;
  for (int32_t v = 0; v < c->n; v++) {
    int32_t r = grt_ctx_find(c, v);
    size += r == r1 || r == r2;
  }
  grt_strbuf_printf(b,
                    "\nColocation Debug Info:\nColocation group of %d node%s; members, "
                    "user-requested devices, and supported device types:",
                    (int)size, size == 1 ? "" : "s");
  for (int32_t v = 0; v < c->n; v++) {
    int32_t r = grt_ctx_find(c, v);
    if (r != r1 && r != r2) continue;
    const grt_node* n = &c->nodes[v];
    int32_t req = c->plan->request[v];
    if (!req && quiet >= kMaxQuietMembers) {
      skipped++;
      continue;
    }
    quiet += !req;
    grt_strbuf_printf(b, "\n  %s (%s) ", n->name, n->op);
    if (n->device && n->device[0]) {
      grt_strbuf_printf(b, "%s", n->device);
    } else if (req) {
      grt_strbuf_printf(b, "%s (from the ps setter)", c->plan->reqs.items[req].text);
    } else {
      grt_strbuf_printf(b, "''");
    }
    grt_strbuf_printf(b, " supported: ");
    grt_ctx_describe_types(c->types[v], b);
  }
  if (skipped)
    grt_strbuf_printf(b, "\n  ... and %d more member%s with no device request", (int)skipped,
                      skipped == 1 ? "" : "s");
  grt_strbuf_printf(b, "\n");
}

void grt_ctx_describe_inputs(const grt_node* n, grt_strbuf* b) {
  grt_strbuf_printf(b, "[");
  for (int32_t i = 0; i < n->sig.n_inputs; i++)
    grt_strbuf_printf(b, "%s%s%s", i ? ", " : "", grt_dtype_name(n->sig.input_types[i]),
                      n->sig.input_is_ref && n->sig.input_is_ref[i] ? "_ref" : "");
  grt_strbuf_printf(b, "]");
}

void grt_ctx_describe_attrs(const grt_node* n, grt_strbuf* b) {
  for (int32_t i = 0; i < n->n_attrs; i++) {
    const grt_attr* a = &n->attrs[i];
    grt_strbuf_printf(b, "%s%s=", i ? ", " : "", a->name);
    const grt_attr_value* v = &a->value;
    switch (v->type) {
      case GRT_ATTR_INT:
        grt_strbuf_printf(b, "%lld", (long long)v->u.i);
        break;
      case GRT_ATTR_FLOAT:
        grt_strbuf_printf(b, "%g", (double)v->u.f);
        break;
      case GRT_ATTR_BOOL:
        grt_strbuf_printf(b, "%s", v->u.b ? "true" : "false");
        break;
      case GRT_ATTR_STRING:
        grt_strbuf_printf(b, "\"%s\"", v->u.s);
        break;
      case GRT_ATTR_TYPE:
        grt_strbuf_printf(b, "%s", grt_dtype_name(v->u.t));
        break;
      default:
        grt_strbuf_printf(b, "<%s>", grt_attr_type_name(v->type));
        break;
    }
  }
}
