/* Einsum equation parsing (ops/einsum_parse.h). */
#include "ops/einsum_parse.h"

#include <string.h>

#include "base/status.h"

static int32_t letter(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

/* One operand's subscripts: letters (labels) and at most one "...".
 * *ell_at: the position of "..." among the labels, or -1. */
static grt_status* subscripts(const char* s, size_t len, int32_t* labels, int32_t* n,
                              int32_t* ell_at) {
  *n = 0;
  *ell_at = -1;
  for (size_t i = 0; i < len;) {
    if (s[i] == '.') {
      if (i + 3 > len || memcmp(s + i, "...", 3) != 0 || *ell_at >= 0)
        return GRT_ERROR(INVALID_ARGUMENT, "Einsum: '.' only as one '...' per operand");
      *ell_at = *n;
      i += 3;
      continue;
    }
    int32_t l = letter(s[i]);
    if (l < 0) return GRT_ERROR(INVALID_ARGUMENT, "Einsum: invalid subscript '%c'", s[i]);
    if (*n >= GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "Einsum: too many subscripts");
    labels[(*n)++] = l;
    i++;
  }
  return NULL;
}

static grt_status* merge_size(grt_einsum* e, int32_t l, int64_t d, bool broadcast) {
  if (d < 0) return NULL;
  int64_t* s = &e->size[l];
  if (*s < 0 || (broadcast && *s == 1)) {
    *s = d;
    return NULL;
  }
  if (*s == d || (broadcast && d == 1)) return NULL;
  return GRT_ERROR(INVALID_ARGUMENT, "Einsum: dimensions %lld and %lld of one subscript differ",
                   (long long)*s, (long long)d);
}

grt_status* grt_einsum_parse(const char* equation, int32_t n, const grt_shape* shapes,
                             grt_einsum* e) {
  char eq[256];
  size_t m = 0;
  for (const char* p = equation; *p; p++) {
    if (*p == ' ') continue;
    if (m + 1 >= sizeof eq) return GRT_ERROR(INVALID_ARGUMENT, "Einsum: equation too long");
    eq[m++] = *p;
  }
  eq[m] = 0;
  memset(e, 0, sizeof *e);
  for (int32_t l = 0; l < GRT_EINSUM_LABELS; l++) e->size[l] = -1;
  char* arrow = strstr(eq, "->");
  if (!arrow)
    return GRT_ERROR(INVALID_ARGUMENT, "Einsum: the equation '%s' needs '->' and the output",
                     equation);
  if (n > GRT_EINSUM_MAX_INPUTS) return GRT_ERROR(INVALID_ARGUMENT, "Einsum: too many inputs");
  int32_t labels[GRT_EINSUM_MAX_INPUTS][GRT_MAX_RANK], count[GRT_EINSUM_MAX_INPUTS],
      ell_at[GRT_EINSUM_MAX_INPUTS], ell_len[GRT_EINSUM_MAX_INPUTS];
  int32_t ellipsis = 0; /* axes "..." stands for in the output: the longest */
  bool ellipsis_known = true;
  const char* part = eq;
  for (int32_t k = 0; k < n; k++) {
    const char* end = k + 1 < n ? strchr(part, ',') : arrow;
    if (!end || end > arrow)
      return GRT_ERROR(INVALID_ARGUMENT, "Einsum: the equation names fewer than %d operands", n);
    GRT_RETURN_IF_ERROR(subscripts(part, (size_t)(end - part), labels[k], &count[k], &ell_at[k]));
    int32_t rank = shapes[k].rank;
    ell_len[k] = 0;
    if (rank >= 0) {
      if (ell_at[k] < 0 ? rank != count[k] : rank < count[k])
        return GRT_ERROR(INVALID_ARGUMENT, "Einsum: operand %d has rank %d but %d subscripts", k,
                         (int)rank, (int)count[k]);
      ell_len[k] = rank - count[k];
      if (ell_len[k] > ellipsis) ellipsis = ell_len[k];
    } else if (ell_at[k] >= 0) {
      ellipsis_known = false;
    }
    part = end + 1;
  }
  if (part <= arrow && part != arrow + 1)
    return GRT_ERROR(INVALID_ARGUMENT, "Einsum: the equation names more than %d operands", n);
  for (int32_t k = 0; k < n; k++) {
    int32_t d = 0;
    for (int32_t i = 0; i <= count[k]; i++) {
      if (i == ell_at[k])
        for (int32_t j = 0; j < ell_len[k]; j++, d++) {
          int32_t l = GRT_EINSUM_LETTERS + (ellipsis - ell_len[k]) + j;
          e->sub[k][d] = l;
          e->used[l] = true;
          GRT_RETURN_IF_ERROR(merge_size(e, l, shapes[k].dims[d], true));
        }
      if (i == count[k]) break;
      int32_t l = labels[k][i];
      e->sub[k][d] = l;
      e->used[l] = true;
      GRT_RETURN_IF_ERROR(merge_size(e, l, shapes[k].rank >= 0 ? shapes[k].dims[d] : -1, false));
      d++;
    }
  }
  int32_t out[GRT_MAX_RANK], n_letters, out_ell;
  const char* rhs = arrow + 2;
  GRT_RETURN_IF_ERROR(subscripts(rhs, strlen(rhs), out, &n_letters, &out_ell));
  if (out_ell >= 0 && !ellipsis_known) {
    e->n_out = -1;
    return NULL;
  }
  e->n_out = 0;
  for (int32_t i = 0; i <= n_letters; i++) {
    if (i == out_ell)
      for (int32_t j = 0; j < ellipsis; j++) {
        if (e->n_out >= GRT_MAX_RANK)
          return GRT_ERROR(INVALID_ARGUMENT, "Einsum: output rank too large");
        e->out[e->n_out++] = GRT_EINSUM_LETTERS + j;
        e->in_out[GRT_EINSUM_LETTERS + j] = true;
      }
    if (i == n_letters) break;
    int32_t l = out[i];
    if (!e->used[l] || e->in_out[l])
      return GRT_ERROR(INVALID_ARGUMENT, "Einsum: output subscript '%c' is repeated or in no input",
                       l < 26 ? 'a' + l : 'A' + (l - 26));
    if (e->n_out >= GRT_MAX_RANK)
      return GRT_ERROR(INVALID_ARGUMENT, "Einsum: output rank too large");
    e->out[e->n_out++] = l;
    e->in_out[l] = true;
  }
  if (out_ell < 0 && ellipsis > 0)
    for (int32_t j = 0; j < ellipsis; j++) e->used[GRT_EINSUM_LETTERS + j] = true; /* summed */
  return NULL;
}
