/* The nesting pre-scan (protobuf_depth.h). Recursion here is bounded by
 * GRT_PROTOBUF_MAX_DEPTH, and each frame is a few words. */
#include "interchange/protobuf_depth.h"

#include <stdbool.h>

#include "base/status.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

/* A varint at *p (at most 10 bytes, within end); false when it is cut off
 * or too long. */
static bool varint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

/* Whether the message in [p, end), at nesting level `depth`, stays within
 * the limit. */
static bool within(const ProtobufCMessageDescriptor* desc, const uint8_t* p, const uint8_t* end,
                   int depth) {
  if (depth > GRT_PROTOBUF_MAX_DEPTH) return false;
  while (p < end) {
    uint64_t key, n;
    if (!varint(&p, end, &key)) return true;
    switch (key & 7) {
      case WIRE_VARINT:
        if (!varint(&p, end, &n)) return true;
        break;
      case WIRE_FIXED64:
        if (end - p < 8) return true;
        p += 8;
        break;
      case WIRE_FIXED32:
        if (end - p < 4) return true;
        p += 4;
        break;
      case WIRE_LEN: {
        if (!varint(&p, end, &n) || n > (uint64_t)(end - p)) return true;
        uint64_t tag = key >> 3;
        const ProtobufCFieldDescriptor* f =
            tag <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)tag) : NULL;
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && !within(f->descriptor, p, p + n, depth + 1))
          return false;
        p += n;
        break;
      }
      default: /* groups and invalid wire types: protobuf-c refuses them */
        return true;
    }
  }
  return true;
}

grt_status* grt_protobuf_check_depth(const ProtobufCMessageDescriptor* desc, const void* data,
                                     size_t len, const char* what) {
  const uint8_t* p = data ? data : (const uint8_t*)"";
  if (within(desc, p, p + (data ? len : 0), 1)) return NULL;
  return GRT_ERROR(INVALID_ARGUMENT,
                   "the %s nests messages more than %d levels deep (grt's limit for protobuf "
                   "input: nested subgraphs, types or attribute values)",
                   what, GRT_PROTOBUF_MAX_DEPTH);
}
