#include "base/device_name.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

/* A name or type token: letters, digits, '_' (and '-' in job names). */
static bool token_ok(const char* s, size_t n, bool allow_dash) {
  if (n == 0 || n >= GRT_DEVICE_FIELD_MAX) return false;
  if (!isalpha((unsigned char)s[0])) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!(isalnum(c) || c == '_' || (allow_dash && c == '-'))) return false;
  }
  return true;
}

/* Parses a non-negative decimal id, or "*" (sets *wild). */
static bool parse_id(const char* s, size_t n, int* out, bool* wild) {
  *wild = false;
  if (n == 1 && s[0] == '*') {
    *wild = true;
    return true;
  }
  if (n == 0 || n > 9) return false;
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

static void set_type(grt_device_name* d, const char* s, size_t n) {
  for (size_t i = 0; i < n; i++) d->type[i] = (char)toupper((unsigned char)s[i]);
  d->type[n] = '\0';
  d->has_type = true;
}

/* "TYPE", "TYPE:ID" or "TYPE:*" */
static bool parse_type_id(grt_device_name* d, const char* s, size_t n) {
  const char* colon = memchr(s, ':', n);
  size_t tn = colon ? (size_t)(colon - s) : n;
  if (tn == 1 && s[0] == '*') {
    /* "device:*" — any type */
  } else {
    if (!token_ok(s, tn, false)) return false;
    set_type(d, s, tn);
  }
  if (!colon) return true;
  bool wild;
  int id;
  if (!parse_id(colon + 1, n - tn - 1, &id, &wild)) return false;
  if (!wild) {
    d->id = id;
    d->has_id = true;
  }
  return true;
}

static bool starts(const char* s, size_t n, const char* prefix) {
  size_t p = strlen(prefix);
  return n >= p && strncmp(s, prefix, p) == 0;
}

grt_status* grt_device_name_parse(const char* spec, grt_device_name* out) {
  memset(out, 0, sizeof *out);
  if (!spec) return NULL;
  size_t len = strlen(spec);
  if (len > 512) return GRT_ERROR(INVALID_ARGUMENT, "malformed device specification: too long");
  const char* p = spec;
  if (*p == '/') p++;
  if (*p == '\0') return NULL;
  grt_device_name d = {0};
  while (*p) {
    const char* slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    bool ok;
    bool wild;
    if (starts(p, n, "job:")) {
      ok = (n == 5 && p[4] == '*') || token_ok(p + 4, n - 4, true);
      if (ok && !(n == 5 && p[4] == '*')) {
        memcpy(d.job, p + 4, n - 4);
        d.job[n - 4] = '\0';
        d.has_job = true;
      }
    } else if (starts(p, n, "replica:")) {
      ok = parse_id(p + 8, n - 8, &d.replica, &wild);
      d.has_replica = ok && !wild;
    } else if (starts(p, n, "task:")) {
      ok = parse_id(p + 5, n - 5, &d.task, &wild);
      d.has_task = ok && !wild;
    } else if (starts(p, n, "device:")) {
      ok = parse_type_id(&d, p + 7, n - 7);
    } else {
      /* Legacy "cpu:0", "GPU:1", "gpu:*": a type with an id. */
      ok = memchr(p, ':', n) != NULL && parse_type_id(&d, p, n);
    }
    if (!ok)
      return GRT_ERROR(INVALID_ARGUMENT, "malformed device specification '%s': cannot parse '%.*s'",
                       spec, (int)n, p);
    if (!slash) break;
    p = slash + 1;
    if (*p == '\0' || *p == '/')
      return GRT_ERROR(INVALID_ARGUMENT, "malformed device specification '%s': empty part", spec);
  }
  *out = d;
  return NULL;
}

void grt_device_name_str(const grt_device_name* d, char* buf, size_t size) {
  size_t n = 0;
#define APPEND(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
  if (size) buf[0] = '\0';
  if (d->has_job) APPEND("/job:%s", d->job);
  if (d->has_replica) APPEND("/replica:%d", d->replica);
  if (d->has_task) APPEND("/task:%d", d->task);
  if (d->has_type && d->has_id)
    APPEND("/device:%s:%d", d->type, d->id);
  else if (d->has_type)
    APPEND("/device:%s:*", d->type);
  else if (d->has_id)
    APPEND("/device:*:%d", d->id);
#undef APPEND
}

void grt_device_name_full(const char* type, int id, char* buf, size_t size) {
  snprintf(buf, size, "/job:localhost/replica:0/task:0/device:%s:%d", type, id);
}

bool grt_device_name_compatible(const grt_device_name* a, const grt_device_name* b) {
  if (a->has_job && b->has_job && strcmp(a->job, b->job) != 0) return false;
  if (a->has_replica && b->has_replica && a->replica != b->replica) return false;
  if (a->has_task && b->has_task && a->task != b->task) return false;
  if (a->has_type && b->has_type && strcmp(a->type, b->type) != 0) return false;
  if (a->has_id && b->has_id && a->id != b->id) return false;
  return true;
}

bool grt_device_name_matches(const grt_device_name* spec, const grt_device_name* dev) {
  if (spec->has_job && !(dev->has_job && strcmp(spec->job, dev->job) == 0)) return false;
  if (spec->has_replica && !(dev->has_replica && spec->replica == dev->replica)) return false;
  if (spec->has_task && !(dev->has_task && spec->task == dev->task)) return false;
  if (spec->has_type && !(dev->has_type && strcmp(spec->type, dev->type) == 0)) return false;
  if (spec->has_id && !(dev->has_id && spec->id == dev->id)) return false;
  return true;
}

grt_status* grt_device_name_merge(grt_device_name* a, const grt_device_name* b) {
  if (!grt_device_name_compatible(a, b)) {
    char sa[GRT_DEVICE_NAME_MAX], sb[GRT_DEVICE_NAME_MAX];
    grt_device_name_str(a, sa, sizeof sa);
    grt_device_name_str(b, sb, sizeof sb);
    return GRT_ERROR(INVALID_ARGUMENT, "device specifications '%s' and '%s' conflict", sa, sb);
  }
  if (b->has_job) {
    a->has_job = true;
    memcpy(a->job, b->job, sizeof a->job);
  }
  if (b->has_replica) {
    a->has_replica = true;
    a->replica = b->replica;
  }
  if (b->has_task) {
    a->has_task = true;
    a->task = b->task;
  }
  if (b->has_type) {
    a->has_type = true;
    memcpy(a->type, b->type, sizeof a->type);
  }
  if (b->has_id) {
    a->has_id = true;
    a->id = b->id;
  }
  return NULL;
}
