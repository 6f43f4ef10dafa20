/* Liveness between tasks (DESIGN.md, "Liveness"). A thread per process
 * sends every peer a small note (what this process is doing) every
 * GRT_LIVENESS_BEAT_MS and at once when its run fails, and keeps the last note
 * heard from each peer and when. Ranks waiting on a peer (the executor's
 * receive and send polls) read that here, with no MPI call of their own.
 *
 * Why a thread and not the run's poll loop: a rank deep in a long kernel,
 * or between runs, must still be heard, so that only a process that is
 * gone, stopped or cut off falls silent; what it is doing (in a run or not)
 * is in the note, so a rank that never starts its step is told apart from
 * one that is busy in it. Open MPI does not report a dead peer by itself
 * (MPI_Test on a receive from a killed rank stays pending, over TCP and
 * shared memory alike): mpirun tears the job down about a second after a
 * rank dies of a signal or exits non-zero, but a rank that exits cleanly,
 * hangs or is stopped leaves its peers waiting for ever without this. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/status.h"
#include "runtime/cluster/cluster_internal.h"
#include "runtime/cluster/liveness.h"

enum { kMagic = 0x67726c76 /* "grlv" */ };
/* What a note says its sender is doing. */
enum { kBetween = 0, kInRun = 1, kFailed = 2, kGone = 3 };
/* How long the thread waits, at exit, for its last notes to leave. */
enum { kGoodbyeMs = 300 };
/* Notes drained from one peer per beat (they queue while a thread sleeps). */
enum { kDrain = 64 };

typedef struct {
  uint32_t magic;
  int32_t state;
  int64_t runs; /* runs this process began */
} note;

typedef struct {
  note in; /* the posted receive's buffer */
  grt_transport_request* recv;
  note out; /* the pending send's buffer */
  grt_transport_request* send;
  /* Under mu: */
  note seen;          /* the last note heard */
  int64_t heard_ms;   /* when (the thread's start before any) */
  int64_t idle_since; /* when it was last seen leaving a run (or starting) */
  /* When this thread last took every note that had landed from it: what
   * it said is known up to then, and no further. */
  int64_t listened_ms;
  char error[200]; /* an MPI error on the way to it, or "" */
} peer;

typedef struct {
  grt_cluster* c;
  int64_t tag;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t wake;
  note mine;    /* under mu */
  bool changed; /* under mu: mine changed since it was last sent */
  bool stop;    /* under mu */
  peer* peers;
} liveness;

static liveness g_live = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};
static bool g_started; /* under g_live.mu */

int64_t grt_cluster_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void peer_error(liveness* l, peer* p, const char* why) {
  pthread_mutex_lock(&l->mu);
  if (!p->error[0]) snprintf(p->error, sizeof p->error, "%s", why);
  pthread_mutex_unlock(&l->mu);
}

/* This thread has taken, at `since`, every note peer `p` had sent. */
static void listened(liveness* l, peer* p, int64_t since) {
  pthread_mutex_lock(&l->mu);
  if (since > p->listened_ms) p->listened_ms = since;
  pthread_mutex_unlock(&l->mu);
}

/* Takes the notes that have landed from peer `r` and posts the next
 * receive. */
static void hear(liveness* l, int32_t r) {
  peer* p = &l->peers[r];
  char why[160] = "";
  for (int k = 0; k < kDrain && p->recv; k++) {
    int done = 0;
    /* Read before the test: a note sent after the test began may be
     * missed by it, so what the peer said is known up to here only. */
    int64_t asked = grt_cluster_now_ms();
    if (l->c->t->test(p->recv, &done, why, sizeof why)) {
      p->recv = NULL;
      peer_error(l, p, why);
      return;
    }
    if (!done) {
      listened(l, p, asked);
      return;
    }
    p->recv = NULL;
    if (p->in.magic == kMagic) {
      pthread_mutex_lock(&l->mu);
      int64_t now = grt_cluster_now_ms();
      /* Evidence it runs steps: in a run now, or runs begun since. Run
       * begins and ends are not sent as they happen (a step would pay for
       * two notes), so a peer running short steps may be seen between
       * runs at every beat, with its count moving. */
      if (p->in.state == kInRun || p->in.runs != p->seen.runs) p->idle_since = now;
      p->seen = p->in;
      p->heard_ms = now;
      pthread_mutex_unlock(&l->mu);
    }
    /* It sends nothing more; bytes that are not a note say nothing, so
     * listening goes on whatever they hold. */
    if (p->in.magic == kMagic && p->in.state == kGone) return;
    if (l->c->t->irecv(&p->in, sizeof p->in, r, l->tag, &p->recv, why, sizeof why))
      peer_error(l, p, why);
  }
}

/* Sends `n` to peer `r` unless the last note is still on its way (a peer
 * that does not take them gains nothing from more). */
static void tell(liveness* l, int32_t r, const note* n) {
  peer* p = &l->peers[r];
  char why[160] = "";
  if (p->send) {
    int done = 0;
    if (l->c->t->test(p->send, &done, why, sizeof why)) {
      p->send = NULL;
      peer_error(l, p, why);
      return;
    }
    if (!done) return;
    p->send = NULL;
  }
  p->out = *n;
  if (l->c->t->isend(&p->out, sizeof p->out, r, l->tag, &p->send, why, sizeof why)) {
    p->send = NULL;
    peer_error(l, p, why);
  }
}

/* The last notes: "gone" to every peer, waited for a moment, then every
 * request still pending is given up so MPI can be finalized. */
static void goodbye(liveness* l, const note* gone) {
  int32_t me = l->c->rank, n = l->c->size;
  for (int32_t r = 0; r < n; r++) {
    if (r == me) continue;
    peer* p = &l->peers[r];
    if (p->send) {
      int done = 0;
      char why[160];
      if (l->c->t->test(p->send, &done, why, sizeof why) || done) p->send = NULL;
    }
    if (p->send) continue; /* not taking notes: it will not take this one */
    tell(l, r, gone);
  }
  int64_t end = grt_cluster_now_ms() + kGoodbyeMs;
  for (bool pending = true; pending && grt_cluster_now_ms() < end;) {
    pending = false;
    for (int32_t r = 0; r < n; r++) {
      peer* p = &l->peers[r];
      int done = 0;
      char why[160];
      if (p->send && (l->c->t->test(p->send, &done, why, sizeof why) || done)) p->send = NULL;
      pending |= p->send != NULL;
    }
    struct timespec pause = {0, 1000000};
    if (pending) nanosleep(&pause, NULL);
  }
  for (int32_t r = 0; r < n; r++) {
    /* A note still unsent keeps its buffer, which lives in g_live. */
    if (l->peers[r].send) l->c->t->cancel(l->peers[r].send);
    if (l->peers[r].recv) l->c->t->cancel(l->peers[r].recv);
    l->peers[r].send = l->peers[r].recv = NULL;
  }
}

static void* run_thread(void* arg) {
  liveness* l = arg;
  int32_t me = l->c->rank, n = l->c->size;
  int64_t next_beat = 0;
  pthread_mutex_lock(&l->mu);
  while (!l->stop) {
    int64_t now = grt_cluster_now_ms();
    bool beat = l->changed || now >= next_beat;
    note mine = l->mine;
    l->changed = false;
    pthread_mutex_unlock(&l->mu);
    for (int32_t r = 0; r < n; r++) {
      if (r == me) continue;
      hear(l, r);
      if (beat) tell(l, r, &mine);
    }
    if (beat) next_beat = now + GRT_LIVENESS_BEAT_MS;
    pthread_mutex_lock(&l->mu);
    if (l->stop || l->changed) continue;
    /* Sleep to the next beat; a change of state wakes it early. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ns = until.tv_nsec + (int64_t)GRT_LIVENESS_BEAT_MS * 1000000 / 4;
    until.tv_sec += ns / 1000000000;
    until.tv_nsec = ns % 1000000000;
    pthread_cond_timedwait(&l->wake, &l->mu, &until);
  }
  note gone = l->mine;
  pthread_mutex_unlock(&l->mu);
  goodbye(l, &gone);
  return NULL;
}

/* Runs before MPI is finalized: the transport registered its finalizer
 * before this one, and exit handlers run in reverse. The finalizer leaves
 * MPI unfinalized when the exit status is not 0 (transport_mpi.c), so a
 * failed rank never waits at MPI_Finalize for its peers. */
static void stop_at_exit(int status, void* arg) {
  (void)status;
  liveness* l = arg;
  pthread_mutex_lock(&l->mu);
  l->mine.state = kGone;
  l->stop = true;
  pthread_cond_signal(&l->wake);
  pthread_mutex_unlock(&l->mu);
  pthread_join(l->thread, NULL);
}

grt_status* grt_cluster_liveness_start(grt_cluster* c) {
  liveness* l = &g_live;
  pthread_mutex_lock(&l->mu);
  bool started = g_started;
  pthread_mutex_unlock(&l->mu);
  if (started) return NULL;
  l->c = c;
  l->tag = c->t->max_tag();
  l->peers = grt_calloc((size_t)c->size, sizeof *l->peers);
  if (!l->peers) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory joining the cluster");
  int64_t now = grt_cluster_now_ms();
  char why[160] = "";
  for (int32_t r = 0; r < c->size; r++) {
    l->peers[r].heard_ms = l->peers[r].idle_since = l->peers[r].listened_ms = now;
    if (r != c->rank && c->t->irecv(&l->peers[r].in, sizeof l->peers[r].in, r, l->tag,
                                    &l->peers[r].recv, why, sizeof why))
      return GRT_ERROR(UNAVAILABLE, "cluster liveness: listening to %s: %s",
                       grt_cluster_task_name(c, r), why);
  }
  l->mine = (note){.magic = kMagic, .state = kBetween, .runs = 0};
  l->changed = true;
  if (pthread_create(&l->thread, NULL, run_thread, l) != 0)
    return GRT_ERROR(RESOURCE_EXHAUSTED, "cluster liveness: cannot start its thread");
  pthread_mutex_lock(&l->mu);
  g_started = true;
  pthread_mutex_unlock(&l->mu);
  on_exit(stop_at_exit, l);
  return NULL;
}

/* Only a failure is sent at once (peers waiting on this rank's step fail
 * fast); entering and leaving runs goes with the next beat, so a step costs
 * a lock and no message. */
static void set_state(int32_t state, bool new_run) {
  liveness* l = &g_live;
  pthread_mutex_lock(&l->mu);
  if (g_started && l->mine.state != kGone) {
    l->mine.state = state;
    if (new_run) l->mine.runs++;
    if (state == kFailed) {
      l->changed = true;
      pthread_cond_signal(&l->wake);
    }
  }
  pthread_mutex_unlock(&l->mu);
}

void grt_cluster_run_begin(grt_cluster* c) { set_state(kInRun, true); }
void grt_cluster_run_end(grt_cluster* c, bool failed) {
  set_state(failed ? kFailed : kBetween, false);
}

grt_status* grt_cluster_peer_check(grt_cluster* c, int32_t peer_rank, int64_t since_ms,
                                   int64_t timeout_ms) {
  liveness* l = &g_live;
  if (peer_rank < 0 || peer_rank >= c->size || peer_rank == c->rank) return NULL;
  const char* task = grt_cluster_task_name(c, peer_rank);
  pthread_mutex_lock(&l->mu);
  if (!g_started) {
    pthread_mutex_unlock(&l->mu);
    return NULL;
  }
  const peer* p = &l->peers[peer_rank];
  /* Silence and idleness are measured up to when this process last
   * listened, not up to now: a liveness thread that did not run (starved
   * of the core or of the transport's lock behind a long call, the whole
   * process descheduled) has heard nothing, which says nothing of the
   * peer, whose notes wait to be taken. A peer that is gone stays silent
   * while this thread goes on listening, every quarter beat. */
  int64_t known = p->listened_ms;
  int64_t silent = known - p->heard_ms;
  int64_t idle = known - (p->idle_since > since_ms ? p->idle_since : since_ms);
  grt_status* st = NULL;
  if (p->error[0])
    st = GRT_ERROR(UNAVAILABLE, "lost %s: %s", task, p->error);
  else if (p->seen.state == kGone)
    st = GRT_ERROR(UNAVAILABLE, "lost %s: its process ended (it left the cluster)", task);
  else if (p->seen.state == kFailed && p->seen.runs >= l->mine.runs)
    /* Its run of this step (SPMD ranks begin their runs in one order), not
     * an earlier one this rank failed too. */
    st = GRT_ERROR(UNAVAILABLE, "%s failed its run of this step (its own error says why)", task);
  else if (timeout_ms > 0 && silent > timeout_ms)
    st = GRT_ERROR(UNAVAILABLE,
                   "lost %s: not heard from for %lld ms (killed, stopped or cut off; "
                   "cluster_peer_timeout_ms=%lld)",
                   task, (long long)silent, (long long)timeout_ms);
  else if (timeout_ms > 0 && p->seen.state != kInRun && idle > timeout_ms)
    st = GRT_ERROR(UNAVAILABLE,
                   "%s has not started its step in %lld ms (it is alive but in no run; "
                   "cluster_peer_timeout_ms=%lld)",
                   task, (long long)idle, (long long)timeout_ms);
  pthread_mutex_unlock(&l->mu);
  return st;
}
