/* The MPI transport (libgrt_transport_mpi.so): grt/transport.h over Open
 * MPI. The only code of grt that links MPI; the library opens it when a
 * session asks for a cluster (runtime/cluster/transport.c).
 *
 * MPI is initialised with MPI_THREAD_SERIALIZED and every call is made
 * under one lock: the executor posts sends from its pool threads while the
 * run's thread polls, and a serialised MPI is what every build of Open MPI
 * gives. Errors return (MPI_ERRORS_RETURN) and become the caller's `why`.
 * This is a plugin, not the library: its few small blocks (one per
 * request) come from malloc. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grt/transport.h"

struct grt_transport_request {
  MPI_Request req;
  int is_send;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static int mpi_fail(int rc, const char* what, char* why, size_t size) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", rc);
  snprintf(why, size, "MPI: %s: %s", what, text);
  return 1;
}

static void finalize_at_exit(void) {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

static int mpi_init(int32_t* rank, int32_t* size, char* why, size_t why_size) {
  pthread_mutex_lock(&g_mu);
  int inited = 0, rc = MPI_Initialized(&inited);
  if (rc == MPI_SUCCESS && !inited) {
    int provided = 0;
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc == MPI_SUCCESS && provided < MPI_THREAD_SERIALIZED) {
      pthread_mutex_unlock(&g_mu);
      snprintf(why, why_size,
               "MPI: this MPI gives thread level %d, grt needs MPI_THREAD_SERIALIZED", provided);
      return 1;
    }
    if (rc == MPI_SUCCESS) atexit(finalize_at_exit);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int r = 0, n = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(MPI_COMM_WORLD, &n);
  pthread_mutex_unlock(&g_mu);
  if (rc != MPI_SUCCESS) return mpi_fail(rc, "init", why, why_size);
  *rank = r;
  *size = n;
  return 0;
}

static int64_t mpi_max_tag(void) {
  void* v = NULL;
  int flag = 0;
  pthread_mutex_lock(&g_mu);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  pthread_mutex_unlock(&g_mu);
  return flag && v ? *(int*)v : 32767;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Polled, so a rank that never comes cannot hold the others forever. */
static int mpi_all_gather(const void* in, size_t bytes, void* out, int64_t timeout_ms, char* why,
                          size_t why_size) {
  if (bytes > INT32_MAX) {
    snprintf(why, why_size, "MPI: all-gather of %zu bytes is too large", bytes);
    return 1;
  }
  MPI_Request req;
  pthread_mutex_lock(&g_mu);
  int rc =
      MPI_Iallgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, &req);
  pthread_mutex_unlock(&g_mu);
  if (rc != MPI_SUCCESS) return mpi_fail(rc, "all-gather", why, why_size);
  int64_t end = now_ms() + timeout_ms;
  for (;;) {
    int done = 0;
    pthread_mutex_lock(&g_mu);
    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    pthread_mutex_unlock(&g_mu);
    if (rc != MPI_SUCCESS) return mpi_fail(rc, "all-gather", why, why_size);
    if (done) return 0;
    if (timeout_ms > 0 && now_ms() > end) {
      /* A collective cannot be cancelled; the caller fails and exits. */
      snprintf(why, why_size,
               "not every rank joined the start-up exchange within %lld ms (one exited or is "
               "running another program?)",
               (long long)timeout_ms);
      return 1;
    }
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
  }
}

static int start(void* data, size_t bytes, int32_t peer, int64_t tag, int is_send,
                 grt_transport_request** out, char* why, size_t why_size) {
  if (bytes > INT32_MAX || tag < 0 || tag > mpi_max_tag()) {
    snprintf(why, why_size, "MPI: message of %zu bytes with tag %lld is out of range", bytes,
             (long long)tag);
    return 1;
  }
  grt_transport_request* r = malloc(sizeof *r);
  if (!r) {
    snprintf(why, why_size, "MPI: out of memory");
    return 1;
  }
  r->is_send = is_send;
  pthread_mutex_lock(&g_mu);
  int rc = is_send ? MPI_Isend(data, (int)bytes, MPI_BYTE, peer, (int)tag, MPI_COMM_WORLD, &r->req)
                   : MPI_Irecv(data, (int)bytes, MPI_BYTE, peer, (int)tag, MPI_COMM_WORLD, &r->req);
  pthread_mutex_unlock(&g_mu);
  if (rc != MPI_SUCCESS) {
    free(r);
    return mpi_fail(rc, is_send ? "send" : "receive", why, why_size);
  }
  *out = r;
  return 0;
}

static int mpi_isend(const void* data, size_t bytes, int32_t peer, int64_t tag,
                     grt_transport_request** out, char* why, size_t why_size) {
  return start((void*)data, bytes, peer, tag, 1, out, why, why_size);
}

static int mpi_irecv(void* data, size_t bytes, int32_t peer, int64_t tag,
                     grt_transport_request** out, char* why, size_t why_size) {
  return start(data, bytes, peer, tag, 0, out, why, why_size);
}

static int mpi_test(grt_transport_request* r, int* done, char* why, size_t why_size) {
  MPI_Status status;
  int flag = 0;
  pthread_mutex_lock(&g_mu);
  int rc = MPI_Test(&r->req, &flag, &status);
  pthread_mutex_unlock(&g_mu);
  *done = 0;
  if (rc != MPI_SUCCESS) return mpi_fail(rc, r->is_send ? "send" : "receive", why, why_size);
  if (flag) {
    free(r);
    *done = 1;
  }
  return 0;
}

static void mpi_cancel(grt_transport_request* r) {
  if (!r) return;
  pthread_mutex_lock(&g_mu);
  if (r->is_send) {
    /* Open MPI cannot take back a send; it completes once the peer takes
     * it (or never), with the caller's buffer kept. */
    MPI_Request_free(&r->req);
  } else {
    MPI_Cancel(&r->req);
    MPI_Wait(&r->req, MPI_STATUS_IGNORE);
  }
  pthread_mutex_unlock(&g_mu);
  free(r);
}

static const grt_transport kMpi = {
    .api_version = GRT_TRANSPORT_API_VERSION,
    .name = "mpi",
    .init = mpi_init,
    .max_tag = mpi_max_tag,
    .all_gather = mpi_all_gather,
    .isend = mpi_isend,
    .irecv = mpi_irecv,
    .test = mpi_test,
    .cancel = mpi_cancel,
};

__attribute__((visibility("default"))) const grt_transport* grt_transport_entry(
    uint32_t host_api_version) {
  return host_api_version == GRT_TRANSPORT_API_VERSION ? &kMpi : NULL;
}
