/* UTF-8 validity, for text that must survive a round trip through JSON. */
#ifndef GRT_BASE_UTF8_H_
#define GRT_BASE_UTF8_H_

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True when the `len` bytes at `s` are well-formed UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). Otherwise false,
 * with the offset of the first bad byte in *bad_at (if not NULL). */
bool grt_utf8_valid(const char* s, size_t len, size_t* bad_at);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_UTF8_H_ */
