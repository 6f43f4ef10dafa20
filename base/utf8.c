/* UTF-8 validity (utf8.h): the well-formed byte sequences of RFC 3629's
 * table, checked lead byte by lead byte. */
#include "base/utf8.h"

#include <stdint.h>

/* For each lead byte: how many continuation bytes follow, and the range the
 * first of them must fall in (narrower than 80..BF after E0, ED, F0, F4,
 * which is what excludes overlong forms, surrogates and > U+10FFFF). */
typedef struct {
  uint8_t lo, hi;   /* lead byte range */
  uint8_t more;     /* continuation bytes */
  uint8_t lo1, hi1; /* range of the first continuation byte */
} utf8_row;

static const utf8_row kRows[] = {
    {0x00, 0x7F, 0, 0, 0},       {0xC2, 0xDF, 1, 0x80, 0xBF}, {0xE0, 0xE0, 2, 0xA0, 0xBF},
    {0xE1, 0xEC, 2, 0x80, 0xBF}, {0xED, 0xED, 2, 0x80, 0x9F}, {0xEE, 0xEF, 2, 0x80, 0xBF},
    {0xF0, 0xF0, 3, 0x90, 0xBF}, {0xF1, 0xF3, 3, 0x80, 0xBF}, {0xF4, 0xF4, 3, 0x80, 0x8F},
};

bool grt_utf8_valid(const char* s, size_t len, size_t* bad_at) {
  const unsigned char* p = (const unsigned char*)s;
  size_t i = 0;
  while (i < len) {
    const utf8_row* row = NULL;
    for (size_t r = 0; r < sizeof kRows / sizeof kRows[0]; r++)
      if (p[i] >= kRows[r].lo && p[i] <= kRows[r].hi) row = &kRows[r];
    bool ok = row && len - i > row->more;
    for (size_t k = 1; ok && k <= row->more; k++) {
      uint8_t lo = k == 1 ? row->lo1 : 0x80, hi = k == 1 ? row->hi1 : 0xBF;
      ok = p[i + k] >= lo && p[i + k] <= hi;
    }
    if (!ok) {
      if (bad_at) *bad_at = i;
      return false;
    }
    i += 1 + (size_t)row->more;
  }
  return true;
}
