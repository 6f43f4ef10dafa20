/* The cluster spec: "ps:1,worker:2", jobs in rank order. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/status.h"
#include "runtime/cluster/cluster.h"

grt_status* grt_cluster_spec_parse(const char* text, grt_cluster_spec* out) {
  memset(out, 0, sizeof *out);
  if (!text || !*text)
    return GRT_ERROR(INVALID_ARGUMENT, "empty cluster spec (expected e.g. 'ps:1,worker:2')");
  const char* p = text;
  while (*p) {
    const char* comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    const char* colon = memchr(p, ':', n);
    size_t jn = colon ? (size_t)(colon - p) : n;
    if (!colon || jn == 0 || jn >= GRT_CLUSTER_JOB_NAME_MAX)
      return GRT_ERROR(INVALID_ARGUMENT, "cluster spec '%s': cannot parse '%.*s' (expected JOB:N)",
                       text, (int)n, p);
    for (size_t i = 0; i < jn; i++)
      if (!(isalnum((unsigned char)p[i]) || p[i] == '_' || p[i] == '-') ||
          (i == 0 && isdigit((unsigned char)p[i])))
        return GRT_ERROR(INVALID_ARGUMENT,
                         "cluster spec '%s': job name '%.*s' must be letters, digits, '_' or '-'",
                         text, (int)jn, p);
    int64_t v = 0;
    size_t nn = n - jn - 1;
    if (nn == 0 || nn > 5) v = -1;
    for (size_t i = 0; i < nn && v >= 0; i++)
      v = isdigit((unsigned char)colon[1 + i]) ? v * 10 + (colon[1 + i] - '0') : -1;
    if (v < 1 || v > GRT_CLUSTER_MAX_TASKS)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "cluster spec '%s': task count '%.*s' of job '%.*s' must be from 1 to %d",
                       text, (int)nn, colon + 1, (int)jn, p, GRT_CLUSTER_MAX_TASKS);
    for (int32_t j = 0; j < out->n_jobs; j++)
      if (strlen(out->job[j]) == jn && memcmp(out->job[j], p, jn) == 0)
        return GRT_ERROR(INVALID_ARGUMENT, "cluster spec '%s': job '%.*s' is given twice", text,
                         (int)jn, p);
    if (out->n_jobs == GRT_CLUSTER_MAX_JOBS)
      return GRT_ERROR(INVALID_ARGUMENT, "cluster spec '%s': more than %d jobs", text,
                       GRT_CLUSTER_MAX_JOBS);
    if (out->n_tasks + v > GRT_CLUSTER_MAX_TASKS)
      return GRT_ERROR(INVALID_ARGUMENT, "cluster spec '%s': more than %d tasks in all", text,
                       GRT_CLUSTER_MAX_TASKS);
    memcpy(out->job[out->n_jobs], p, jn);
    out->tasks[out->n_jobs++] = (int32_t)v;
    out->n_tasks += (int32_t)v;
    if (!comma) break;
    p = comma + 1;
    if (!*p) return GRT_ERROR(INVALID_ARGUMENT, "cluster spec '%s' ends with ','", text);
  }
  return NULL;
}

void grt_cluster_spec_task(const grt_cluster_spec* s, int32_t rank, const char** job,
                           int32_t* task) {
  for (int32_t j = 0; j < s->n_jobs; j++) {
    if (rank < s->tasks[j]) {
      *job = s->job[j];
      *task = rank;
      return;
    }
    rank -= s->tasks[j];
  }
  *job = "";
  *task = -1;
}
