/* CRC-32C (Castagnoli, the polynomial iSCSI, ext4 and SSE4.2's crc32
 * instruction use), for checksums of constant tensor data: zlib has only
 * the IEEE CRC-32, which has no instruction and is several times slower. */
#ifndef GRT_BASE_CRC32C_H_
#define GRT_BASE_CRC32C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CRC-32C of `len` bytes continuing from `crc` (0 to start):
 * grt_crc32c(0, "123456789", 9) == 0xE3069283. Uses the CPU's instruction
 * where there is one, else a table. */
uint32_t grt_crc32c(uint32_t crc, const void* data, size_t len);

/* The same, always by the table (tests compare the two). */
uint32_t grt_crc32c_portable(uint32_t crc, const void* data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_CRC32C_H_ */
