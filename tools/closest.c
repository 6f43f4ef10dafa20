/* The names closest to a mistyped one (tools/closest.h). */
#include "tools/closest.h"

#include <ctype.h>
#include <string.h>

enum { kMaxLen = 64 };

/* Levenshtein distance ignoring case; a word longer than kMaxLen is far from
 * everything. A difference of case alone counts 0: "matmul" is MatMul. */
static size_t distance(const char* a, const char* b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > kMaxLen || lb > kMaxLen) return (size_t)-1;
  size_t row[kMaxLen + 1];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
      row[j] = sub < best ? sub : best;
      diag = up;
    }
  }
  return row[lb];
}

size_t grt_closest_names(const char* word, const char* const* names, size_t n, const char** out,
                         size_t max) {
  size_t limit = strlen(word) / 3 < 2 ? 2 : strlen(word) / 3;
  size_t found = 0;
  size_t dist[16];
  if (max > 16) max = 16;
  for (size_t i = 0; i < n; i++) {
    size_t d = distance(word, names[i]);
    if (d > limit) continue;
    /* Insert in order of distance; ties keep the names' order. */
    size_t k = found < max ? found++ : max;
    while (k > 0 && dist[k - 1] > d) {
      if (k < max) {
        out[k] = out[k - 1];
        dist[k] = dist[k - 1];
      }
      k--;
    }
    if (k < max) {
      out[k] = names[i];
      dist[k] = d;
    }
  }
  return found;
}
