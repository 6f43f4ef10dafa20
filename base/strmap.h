/* A string -> int32 hash map (open addressing). Keys are borrowed: they must
 * outlive the map (graph names live in the graph's arena or mapped file). */
#ifndef GRT_BASE_STRMAP_H_
#define GRT_BASE_STRMAP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_strmap {
  const char** keys;
  uint32_t* hashes;
  int32_t* values;
  size_t cap; /* power of two, or 0 */
  size_t count;
} grt_strmap;

void grt_strmap_init(grt_strmap* m);
void grt_strmap_clear(grt_strmap* m); /* frees the table, keeps the map usable */
/* Makes room for `n` keys; false when out of memory. */
bool grt_strmap_reserve(grt_strmap* m, size_t n);
/* Inserts key -> value. Returns 1 if inserted, 0 if the key was present
 * (its value is left as it was and written to *existing if non-NULL),
 * -1 when out of memory. */
int grt_strmap_put(grt_strmap* m, const char* key, int32_t value, int32_t* existing);
/* Sets key -> value, inserting the key or overwriting its value. Returns
 * false when out of memory. */
bool grt_strmap_set(grt_strmap* m, const char* key, int32_t value);
/* The value for key, or -1. */
int32_t grt_strmap_get(const grt_strmap* m, const char* key);
int32_t grt_strmap_getn(const grt_strmap* m, const char* key, size_t len);

uint32_t grt_hash_bytes(const void* data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_STRMAP_H_ */
