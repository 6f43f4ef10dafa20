/* protobuf-c's allocations through grt's heap (base/mem.h), so that the
 * allocation-failure tests reach the parsers too. */
#ifndef GRT_INTERCHANGE_PROTOBUF_ALLOC_H_
#define GRT_INTERCHANGE_PROTOBUF_ALLOC_H_

#include <protobuf-c/protobuf-c.h>

/* Static; pass to *__unpack and *__free_unpacked. */
ProtobufCAllocator* grt_protobuf_allocator(void);

#endif /* GRT_INTERCHANGE_PROTOBUF_ALLOC_H_ */
