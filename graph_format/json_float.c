#include "graph_format/json_float.h"

#include <float.h>
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

/* ---- deciding whether a candidate reads back ----
 *
 * The reader turns a number into a double with strtod and narrows it to the
 * dtype, so "reads back" is decided by strtod. That costs ~150 ns a call,
 * and a value can need a dozen candidates, so most are decided first
 * without it: the values that read back as v form an interval between the
 * midpoints to v's neighbours in its dtype, and a candidate m x 10^e
 * computed in long double (64-bit mantissa on x86-64: exact for m, one or
 * two roundings of 2^-64 for the power of ten) that lies clearly inside or
 * clearly outside it needs no strtod. Only candidates within a hair of an
 * end (where ties and rounding decide) take strtod's word. */

typedef struct {
  bool known;         /* the interval is usable (float32/float64, wide long double) */
  long double lo, hi; /* |v|'s reads-back interval, ends excluded */
  long double margin; /* relative distance from an end that is "clearly" inside */
} interval;

static interval interval_of(grt_dtype t, double a) {
  interval iv = {false, 0, 0, 0};
#if LDBL_MANT_DIG >= 64
  long double x = a, below, above;
  if (t == GRT_FLOAT32) {
    float f = (float)a;
    below = nextafterf(f, 0.0f);
    above = nextafterf(f, INFINITY);
  } else if (t == GRT_FLOAT64) {
    below = nextafter(a, 0.0);
    above = nextafter(a, INFINITY);
  } else {
    return iv;
  }
  /* Past the largest finite value the spacing stays that of the last step. */
  if (isinf(above)) above = x + (x - below);
  iv.known = true;
  iv.lo = (x + below) / 2; /* exact: one more bit than the dtype */
  iv.hi = (x + above) / 2;
  /* float64: only the few 2^-64 of error in computing the candidate. float32:
   * strtod first rounds the candidate to a double (2^-53), which must not
   * land on an end, where narrowing to float would be a tie. */
  iv.margin = t == GRT_FLOAT64 ? 1e-17L : 1e-15L;
#else
  (void)t;
  (void)a;
#endif
  return iv;
}

/* 10^e in long double from the correctly rounded literals 10^(2^i): at most
 * ten roundings of 2^-64 each, far inside the margin, and a fraction of
 * powl's time (which dominated printing big tensors). */
static long double pow10_approx(int e) {
  static const long double kSquares[] = {1e1L,  1e2L,  1e4L,   1e8L,  1e16L,
                                         1e32L, 1e64L, 1e128L, 1e256L};
  unsigned n = (unsigned)(e < 0 ? -e : e);
  long double r = 1;
  for (size_t i = 0; n && i < sizeof kSquares / sizeof kSquares[0]; i++, n >>= 1)
    if (n & 1) r *= kSquares[i];
  if (n) return e < 0 ? 0 : INFINITY; /* beyond 10^511: no float dtype gets here */
  return e < 0 ? 1 / r : r;
}

/* 1 when m x 10^e surely reads back, 0 when it surely does not, -1 when
 * only strtod can tell. `scale` is 10^e in long double. */
static int classify(const interval* iv, uint64_t m, long double scale) {
  if (!iv->known) return -1;
  long double c = (long double)m * scale;
  if (c == 0 || isinf(c)) return -1;
  long double margin = c * iv->margin;
  if (c > iv->lo + margin && c < iv->hi - margin) return 1;
  if (c < iv->lo - margin || c > iv->hi + margin) return 0;
  return -1;
}

/* Spells mantissa m x 10^e and, if it reads back, lays it out in buf. */
static size_t try_candidate(grt_dtype t, const unsigned char* want, const interval* iv,
                            long double scale, bool negative, uint64_t m, int e, char* buf) {
  if (m == 0) return 0;
  int sure = classify(iv, m, scale);
  if (sure == 0) return 0;
  if (sure < 0) {
    char text[GRT_JSON_FLOAT_MAX];
    snprintf(text, sizeof text, "%s%" PRIu64 "e%d", negative ? "-" : "", m, e);
    if (!reads_back(t, text, want)) return 0;
  }
  char digits[24];
  int n = snprintf(digits, sizeof digits, "%" PRIu64, m);
  /* m x 10^e = 0.digits x 10^k with k = e + (digit count of m). */
  int k = e + n;
  while (n > 1 && digits[n - 1] == '0') n--;
  return layout(negative, digits, n, k, buf);
}

/* The correctly rounded p-digit decimal of a as mantissa *m and exponent
 * *e (a = m x 10^e, m < 10^p), from its 17 significant digits `d` (a =
 * 0.d x 10^(k17)). Rounding those digits again is exact unless what follows
 * the p-th digit is exactly 5000...: d itself was rounded, so a may lie
 * either side of that tie, and printf decides from a itself. */
static void round_to(double a, const char* d, int k17, int p, uint64_t* m, int* e) {
  uint64_t v = 0;
  for (int i = 0; i < p; i++) v = v * 10 + (uint64_t)(d[i] - '0');
  int up; /* 1 round up, 0 down, -1 a tie in d */
  if (p >= 17) {
    up = 0;
  } else if (d[p] != '5') {
    up = d[p] > '5';
  } else {
    up = -1;
    for (int i = p + 1; i < 17; i++)
      if (d[i] != '0') up = 1;
  }
  if (up < 0) {
    char sci[GRT_JSON_FLOAT_MAX];
    snprintf(sci, sizeof sci, "%.*e", p - 1, a);
    v = 0;
    const char* s = sci;
    for (; *s && *s != 'e'; s++)
      if (*s >= '0' && *s <= '9') v = v * 10 + (uint64_t)(*s - '0');
    *m = v;
    *e = atoi(s + 1) - (p - 1);
    return;
  }
  int exp10 = k17 - p;
  v += (uint64_t)up;
  uint64_t limit = 1;
  for (int i = 0; i < p; i++) limit *= 10;
  if (v == limit) { /* 99.9 -> 100: one digit more, drop it */
    v /= 10;
    exp10++;
  }
  *m = v;
  *e = exp10;
}

size_t grt_json_format_float(grt_dtype t, double v, char* buf) {
  if (!isfinite(v)) return 0;
  bool negative = signbit(v);
  if (v == 0) return (size_t)sprintf(buf, negative ? "-0.0" : "0");
  unsigned char want[8] = {0};
  grt_dtype_store_double(t, want, 0, v);
  double a = fabs(v);
  interval iv = interval_of(t, a);
  /* a's 17 significant digits, once: d0.d1...d16 x 10^x = 0.d x 10^(x+1). */
  char sci[GRT_JSON_FLOAT_MAX], d[18];
  snprintf(sci, sizeof sci, "%.16e", a);
  int nd = 0;
  const char* s = sci;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9' && nd < 17) d[nd++] = *s;
  d[nd] = '\0';
  int k17 = atoi(s + 1) + 1;
  for (int p = 1; p <= 17; p++) {
    /* The correctly rounded p-digit decimal is the best candidate; where the
     * interval that reads back is lopsided (at a power of two) a neighbour
     * one unit away may read back when it does not, so try those too. */
    uint64_t m;
    int e;
    round_to(a, d, k17, p, &m, &e);
    long double scale = iv.known ? pow10_approx(e) : 0;
    size_t len = try_candidate(t, want, &iv, scale, negative, m, e, buf);
    if (!len) len = try_candidate(t, want, &iv, scale, negative, m - 1, e, buf);
    if (!len) len = try_candidate(t, want, &iv, scale, negative, m + 1, e, buf);
    if (len) return len;
  }
  /* 17 significant digits always identify a double, so the loop returns;
   * this spelling is exact too, should it ever be reached. */
  return (size_t)sprintf(buf, "%.16e", v);
}
