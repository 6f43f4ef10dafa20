/* One sentence per node saying why it is where it is. */
#include <stdio.h>

#include "placer/internal.h"

static const char* stage_text(uint8_t stage) {
  switch (stage) {
    case 1:
      return "dropping the device id";
    case 2:
      return "keeping only the device type";
    case 3:
      return "dropping the device type";
    default:
      return "merging the group's requests";
  }
}

static const char* own_text(const grt_plan* p, int32_t v) {
  const char* written = p->g->nodes[v].device;
  if (written && *written) return written;
  return p->reqs.items[p->request[v]].text;
}

/* "GPU before CPU": the built-in types and the set's other types, higher
 * priority first (the default preference). */
static void type_order_text(const grt_plan* p, char* buf, size_t size) {
  grt_device_type order[GRT_MAX_DEVICE_TYPES];
  int32_t n = 0;
  for (grt_device_type t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
    if (t != GRT_DEVICE_CPU && t != GRT_DEVICE_GPU && p->devices->count[t] == 0) continue;
    int32_t k = n++;
    while (k > 0 && grt_device_type_priority(order[k - 1]) < grt_device_type_priority(t)) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = t;
  }
  size_t len = 0;
  if (size) buf[0] = '\0';
  for (int32_t k = 0; k < n && len < size; k++)
    len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " before " : "",
                            grt_device_type_name(order[k]));
}

size_t grt_place_reason_text(const grt_plan* p, int32_t v, char* buf, size_t size) {
  size_t len = 0;
#define APPEND(...) len += (size_t)snprintf(buf + len, len < size ? size - len : 0, __VA_ARGS__)
  if (size) buf[0] = '\0';
  const grt_node* nodes = p->g->nodes;
  const char* dev = grt_device_set_name(p->devices, p->device[v]);
  int32_t other = p->detail[v];
  const char* other_name = other >= 0 && other < p->n ? nodes[other].name : "?";
  switch ((grt_place_reason)p->reason[v]) {
    case GRT_REASON_EXPLICIT:
      APPEND("explicitly requested '%s'", own_text(p, v));
      break;
    case GRT_REASON_PS_SETTER: {
      const grt_ps_record* rec = &p->ps_records[p->ps_record_of[v]];
      const int64_t* before = &p->ps_loads[(size_t)p->ps_record_of[v] * (size_t)p->n_ps];
      APPEND("ps setter (%s): variable ", p->strategy == GRT_PS_GREEDY ? "greedy" : "round_robin");
      if (rec->bytes >= 0)
        APPEND("of %lld bytes", (long long)rec->bytes);
      else
        APPEND("of unknown size (counted as 0 bytes)");
      APPEND(" to ps device %d '%s'; loads before [", (int)rec->ps, p->ps_names[rec->ps]);
      for (int32_t k = 0; k < p->n_ps; k++) APPEND("%s%lld", k ? ", " : "", (long long)before[k]);
      APPEND("]");
      break;
    }
    case GRT_REASON_COLOCATION:
      if (p->cause[v] == GRT_CAUSE_REF_EDGE) {
        APPEND(
            "request '%s' ignored: '%s' reaches it through a reference edge and its group's "
            "device decides",
            own_text(p, v), other_name);
        break;
      }
      APPEND("colocated with '%s'", other_name);
      if (other >= 0 && p->request[other]) APPEND(" (which requested '%s')", own_text(p, other));
      if (p->stage[v])
        APPEND("; the group's request could not be met (%s), soft placement fell back by %s",
               p->cause[v] == GRT_CAUSE_NO_KERNEL ? "no kernel for that device type"
                                                  : "no such device",
               stage_text(p->stage[v]));
      break;
    case GRT_REASON_SOFT_FALLBACK:
      APPEND("soft placement: requested '%s' cannot be met (", own_text(p, v));
      if (p->cause[v] == GRT_CAUSE_NO_SUCH_DEVICE) {
        APPEND("no such device");
      } else if (p->cause[v] == GRT_CAUSE_NO_KERNEL) {
        APPEND("no kernel for %s on that device type", nodes[v].op);
      } else {
        APPEND("colocation conflict");
        if (other >= 0 && other != v) {
          APPEND(" with '%s'", other_name);
          if (p->request[other]) APPEND(" which requested '%s'", own_text(p, other));
        }
      }
      APPEND("); fell back to %s by %s", dev, stage_text(p->stage[v]));
      break;
    case GRT_REASON_DEFAULT: {
      char types[GRT_MAX_DEVICE_TYPES * (GRT_DEVICE_TYPE_NAME_MAX + 8)];
      type_order_text(p, types, sizeof types);
      APPEND("no request: the first device with a kernel for %s, %s, lowest id first", nodes[v].op,
             types);
      break;
    }
    case GRT_REASON_CONSUMERS:
      APPEND("generator placed with its consumers, all on %s (first: '%s')", dev, other_name);
      break;
    case GRT_REASON_INPUT:
      APPEND("%s placed with its input '%s'", nodes[v].op, other_name);
      break;
  }
#undef APPEND
  return len;
}
