#include "graph_format/json_float.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"

/* Integers longer than this are spelled with an exponent: the reader takes
 * a digits-only number as a JSON integer and widens it to double, which is
 * only exact below 2^53. */
enum { kMaxIntegerDigits = 15 };

/* True when the decimal `text` reads back as `want`. Uses the reader's own
 * path (strtod, then the dtype's narrowing) so what is printed is what is
 * read, double rounding and all. */
static bool reads_back(grt_dtype t, const char* text, const unsigned char* want) {
  unsigned char got[8] = {0};
  grt_dtype_store_double(t, got, 0, strtod(text, NULL));
  return memcmp(got, want, grt_dtype_size(t)) == 0;
}

/* Lays out `n` significant digits `d` (no trailing zeros) of a positive
 * value 0.d x 10^k, after an optional sign. */
static size_t layout(bool negative, const char* d, int n, int k, char* buf) {
  char* p = buf;
  if (negative) *p++ = '-';
  if (n <= k && k <= kMaxIntegerDigits) {
    memcpy(p, d, (size_t)n);
    p += n;
    for (int i = n; i < k; i++) *p++ = '0';
  } else if (0 < k && k < n) {
    memcpy(p, d, (size_t)k);
    p += k;
    *p++ = '.';
    memcpy(p, d + k, (size_t)(n - k));
    p += n - k;
  } else if (-6 < k && k <= 0) {
    *p++ = '0';
    *p++ = '.';
    for (int i = k; i < 0; i++) *p++ = '0';
    memcpy(p, d, (size_t)n);
    p += n;
  } else {
    *p++ = d[0];
    if (n > 1) {
      *p++ = '.';
      memcpy(p, d + 1, (size_t)(n - 1));
      p += n - 1;
    }
    p += sprintf(p, "e%d", k - 1);
  }
  *p = '\0';
  return (size_t)(p - buf);
}

/* Spells mantissa m x 10^e and, if it reads back, lays it out in buf. */
static size_t try_candidate(grt_dtype t, const unsigned char* want, bool negative, uint64_t m,
                            int e, char* buf) {
  if (m == 0) return 0;
  char text[GRT_JSON_FLOAT_MAX];
  snprintf(text, sizeof text, "%s%" PRIu64 "e%d", negative ? "-" : "", m, e);
  if (!reads_back(t, text, want)) return 0;
  char digits[24];
  int n = snprintf(digits, sizeof digits, "%" PRIu64, m);
  while (n > 1 && digits[n - 1] == '0') n--;
  /* m x 10^e = 0.digits x 10^k with k = e + (digit count of m). */
  int k = e + (int)strlen(digits);
  return layout(negative, digits, n, k, buf);
}

size_t grt_json_format_float(grt_dtype t, double v, char* buf) {
  if (!isfinite(v)) return 0;
  bool negative = signbit(v);
  if (v == 0) return (size_t)sprintf(buf, negative ? "-0.0" : "0");
  unsigned char want[8] = {0};
  grt_dtype_store_double(t, want, 0, v);
  double a = fabs(v);
  for (int p = 1; p <= 17; p++) {
    /* The correctly rounded p-digit decimal is the best candidate; where the
     * interval that reads back is lopsided (at a power of two) a neighbour
     * one unit away may read back when it does not, so try those too. */
    char sci[GRT_JSON_FLOAT_MAX];
    snprintf(sci, sizeof sci, "%.*e", p - 1, a);
    uint64_t m = 0;
    const char* s = sci;
    for (; *s && *s != 'e'; s++)
      if (*s >= '0' && *s <= '9') m = m * 10 + (uint64_t)(*s - '0');
    int e = atoi(s + 1) - (p - 1);
    size_t len = try_candidate(t, want, negative, m, e, buf);
    if (!len) len = try_candidate(t, want, negative, m - 1, e, buf);
    if (!len) len = try_candidate(t, want, negative, m + 1, e, buf);
    if (len) return len;
  }
  /* 17 significant digits always identify a double, so the loop returns;
   * this spelling is exact too, should it ever be reached. */
  return (size_t)sprintf(buf, "%.16e", v);
}
