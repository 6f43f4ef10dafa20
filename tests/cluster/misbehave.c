/* A host program for cluster_test.sh's fault tests: every rank makes the
 * same cluster session and runs one step, except that rank RANK first
 * misbehaves as MODE says:
 *   sleep:MS  it sleeps MS ms before its run (alive, but in no run)
 *   exit      it returns from main without running (a clean exit, status 0)
 * A rank whose run fails prints "rank R: MESSAGE" on stderr and exits 1.
 *
 *   misbehave GRAPH SPEC FETCH PEER_TIMEOUT_MS RANK MODE
 * PEER_TIMEOUT_MS "-" leaves the session option at its default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grt/grt.h"

static int failed(const char* what, grt_status* st) {
  fprintf(stderr, "%s: %s\n", what, grt_status_message(st));
  grt_status_free(st);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: misbehave GRAPH SPEC FETCH PEER_TIMEOUT_MS RANK MODE\n");
    return 2;
  }
  grt_graph* g = NULL;
  grt_session_options* o = NULL;
  grt_session* s = NULL;
  grt_status* st = grt_graph_load(argv[1], &g);
  if (!st) st = grt_session_options_new(&o);
  if (!st) st = grt_session_options_set(o, "cluster", argv[2]);
  if (!st && strcmp(argv[4], "-") != 0)
    st = grt_session_options_set(o, "cluster_peer_timeout_ms", argv[4]);
  if (!st) st = grt_session_options_set(o, "rewrite", "false");
  if (!st) st = grt_session_new(g, o, &s);
  grt_session_options_free(o);
  if (st) return failed("session", st);
  int rank = grt_session_cluster_rank(s);
  if (rank == atoi(argv[5])) {
    if (strncmp(argv[6], "sleep:", 6) == 0) {
      long ms = atol(argv[6] + 6);
      struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
      nanosleep(&pause, NULL);
    } else if (strcmp(argv[6], "exit") == 0) {
      return 0; /* the session and graph go with the process */
    }
  }
  const char* fetch[] = {argv[3]};
  grt_tensor* out = NULL;
  st = grt_session_run(s, NULL, 0, fetch, 1, NULL, 0, &out, NULL);
  grt_tensor_free(out);
  grt_session_free(s);
  grt_graph_free(g);
  if (st) {
    char who[32];
    snprintf(who, sizeof who, "rank %d", rank);
    return failed(who, st);
  }
  fprintf(stderr, "rank %d: ok\n", rank);
  return 0;
}
