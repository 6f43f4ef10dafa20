/* The process's cluster: joining it (the transport, the spec against its
 * size, every rank's devices), the cluster's device set, and the check that
 * every rank placed the same graph the same way (DESIGN.md). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "grt/grt.h"
#include "runtime/cluster/cluster.h"
#include "runtime/cluster/cluster_internal.h"
#include "runtime/cluster/liveness.h"
#include "runtime/cluster/plan_hash.h"

/* How long the start-up exchanges wait for every rank to arrive. */
enum { kStartupTimeoutMs = 30000 };

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static grt_cluster g_cluster; /* joined once per process, under g_mu */

/* What each rank tells the others when it joins. */
typedef struct {
  uint64_t spec_hash, version_hash, types_hash;
  int32_t count[GRT_MAX_DEVICE_TYPES], present[GRT_MAX_DEVICE_TYPES];
} join_record;

static grt_status* gather(grt_cluster* c, const void* in, size_t bytes, void* out) {
  char why[256] = "";
  if (c->t->all_gather(in, bytes, out, kStartupTimeoutMs, why, sizeof why))
    return GRT_ERROR(UNAVAILABLE, "cluster start-up on rank %d: %s", (int)c->rank, why);
  return NULL;
}

/* Every rank's devices: by type, then rank, then id; this rank's present. */
static grt_status* make_devices(const grt_cluster* c, const join_record* recs,
                                grt_device_set** out) {
  int32_t total = 0;
  for (int32_t r = 0; r < c->size; r++)
    for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++) total += recs[r].count[t];
  grt_device_set* ds = grt_calloc(1, sizeof *ds);
  grt_device_entry* devs = grt_calloc((size_t)total + 1, sizeof *devs);
  if (!ds || !devs) {
    grt_free(ds);
    grt_free(devs);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making the cluster's device set");
  }
  int32_t at = 0;
  for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
    ds->first[t] = at;
    for (int32_t r = 0; r < c->size; r++) {
      for (int32_t id = 0; id < recs[r].count[t]; id++, at++) {
        grt_device_entry* d = &devs[at];
        d->type = t;
        d->id = id;
        d->present = r == c->rank && id < recs[r].present[t];
        snprintf(d->name, sizeof d->name, "%s/device:%s:%d", c->task_name[r],
                 grt_device_type_name(t), (int)id);
        grt_status* st = grt_device_name_parse(d->name, &d->parsed);
        if (st) {
          grt_free(ds);
          grt_free(devs);
          return st;
        }
      }
    }
    ds->count[t] = at - ds->first[t];
  }
  ds->n = total;
  ds->devs = devs;
  *out = ds;
  return NULL;
}

static grt_status* join(grt_cluster* c, const char* spec) {
  if (strlen(spec) >= sizeof c->spec_text)
    return GRT_ERROR(INVALID_ARGUMENT, "cluster spec of %zu characters: at most %zu", strlen(spec),
                     sizeof c->spec_text - 1);
  GRT_RETURN_IF_ERROR(grt_cluster_spec_parse(spec, &c->spec));
  GRT_RETURN_IF_ERROR(grt_transport_open("mpi", &c->t));
  char why[256] = "";
  int32_t rank = 0, size = 0;
  if (c->t->init(&rank, &size, why, sizeof why))
    return GRT_ERROR(UNAVAILABLE, "cluster '%s': %s", spec, why);
  if (size != c->spec.n_tasks)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "cluster '%s' has %d tasks but %d processes were started (mpirun -np %d)",
                     spec, (int)c->spec.n_tasks, (int)size, (int)c->spec.n_tasks);
  c->rank = rank;
  c->size = size;
  /* The largest tag is the liveness notes' (liveness.c); crossings stay
   * below it. */
  c->max_tag = c->t->max_tag() - 1;
  c->task_name = grt_calloc((size_t)size, sizeof *c->task_name);
  if (!c->task_name) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory joining the cluster");
  for (int32_t r = 0; r < size; r++) {
    const char* job;
    int32_t task;
    grt_cluster_spec_task(&c->spec, r, &job, &task);
    snprintf(c->task_name[r], sizeof c->task_name[r], "/job:%s/replica:0/task:%d", job, (int)task);
  }
  return grt_cluster_liveness_start(c);
}

grt_status* grt_cluster_join(const char* spec, const grt_device_set* local, grt_cluster** out,
                             grt_device_set** out_devices) {
  *out = NULL;
  *out_devices = NULL;
  pthread_mutex_lock(&g_mu);
  grt_cluster* c = &g_cluster;
  grt_status* st = NULL;
  if (!c->joined) {
    st = join(c, spec);
    if (!st) {
      c->joined = true;
      snprintf(c->spec_text, sizeof c->spec_text, "%s", spec);
    }
  } else if (strcmp(c->spec_text, spec) != 0) {
    st = GRT_ERROR(FAILED_PRECONDITION,
                   "this process already joined cluster '%s'; it cannot join '%s' as well",
                   c->spec_text, spec);
  }
  pthread_mutex_unlock(&g_mu);
  if (st) return st;
  /* Every session of every rank exchanges its devices: sessions are made
   * in the same order on every rank (SPMD), as their runs are. */
  join_record mine = {0};
  mine.spec_hash = grt_cluster_hash_str(grt_cluster_hash_seed(), c->spec_text);
  /* GRT_CLUSTER_TEST_VERSION stands in for the version, for tests only:
   * it lets one rank of a test claim another grt without building one. */
  const char* version = getenv("GRT_CLUSTER_TEST_VERSION");
  mine.version_hash =
      grt_cluster_hash_str(grt_cluster_hash_seed(), version ? version : grt_version());
  mine.types_hash = grt_cluster_hash_seed();
  for (int32_t t = 0; t < grt_device_type_count(); t++)
    mine.types_hash = grt_cluster_hash_str(mine.types_hash, grt_device_type_name(t));
  for (int32_t i = 0; i < local->n; i++) {
    mine.count[local->devs[i].type]++;
    if (local->devs[i].present) mine.present[local->devs[i].type]++;
  }
  join_record* recs = grt_calloc((size_t)c->size, sizeof *recs);
  if (!recs) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory joining the cluster");
  st = gather(c, &mine, sizeof mine, recs);
  for (int32_t r = 0; !st && r < c->size; r++) {
    const char* what = recs[r].spec_hash != recs[0].spec_hash         ? "cluster spec"
                       : recs[r].version_hash != recs[0].version_hash ? "grt version"
                       : recs[r].types_hash != recs[0].types_hash     ? "device types"
                                                                      : NULL;
    if (what)
      st = GRT_ERROR(FAILED_PRECONDITION,
                     "cluster '%s': rank %d (%s) has another %s than rank 0 (%s); every rank must "
                     "run the same grt with the same --cluster",
                     c->spec_text, (int)r, c->task_name[r], what, c->task_name[0]);
  }
  if (!st) st = make_devices(c, recs, out_devices);
  grt_free(recs);
  if (!st) *out = c;
  return st;
}

int32_t grt_cluster_rank(const grt_cluster* c) { return c->rank; }
int32_t grt_cluster_size(const grt_cluster* c) { return c->size; }

const char* grt_cluster_task_name(const grt_cluster* c, int32_t rank) {
  return rank >= 0 && rank < c->size ? c->task_name[rank] : "(no task)";
}

int32_t grt_cluster_device_rank(const grt_cluster* c, const grt_device_set* ds, int32_t device) {
  if (device < 0 || device >= ds->n) return -1;
  const grt_device_name* n = &ds->devs[device].parsed;
  for (int32_t r = 0; r < c->size; r++) {
    const char* job;
    int32_t task;
    grt_cluster_spec_task(&c->spec, r, &job, &task);
    if (n->has_job && n->has_task && strcmp(n->job, job) == 0 && n->task == task) return r;
  }
  return -1;
}

grt_status* grt_cluster_check_plan(grt_cluster* c, const grt_graph* g, const grt_plan* plan,
                                   const grt_graph* run_graph, const grt_plan* run_plan) {
  /* One record of both hashes: every rank makes the same exchanges
   * whatever its options, so a rank that optimized and one that did not
   * still meet here and are told apart. */
  uint64_t h[2] = {grt_cluster_plan_hash(g, plan), grt_cluster_plan_hash(run_graph, run_plan)};
  uint64_t* all = grt_calloc((size_t)c->size * 2, sizeof *all);
  if (!all) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory checking the cluster's placement");
  grt_status* st = gather(c, h, sizeof h, all);
  for (int32_t r = 1; !st && r < c->size; r++) {
    const uint64_t *mine = all + 2 * r, *first = all;
    if (mine[0] != first[0])
      st = GRT_ERROR(FAILED_PRECONDITION,
                     "cluster '%s': rank %d (%s) placed another graph or placement than rank 0 "
                     "(%s): hash %016llx against %016llx; every rank must load the same graph with "
                     "the same options",
                     c->spec_text, (int)r, c->task_name[r], c->task_name[0],
                     (unsigned long long)mine[0], (unsigned long long)first[0]);
    else if (mine[1] != first[1])
      st = GRT_ERROR(FAILED_PRECONDITION,
                     "cluster '%s': rank %d (%s) optimized the graph otherwise than rank 0 (%s): "
                     "hash %016llx against %016llx; every rank must run the same grt with the same "
                     "options (rewrite, optimizer_off, fold_max_bytes)",
                     c->spec_text, (int)r, c->task_name[r], c->task_name[0],
                     (unsigned long long)mine[1], (unsigned long long)first[1]);
  }
  grt_free(all);
  return st;
}

grt_status* grt_cluster_tag(const grt_cluster* c, int32_t index, int64_t step, int64_t* out) {
  /* A product, not a shift: a negative index (refused below) must not be
   * shifted, which C leaves undefined. */
  int64_t tag = (int64_t)index * ((int64_t)1 << GRT_CLUSTER_STEP_BITS) +
                (step & ((1 << GRT_CLUSTER_STEP_BITS) - 1));
  if (index < 0 || tag >= c->max_tag) /* the largest is the checkpoints' */
    return GRT_ERROR(
        RESOURCE_EXHAUSTED,
        "crossing %d between tasks needs tag %lld, past the transport's largest (%lld)", (int)index,
        (long long)tag, (long long)c->max_tag);
  *out = tag;
  return NULL;
}
