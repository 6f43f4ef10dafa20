#include "base/threadpool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/mem.h"
#include "base/status.h"

typedef struct task {
  void (*fn)(void*);
  void* arg;
  struct task* next;
} task;

/* Workers start on demand, not with the pool: a session whose nodes all run
 * inline (or a process that only lists devices) starts no thread, and one
 * that needs two of sixteen starts two. A task queued when no idle worker
 * is left for it starts the next worker, up to n; idle workers sleep on the
 * condition variable (no spinning), so an idle pool costs no CPU. */
struct grt_threadpool {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  task* head;
  task* tail;
  task* free_list; /* recycled task records: scheduling allocates rarely */
  int stopping;
  int n;       /* the most workers it may start */
  int started; /* workers started so far (under mu) */
  int idle;    /* workers waiting on cv (under mu) */
  int queued;  /* tasks in the queue (under mu) */
  pthread_t* threads;
};

static void* worker(void* arg) {
  grt_threadpool* p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->head && !p->stopping) {
      p->idle++;
      pthread_cond_wait(&p->cv, &p->mu);
      p->idle--;
    }
    if (!p->head) break; /* stopping and drained */
    task* t = p->head;
    p->head = t->next;
    if (!p->head) p->tail = NULL;
    p->queued--;
    void (*fn)(void*) = t->fn;
    void* a = t->arg;
    t->next = p->free_list;
    p->free_list = t;
    pthread_mutex_unlock(&p->mu);
    fn(a);
    pthread_mutex_lock(&p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

grt_status* grt_threadpool_new(int threads, const char* name, grt_threadpool** out) {
  (void)name;
  *out = NULL;
  if (threads <= 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    threads = c > 0 ? (int)c : 1;
  }
  if (threads > 1024) return GRT_ERROR(INVALID_ARGUMENT, "%d threads is too many", threads);
  grt_threadpool* p = grt_calloc(1, sizeof *p);
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory creating a thread pool");
  p->threads = grt_calloc((size_t)threads, sizeof *p->threads);
  if (!p->threads) {
    grt_free(p);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory creating a thread pool");
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->n = threads;
  *out = p;
  return NULL;
}

/* Starts one more worker. Under mu; false when the system refuses. */
static bool start_worker(grt_threadpool* p) {
  /* A thread's stack is new address space (mem.h's space hooks). */
  grt_mem_space_begin();
  int rc = pthread_create(&p->threads[p->started], NULL, worker, p);
  grt_mem_space_end();
  if (rc != 0) return false;
  p->started++;
  return true;
}

int grt_threadpool_started(grt_threadpool* p) {
  if (!p) return 0;
  pthread_mutex_lock(&p->mu);
  int n = p->started;
  pthread_mutex_unlock(&p->mu);
  return n;
}

void grt_threadpool_free(grt_threadpool* p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stopping = 1;
  pthread_cond_broadcast(&p->cv);
  int started = p->started;
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < started; i++) pthread_join(p->threads[i], NULL);
  for (task* t = p->free_list; t;) {
    task* next = t->next;
    grt_free(t);
    t = next;
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  grt_free(p->threads);
  grt_free(p);
}

int grt_threadpool_size(const grt_threadpool* p) { return p ? p->n : 0; }

int grt_threadpool_schedule(grt_threadpool* p, void (*fn)(void*), void* arg) {
  pthread_mutex_lock(&p->mu);
  /* No idle worker left for this task: start one, if the pool may. A pool
   * with no worker at all that cannot start one refuses the task (the
   * caller runs it); one with workers queues it for them. */
  if (p->queued >= p->idle && p->started < p->n && !start_worker(p) && p->started == 0) {
    pthread_mutex_unlock(&p->mu);
    return 0;
  }
  task* t = p->free_list;
  if (t) {
    p->free_list = t->next;
  } else {
    t = grt_malloc(sizeof *t);
    if (!t) {
      pthread_mutex_unlock(&p->mu);
      return 0;
    }
  }
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  if (p->tail)
    p->tail->next = t;
  else
    p->head = t;
  p->tail = t;
  p->queued++;
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return 1;
}

/* ---- parallel_for ------------------------------------------------------
 * The caller runs shards too, and waits only for shards that were claimed,
 * never for helper tasks to start: a parallel_for inside a worker (nested, or
 * with every worker busy) cannot deadlock. Helpers that start late find no
 * work; the shared record is freed by whoever lets go of it last. */

typedef struct {
  void (*fn)(void*, int64_t, int64_t);
  void* ctx;
  const grt_cancel_token* cancel; /* the caller's run: stop handing out shards once it stops */
  int64_t n, shard, shards;
  int64_t next; /* atomic: next shard start */
  int64_t done; /* shards finished, under mu */
  int refs;     /* atomic: caller + helpers */
  pthread_mutex_t mu;
  pthread_cond_t cv;
} pfor;

static void pfor_unref(pfor* f) {
  if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  pthread_mutex_destroy(&f->mu);
  pthread_cond_destroy(&f->cv);
  grt_free(f);
}

static void run_shards(pfor* f) {
  int64_t finished = 0;
  for (;;) {
    int64_t b = __atomic_fetch_add(&f->next, f->shard, __ATOMIC_RELAXED);
    if (b >= f->n) break;
    int64_t e = b + f->shard < f->n ? b + f->shard : f->n;
    /* A cancelled run's remaining shards are claimed and skipped: the
     * kernel's output is garbage, and the executor drops it. */
    if (grt_cancel_check(f->cancel) == GRT_OK) {
      const grt_cancel_token* prev = grt_cancel_set_current(f->cancel);
      f->fn(f->ctx, b, e);
      grt_cancel_set_current(prev);
    }
    finished++;
  }
  if (!finished) return;
  pthread_mutex_lock(&f->mu);
  f->done += finished;
  if (f->done == f->shards) pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

static grt_team_runner g_team; /* atomic: grt_threadpool_set_team_runner */

void grt_threadpool_set_team_runner(grt_team_runner run) {
  __atomic_store_n(&g_team, run, __ATOMIC_RELEASE);
}

grt_team_runner grt_threadpool_team_runner(void) {
  return __atomic_load_n(&g_team, __ATOMIC_ACQUIRE);
}

static void run_shards_body(void* arg) { run_shards(arg); }

static void pfor_helper(void* arg) {
  pfor* f = arg;
  run_shards(f);
  pfor_unref(f);
}

/* The longest stretch of a parallel_for (in cost units, rough ns) that
 * runs without a check of the caller's cancellation: a shard, or a piece of
 * the work run inline. Costs are rough and shards may be several times
 * this, still well under a deadline's 50 ms or so; a few thousand shards a
 * second cost nothing next to the work they carry. */
enum { kMaxShardCost = 1 << 23 };

/* All of [0, n) on this thread: in pieces with a check between them when
 * the caller's run can stop and the work is long, else in one call. */
static void run_inline(void (*fn)(void*, int64_t, int64_t), void* ctx, int64_t n, int64_t total) {
  const grt_cancel_token* cancel = grt_cancel_current();
  if (!cancel || total <= kMaxShardCost) {
    fn(ctx, 0, n);
    return;
  }
  int64_t pieces = total / kMaxShardCost;
  int64_t step = pieces >= n ? 1 : (n + pieces - 1) / pieces;
  for (int64_t b = 0; b < n; b += step) {
    if (b > 0 && grt_cancel_check(cancel) != GRT_OK) return; /* the executor drops the output */
    fn(ctx, b, b + step < n ? b + step : n);
  }
}

/* `cut`: shards and inline pieces of at most about kMaxShardCost. */
static void parallel_for(grt_threadpool* p, int64_t n, int64_t cost_per_unit,
                         void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx, bool cut) {
  if (n <= 0) return;
  if (cost_per_unit < 1) cost_per_unit = 1;
  /* Waking a worker costs tens of microseconds on a busy machine (measured:
   * a 64k-element Relu took 100 us split in three, ~15 us inline), so a
   * shard must carry well over that to pay for it. */
  const int64_t kMinShardCost = 200000;
  int64_t total = n > INT64_MAX / cost_per_unit ? INT64_MAX : n * cost_per_unit;
  int workers = p ? p->n : 0;
  pfor* f = NULL;
  if (workers > 0 && total >= 2 * kMinShardCost) f = grt_calloc(1, sizeof *f);
  if (!f) {
    if (cut)
      run_inline(fn, ctx, n, total);
    else
      fn(ctx, 0, n);
    return;
  }
  int64_t shards = (int64_t)(workers + 1) * 4;
  if (shards > total / kMinShardCost) shards = total / kMinShardCost;
  /* Shards are checked for cancellation between them: none is longer
   * than about kMaxShardCost, however big the work. */
  if (cut && shards < total / kMaxShardCost) shards = total / kMaxShardCost;
  if (shards > n) shards = n;
  f->fn = fn;
  f->ctx = ctx;
  f->cancel = grt_cancel_current();
  f->n = n;
  f->shard = (n + shards - 1) / shards;
  f->shards = (n + f->shard - 1) / f->shard;
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  grt_team_runner team = __atomic_load_n(&g_team, __ATOMIC_ACQUIRE);
  if (team) {
    /* The team returns when every member has: nothing else holds f. */
    f->refs = 1;
    team(run_shards_body, f, workers < f->shards ? workers : (int)f->shards);
    pfor_unref(f);
    return;
  }
  int helpers = workers < f->shards - 1 ? workers : (int)(f->shards - 1);
  f->refs = 1 + helpers;
  for (int i = 0; i < helpers; i++)
    if (!grt_threadpool_schedule(p, pfor_helper, f)) pfor_unref(f);
  run_shards(f);
  pthread_mutex_lock(&f->mu);
  while (f->done < f->shards) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  pfor_unref(f);
}

void grt_parallel_for(grt_threadpool* p, int64_t n, int64_t cost_per_unit,
                      void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx) {
  parallel_for(p, n, cost_per_unit, fn, ctx, true);
}

void grt_parallel_for_coarse(grt_threadpool* p, int64_t n, int64_t cost_per_unit,
                             void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx) {
  parallel_for(p, n, cost_per_unit, fn, ctx, false);
}
