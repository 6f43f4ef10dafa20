/* The .npy header as the Python literal it is (npy_header.h). NumPy reads it
 * with a literal evaluator; a looser scan (searching for "'descr':" anywhere)
 * takes a key hidden inside another value, or a prefix such as "False" of
 * "Falsehood", for the real thing. Here each token is read in turn. */
#include "graph_format/npy_header.h"

#include <stdint.h>
#include <string.h>

#include "base/status.h"

typedef struct {
  const char* p;
  const char* end;
  const char* name; /* the file, for messages */
} cursor;

static void skip_blanks(cursor* c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t')) c->p++;
}

static bool eat(cursor* c, char ch) {
  skip_blanks(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A short excerpt of what is at the cursor, for messages. */
static const char* excerpt(const cursor* c, char* buf, size_t size) {
  size_t n = 0;
  for (const char* q = c->p; q < c->end && n + 1 < size && *q != '\n'; q++)
    buf[n++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
  buf[n] = '\0';
  return n ? buf : "the end of the header";
}

/* A Python string literal in ' or " without escapes, into out. */
static bool string_lit(cursor* c, char* out, size_t size) {
  skip_blanks(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' || *c->p == '\n' || n + 1 >= size) return false;
    out[n++] = *c->p++;
  }
  if (c->p >= c->end) return false;
  c->p++;
  out[n] = '\0';
  return true;
}

/* A bare word (True, False, ...) up to a delimiter. */
static size_t word(cursor* c) {
  skip_blanks(c);
  size_t n = 0;
  while (c->p + n < c->end &&
         ((c->p[n] >= 'A' && c->p[n] <= 'Z') || (c->p[n] >= 'a' && c->p[n] <= 'z') ||
          (c->p[n] >= '0' && c->p[n] <= '9') || c->p[n] == '_'))
    n++;
  return n;
}

static grt_status* parse_bool(cursor* c, bool* out) {
  size_t n = word(c);
  if (n == 4 && memcmp(c->p, "True", 4) == 0)
    *out = true;
  else if (n == 5 && memcmp(c->p, "False", 5) == 0)
    *out = false;
  else {
    char b[32];
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy 'fortran_order' must be True or False, not '%s'",
                     c->name, excerpt(c, b, n && n < sizeof b ? n + 1 : sizeof b));
  }
  c->p += n;
  return NULL;
}

/* A tuple of ints: (), (N,), (N, M), (N, M,). An int may carry the 'L'
 * suffix Python 2 wrote. */
static grt_status* parse_shape(cursor* c, grt_shape* out) {
  char b[48];
  const char* start = c->p;
  if (!eat(c, '('))
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy 'shape' must be a tuple, not '%s'", c->name,
                     excerpt(c, b, sizeof b));
  *out = grt_shape_scalar();
  bool comma = false; /* a comma followed the last element */
  for (;;) {
    if (eat(c, ')')) break;
    if (out->rank > 0 && !comma) {
      cursor at = {start, c->end, c->name};
      return GRT_ERROR(INVALID_ARGUMENT,
                       "%s: .npy 'shape' is malformed: '%s' (dimensions are separated by commas)",
                       c->name, excerpt(&at, b, sizeof b));
    }
    skip_blanks(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') {
      cursor at = {start, c->end, c->name};
      return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy 'shape' is malformed: '%s'", c->name,
                       excerpt(&at, b, sizeof b));
    }
    int64_t d = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      if (d > (INT64_MAX - 9) / 10)
        return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy dimension too large", c->name);
      d = d * 10 + (*c->p++ - '0');
    }
    if (c->p < c->end && *c->p == 'L') c->p++;
    if (out->rank == GRT_MAX_RANK)
      return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy array has more than %d dimensions", c->name,
                       GRT_MAX_RANK);
    out->dims[out->rank++] = d;
    comma = eat(c, ',');
  }
  /* (3) is the int 3 in Python: a one-element tuple needs its comma. */
  if (out->rank == 1 && !comma)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "%s: .npy 'shape' is malformed: (%lld) is not a tuple (write (%lld,))",
                     c->name, (long long)out->dims[0], (long long)out->dims[0]);
  return NULL;
}

enum { kDescr, kFortran, kShape, kNumKeys };
static const char* const kKeys[kNumKeys] = {"descr", "fortran_order", "shape"};

grt_status* grt_npy_header_parse(const char* text, size_t len, const char* name,
                                 grt_npy_header* out) {
  memset(out, 0, sizeof *out);
  cursor c = {text, text + len, name};
  char b[48];
  if (!eat(&c, '{'))
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header is not a dict: '%s'", name,
                     excerpt(&c, b, sizeof b));
  bool seen[kNumKeys] = {false};
  for (;;) {
    if (eat(&c, '}')) break;
    char key[32];
    if (!string_lit(&c, key, sizeof key))
      return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header: expected a quoted key at '%s'", name,
                       excerpt(&c, b, sizeof b));
    int k = 0;
    while (k < kNumKeys && strcmp(key, kKeys[k]) != 0) k++;
    if (k == kNumKeys)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "%s: .npy header has the key '%s' (only 'descr', 'fortran_order' and "
                       "'shape' are allowed)",
                       name, key);
    if (seen[k]) return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header has '%s' twice", name, key);
    seen[k] = true;
    if (!eat(&c, ':'))
      return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy '%s' is not followed by ':'", name, key);
    grt_status* s = NULL;
    if (k == kDescr) {
      if (!string_lit(&c, out->descr, sizeof out->descr))
        return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy 'descr' must be a short string, not '%s'",
                         name, excerpt(&c, b, sizeof b));
    } else if (k == kFortran) {
      s = parse_bool(&c, &out->fortran_order);
    } else {
      s = parse_shape(&c, &out->shape);
    }
    if (s) return s;
    if (eat(&c, '}')) break;
    if (!eat(&c, ','))
      return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy '%s' value is followed by '%s', not ',' or '}'",
                       name, key, excerpt(&c, b, sizeof b));
  }
  for (int k = 0; k < kNumKeys; k++)
    if (!seen[k]) return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header has no '%s'", name, kKeys[k]);
  while (c.p < c.end && (*c.p == ' ' || *c.p == '\t' || *c.p == '\n' || *c.p == '\0')) c.p++;
  if (c.p != c.end)
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header has '%s' after the dict", name,
                     excerpt(&c, b, sizeof b));
  return NULL;
}
