/* Standard base64 (RFC 4648, "+/" alphabet, '=' padding), as the JSON text
 * form stores raw tensor bytes. Decoding is strict: no whitespace, no
 * missing padding, no stray bits, so each byte string has one spelling and
 * the text form round-trips exactly. */
#ifndef GRT_GRAPH_FORMAT_BASE64_H_
#define GRT_GRAPH_FORMAT_BASE64_H_

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Characters needed to encode n bytes (no NUL); false when that overflows. */
bool grt_base64_encoded_len(size_t n, size_t* out);

/* Writes grt_base64_encoded_len(n) characters to out (no NUL). */
void grt_base64_encode(const void* data, size_t n, char* out);

/* Bytes that decoding `len` characters yields, or false when `len` is not a
 * multiple of 4 (or the padding says otherwise). Looks at the last two
 * characters only; grt_base64_decode checks the rest. */
bool grt_base64_decoded_len(const char* text, size_t len, size_t* out);

/* Decodes `len` characters into out (grt_base64_decoded_len bytes), or
 * only checks them when out is NULL. On a fault returns false with
 * *out_bad_offset at the offending character (len for a bad length). */
bool grt_base64_decode(const char* text, size_t len, void* out, size_t* out_bad_offset);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_BASE64_H_ */
