/* The op spec parser: turns one grt_op_spec row (the REGISTER_OP-like text
 * syntax documented in ops/op_def.h) into a grt_op_def in an arena.
 *
 * Specs are grt's own source, so a malformed one is a grt bug; the messages
 * still say exactly where (op, section, byte offset) so the registry test can
 * point at the row. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_def.h"
#include "base/dtype.h"
#include "base/status.h"

typedef struct parser {
  const grt_op_spec* spec;
  const char* section; /* "inputs", "outputs" or "attrs" */
  const char* base;    /* the section's text, for offsets */
  grt_arena* arena;
} parser;

static grt_status* perr(const parser* ps, const char* at, const char* fmt, ...) GRT_PRINTF(3, 4);
static grt_status* perr(const parser* ps, const char* at, const char* fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int offset = ps->base && at ? (int)(at - ps->base) : 0;
  return GRT_ERROR(INVALID_ARGUMENT, "op spec '%s', %s at offset %d: %s",
                   ps->spec->name ? ps->spec->name : "(null)", ps->section, offset, msg);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static const char* skip_ws(const char* p, const char* e) {
  while (p < e && is_space(*p)) p++;
  return p;
}

/* An identifier at *pp (advanced past it); its length, 0 if none. */
static size_t take_ident(const char** pp, const char* e) {
  const char* p = *pp;
  if (p >= e || !is_ident_start(*p)) return 0;
  while (p < e && is_ident_char(*p)) p++;
  size_t n = (size_t)(p - *pp);
  *pp = p;
  return n;
}

static bool word_is(const char* s, size_t n, const char* w) {
  return strlen(w) == n && strncmp(s, w, n) == 0;
}

static bool dtype_from_span(const char* s, size_t n, grt_dtype* out) {
  char buf[16];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return grt_dtype_from_name(buf, out);
}

/* ---- splitting a section into entries ---------------------------------- */

/* Calls fn on each non-empty entry between separators. A trailing separator
 * is allowed; an empty entry elsewhere is an error. */
typedef grt_status* (*entry_fn)(parser* ps, const char* s, const char* e, void* ctx);

static grt_status* for_each_entry(parser* ps, const char* text, char sep, entry_fn fn, void* ctx) {
  if (!text) return NULL;
  const char* end = text + strlen(text);
  const char* s = text;
  while (s < end) {
    const char* e = memchr(s, sep, (size_t)(end - s));
    if (!e) e = end;
    const char* a = skip_ws(s, e);
    const char* b = e;
    while (b > a && is_space(b[-1])) b--;
    if (a == b) {
      if (e != end && skip_ws(e + 1, end) != end)
        return perr(ps, s, "empty entry before '%c'", sep);
    } else {
      GRT_RETURN_IF_ERROR(fn(ps, a, b, ctx));
    }
    s = e == end ? end : e + 1;
  }
  return NULL;
}

static grt_status* count_entry(parser* ps, const char* s, const char* e, void* ctx) {
  (void)ps, (void)s, (void)e;
  (*(int32_t*)ctx)++;
  return NULL;
}

/* ---- attr kinds and default values ------------------------------------- */

static const struct {
  const char* name;
  grt_attr_type type;
} kKinds[] = {
    {"int", GRT_ATTR_INT},       {"float", GRT_ATTR_FLOAT}, {"bool", GRT_ATTR_BOOL},
    {"string", GRT_ATTR_STRING}, {"type", GRT_ATTR_TYPE},   {"shape", GRT_ATTR_SHAPE},
    {"tensor", GRT_ATTR_TENSOR},
};

static bool kind_from_span(const char* s, size_t n, grt_attr_type* out) {
  for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; i++) {
    if (word_is(s, n, kKinds[i].name)) {
      *out = kKinds[i].type;
      return true;
    }
  }
  return false;
}

/* A signed decimal integer at *pp. */
static grt_status* take_int(parser* ps, const char** pp, const char* e, int64_t* out) {
  const char* p = *pp;
  char* end = NULL;
  errno = 0;
  long long v = strtoll(p, &end, 10);
  if (end == p || end > e || (p < e && is_space(*p))) return perr(ps, p, "expected an integer");
  if (errno == ERANGE) return perr(ps, p, "integer out of range");
  *out = (int64_t)v;
  *pp = end;
  return NULL;
}

/* One shape: "unknown" or "[d, d, ...]" with d >= -1. */
static grt_status* take_shape(parser* ps, const char** pp, const char* e, grt_shape* out) {
  const char* p = *pp;
  const char* w = p;
  size_t n = take_ident(&p, e);
  if (n) {
    if (!word_is(w, n, "unknown")) return perr(ps, w, "expected a shape ('unknown' or [dims])");
    *out = (grt_shape){.rank = -1};
    *pp = p;
    return NULL;
  }
  if (p >= e || *p != '[') return perr(ps, p, "expected a shape ('unknown' or [dims])");
  grt_shape s = {0};
  p = skip_ws(p + 1, e);
  if (p < e && *p == ']') {
    *out = s;
    *pp = p + 1;
    return NULL;
  }
  for (;;) {
    int64_t d;
    GRT_RETURN_IF_ERROR(take_int(ps, &p, e, &d));
    if (d < -1) return perr(ps, p, "shape dimension %lld is below -1", (long long)d);
    if (s.rank == GRT_MAX_RANK)
      return perr(ps, p, "shape has more than %d dimensions", GRT_MAX_RANK);
    s.dims[s.rank++] = d;
    p = skip_ws(p, e);
    if (p < e && *p == ',') {
      p = skip_ws(p + 1, e);
      continue;
    }
    if (p < e && *p == ']') break;
    return perr(ps, p, "expected ',' or ']' in a shape");
  }
  *out = s;
  *pp = p + 1;
  return NULL;
}

/* One scalar value of `kind` at *pp, stored at dst (when non-NULL) as the
 * union member for that kind would hold it. */
static grt_status* take_scalar(parser* ps, const char** pp, const char* e, grt_attr_type kind,
                               uint32_t allowed, void* dst) {
  const char* p = *pp;
  switch (kind) {
    case GRT_ATTR_INT: {
      int64_t v;
      GRT_RETURN_IF_ERROR(take_int(ps, &p, e, &v));
      if (dst) *(int64_t*)dst = v;
      break;
    }
    case GRT_ATTR_FLOAT: {
      char* end = NULL;
      double v = strtod(p, &end);
      if (end == p || end > e || (p < e && is_space(*p))) return perr(ps, p, "expected a number");
      if (dst) *(float*)dst = (float)v;
      p = end;
      break;
    }
    case GRT_ATTR_BOOL: {
      const char* w = p;
      size_t n = take_ident(&p, e);
      bool v;
      if (word_is(w, n, "true"))
        v = true;
      else if (word_is(w, n, "false"))
        v = false;
      else
        return perr(ps, w, "expected true or false");
      if (dst) *(bool*)dst = v;
      break;
    }
    case GRT_ATTR_STRING: {
      if (p >= e || *p != '\'') return perr(ps, p, "expected a 'quoted' string");
      const char* close = memchr(p + 1, '\'', (size_t)(e - p - 1));
      if (!close) return perr(ps, p, "unterminated string");
      if (dst) {
        char* s = grt_arena_strndup(ps->arena, p + 1, (size_t)(close - p - 1));
        if (!s) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
        *(const char**)dst = s;
      }
      p = close + 1;
      break;
    }
    case GRT_ATTR_TYPE: {
      const char* w = p;
      size_t n = take_ident(&p, e);
      grt_dtype t;
      if (!dtype_from_span(w, n, &t)) return perr(ps, w, "expected a dtype name");
      if (allowed && !(allowed & grt_dtype_bit(t)))
        return perr(ps, w, "default %.*s is not in the allowed set", (int)n, w);
      if (dst) *(grt_dtype*)dst = t;
      break;
    }
    case GRT_ATTR_SHAPE: {
      grt_shape s;
      GRT_RETURN_IF_ERROR(take_shape(ps, &p, e, &s));
      if (dst) *(grt_shape*)dst = s;
      break;
    }
    default:
      return perr(ps, p, "%s attrs cannot have a default", grt_attr_type_name(kind));
  }
  *pp = p;
  return NULL;
}

static size_t elem_size(grt_attr_type kind) {
  switch (kind) {
    case GRT_ATTR_INT:
      return sizeof(int64_t);
    case GRT_ATTR_FLOAT:
      return sizeof(float);
    case GRT_ATTR_BOOL:
      return sizeof(bool);
    case GRT_ATTR_STRING:
      return sizeof(const char*);
    case GRT_ATTR_TYPE:
      return sizeof(grt_dtype);
    case GRT_ATTR_SHAPE:
      return sizeof(grt_shape);
    default:
      return sizeof(grt_tensor*);
  }
}

/* "[e, e, ...]": counts the elements, storing them when `dst` is non-NULL. */
static grt_status* take_list(parser* ps, const char** pp, const char* e, grt_attr_type kind,
                             uint32_t allowed, char* dst, int32_t* out_n) {
  const char* p = *pp;
  if (p >= e || *p != '[') return perr(ps, p, "expected a list [...]");
  p = skip_ws(p + 1, e);
  int32_t n = 0;
  if (p < e && *p == ']') {
    p++;
  } else {
    for (;;) {
      GRT_RETURN_IF_ERROR(
          take_scalar(ps, &p, e, kind, allowed, dst ? dst + (size_t)n * elem_size(kind) : NULL));
      n++;
      p = skip_ws(p, e);
      if (p < e && *p == ',') {
        p = skip_ws(p + 1, e);
        continue;
      }
      if (p < e && *p == ']') {
        p++;
        break;
      }
      return perr(ps, p, "expected ',' or ']' in a list");
    }
  }
  *out_n = n;
  *pp = p;
  return NULL;
}

static grt_status* parse_default(parser* ps, const char* p, const char* e, grt_attr_def* ad) {
  grt_attr_value* v = &ad->default_value;
  v->type = ad->type;
  if (ad->type & GRT_ATTR_LIST) {
    grt_attr_type kind = (grt_attr_type)(ad->type & ~GRT_ATTR_LIST);
    if (kind == GRT_ATTR_TENSOR) return perr(ps, p, "list(tensor) attrs cannot have a default");
    int32_t n = 0;
    const char* q = p;
    GRT_RETURN_IF_ERROR(take_list(ps, &q, e, kind, 0, NULL, &n));
    char* store = NULL;
    if (n > 0) {
      store = grt_arena_calloc(ps->arena, (size_t)n, elem_size(kind));
      if (!store) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
    }
    GRT_RETURN_IF_ERROR(take_list(ps, &p, e, kind, 0, store, &n));
    v->u.list.n = n;
    v->u.list.v.i = (int64_t*)(void*)store; /* every list member is a pointer in one union */
    if (ad->has_minimum && n < ad->minimum)
      return perr(ps, p, "default list has %d elements, below the minimum %lld", (int)n,
                  (long long)ad->minimum);
  } else {
    GRT_RETURN_IF_ERROR(take_scalar(ps, &p, e, ad->type, ad->allowed_types, &v->u));
    if (ad->has_minimum && ad->type == GRT_ATTR_INT && v->u.i < ad->minimum)
      return perr(ps, p, "default %lld is below the minimum %lld", (long long)v->u.i,
                  (long long)ad->minimum);
  }
  p = skip_ws(p, e);
  if (p != e) return perr(ps, p, "unexpected text after the default value");
  ad->has_default = true;
  return NULL;
}

/* "{float32, float64}" into a dtype bitmask. */
static grt_status* take_type_set(parser* ps, const char** pp, const char* e, uint32_t* out) {
  const char* p = *pp + 1; /* past '{' */
  uint32_t mask = 0;
  for (;;) {
    p = skip_ws(p, e);
    const char* w = p;
    size_t n = take_ident(&p, e);
    grt_dtype t;
    if (!dtype_from_span(w, n, &t)) return perr(ps, w, "expected a dtype name in a type set");
    if (mask & grt_dtype_bit(t)) return perr(ps, w, "dtype %.*s repeated in a type set", (int)n, w);
    mask |= grt_dtype_bit(t);
    p = skip_ws(p, e);
    if (p < e && *p == ',') {
      p++;
      continue;
    }
    if (p < e && *p == '}') break;
    return perr(ps, p, "expected ',' or '}' in a type set");
  }
  *out = mask;
  *pp = p + 1;
  return NULL;
}

/* ---- attrs ------------------------------------------------------------- */

typedef struct attr_list {
  grt_attr_def* defs;
  int32_t n;
} attr_list;

static const grt_attr_def* find_attr(const attr_list* l, const char* s, size_t n) {
  for (int32_t i = 0; i < l->n; i++)
    if (word_is(s, n, l->defs[i].name)) return &l->defs[i];
  return NULL;
}

/* "name: KIND [>= MIN] [= DEFAULT]" */
static grt_status* parse_attr(parser* ps, const char* s, const char* e, void* ctx) {
  attr_list* l = ctx;
  const char* p = s;
  size_t n = take_ident(&p, e);
  if (!n) return perr(ps, p, "expected an attr name");
  if (find_attr(l, s, n)) return perr(ps, s, "attr '%.*s' declared twice", (int)n, s);
  grt_attr_def* ad = &l->defs[l->n];
  memset(ad, 0, sizeof *ad);
  ad->name = grt_arena_strndup(ps->arena, s, n);
  if (!ad->name) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
  p = skip_ws(p, e);
  if (p >= e || *p != ':') return perr(ps, p, "expected ':' after attr '%s'", ad->name);
  p = skip_ws(p + 1, e);
  if (p < e && *p == '{') {
    ad->type = GRT_ATTR_TYPE;
    GRT_RETURN_IF_ERROR(take_type_set(ps, &p, e, &ad->allowed_types));
  } else {
    const char* w = p;
    size_t kn = take_ident(&p, e);
    bool list = word_is(w, kn, "list");
    if (list) {
      if (p >= e || *p != '(') return perr(ps, p, "expected '(' after list");
      p++;
      w = p;
      kn = take_ident(&p, e);
      if (p >= e || *p != ')') return perr(ps, p, "expected ')' closing list(");
      p++;
    }
    grt_attr_type kind;
    if (!kind_from_span(w, kn, &kind)) return perr(ps, w, "unknown attr kind '%.*s'", (int)kn, w);
    ad->type = list ? (grt_attr_type)(kind | GRT_ATTR_LIST) : kind;
  }
  p = skip_ws(p, e);
  if (p + 1 < e && p[0] == '>' && p[1] == '=') {
    if (ad->type != GRT_ATTR_INT && !(ad->type & GRT_ATTR_LIST))
      return perr(ps, p, "a minimum needs an int or list attr, '%s' is %s", ad->name,
                  grt_attr_type_name(ad->type));
    p = skip_ws(p + 2, e);
    GRT_RETURN_IF_ERROR(take_int(ps, &p, e, &ad->minimum));
    if ((ad->type & GRT_ATTR_LIST) && ad->minimum < 0)
      return perr(ps, p, "a list minimum cannot be negative");
    ad->has_minimum = true;
    p = skip_ws(p, e);
  }
  if (p < e && *p == '=') {
    GRT_RETURN_IF_ERROR(parse_default(ps, skip_ws(p + 1, e), e, ad));
  } else if (p != e) {
    return perr(ps, p, "unexpected text in attr '%s'", ad->name);
  }
  l->n++;
  return NULL;
}

/* ---- inputs and outputs ------------------------------------------------ */

typedef struct arg_list {
  grt_arg_def* defs;
  int32_t n;
  const attr_list* attrs;
} arg_list;

/* A dtype name or the name of a type attr. */
static grt_status* arg_type(parser* ps, const char* w, size_t n, const arg_list* l,
                            grt_arg_def* a) {
  if (!n) return perr(ps, w, "expected a dtype or type attr for arg '%s'", a->name);
  if (dtype_from_span(w, n, &a->type)) return NULL;
  const grt_attr_def* ad = find_attr(l->attrs, w, n);
  if (!ad)
    return perr(ps, w, "arg '%s' names '%.*s', which is neither a dtype nor an attr", a->name,
                (int)n, w);
  if (ad->type != GRT_ATTR_TYPE)
    return perr(ps, w, "arg '%s' takes its dtype from attr '%s', which is %s, not type", a->name,
                ad->name, grt_attr_type_name(ad->type));
  a->type = GRT_DTYPE_INVALID;
  a->type_attr = ad->name;
  return NULL;
}

/* "name: T", "name: int32", "name: N * T", "name: Ref(T)" */
static grt_status* parse_arg(parser* ps, const char* s, const char* e, void* ctx) {
  arg_list* l = ctx;
  const char* p = s;
  size_t n = take_ident(&p, e);
  if (!n) return perr(ps, p, "expected an arg name");
  for (int32_t i = 0; i < l->n; i++)
    if (word_is(s, n, l->defs[i].name)) return perr(ps, s, "arg '%.*s' declared twice", (int)n, s);
  grt_arg_def* a = &l->defs[l->n];
  memset(a, 0, sizeof *a);
  a->name = grt_arena_strndup(ps->arena, s, n);
  if (!a->name) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
  p = skip_ws(p, e);
  if (p >= e || *p != ':') return perr(ps, p, "expected ':' after arg '%s'", a->name);
  p = skip_ws(p + 1, e);
  const char* w = p;
  size_t wn = take_ident(&p, e);
  if (word_is(w, wn, "Ref") && p < e && *p == '(') {
    a->is_ref = true;
    p = skip_ws(p + 1, e);
    w = p;
    wn = take_ident(&p, e);
    GRT_RETURN_IF_ERROR(arg_type(ps, w, wn, l, a));
    p = skip_ws(p, e);
    if (p >= e || *p != ')') return perr(ps, p, "expected ')' closing Ref( in arg '%s'", a->name);
    p++;
  } else {
    const char* q = skip_ws(p, e);
    if (q < e && *q == '*') {
      const grt_attr_def* na = wn ? find_attr(l->attrs, w, wn) : NULL;
      if (!na) return perr(ps, w, "arg '%s': list length must name an int attr", a->name);
      if (na->type != GRT_ATTR_INT)
        return perr(ps, w, "arg '%s': list length attr '%s' is %s, not int", a->name, na->name,
                    grt_attr_type_name(na->type));
      a->number_attr = na->name;
      p = skip_ws(q + 1, e);
      w = p;
      wn = take_ident(&p, e);
    }
    GRT_RETURN_IF_ERROR(arg_type(ps, w, wn, l, a));
  }
  p = skip_ws(p, e);
  if (p != e) return perr(ps, p, "unexpected text in arg '%s'", a->name);
  l->n++;
  return NULL;
}

/* ---- one spec ---------------------------------------------------------- */

static grt_status* parse_args(parser* ps, const char* section, const char* text,
                              const attr_list* attrs, const grt_arg_def** out, int32_t* out_n) {
  ps->section = section;
  ps->base = text;
  int32_t count = 0;
  GRT_RETURN_IF_ERROR(for_each_entry(ps, text, ',', count_entry, &count));
  arg_list l = {NULL, 0, attrs};
  if (count > 0) {
    l.defs = grt_arena_calloc(ps->arena, (size_t)count, sizeof *l.defs);
    if (!l.defs) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
  }
  GRT_RETURN_IF_ERROR(for_each_entry(ps, text, ',', parse_arg, &l));
  *out = l.defs;
  *out_n = l.n;
  return NULL;
}

grt_status* grt_op_spec_parse(const grt_op_spec* spec, grt_arena* arena, grt_op_def* out) {
  if (!spec || !arena || !out)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_op_spec_parse: NULL argument");
  memset(out, 0, sizeof *out);
  const char* name = spec->name ? spec->name : "";
  parser ps = {spec, "name", name, arena};
  const char* p = name;
  size_t n = take_ident(&p, name + strlen(name));
  if (!n || *p) return perr(&ps, p, "op name must be an identifier");

  ps.section = "attrs";
  ps.base = spec->attrs;
  int32_t count = 0;
  GRT_RETURN_IF_ERROR(for_each_entry(&ps, spec->attrs, ';', count_entry, &count));
  attr_list attrs = {NULL, 0};
  if (count > 0) {
    attrs.defs = grt_arena_calloc(arena, (size_t)count, sizeof *attrs.defs);
    if (!attrs.defs) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
  }
  GRT_RETURN_IF_ERROR(for_each_entry(&ps, spec->attrs, ';', parse_attr, &attrs));

  const grt_arg_def *inputs = NULL, *outputs = NULL;
  int32_t n_in = 0, n_out = 0;
  GRT_RETURN_IF_ERROR(parse_args(&ps, "inputs", spec->inputs, &attrs, &inputs, &n_in));
  GRT_RETURN_IF_ERROR(parse_args(&ps, "outputs", spec->outputs, &attrs, &outputs, &n_out));

  out->name = grt_arena_strdup(arena, name);
  if (!out->name) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory parsing op specs");
  out->inputs = inputs;
  out->n_inputs = n_in;
  out->outputs = outputs;
  out->n_outputs = n_out;
  out->attrs = attrs.defs;
  out->n_attrs = attrs.n;
  out->flags = spec->flags;
  out->shape_fn = spec->shape_fn;
  return NULL;
}
