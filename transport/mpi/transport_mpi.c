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

/* One send or receive (n = 1), or an all-reduce: one MPI request per
 * chunk of at most kMaxCount elements (MPI counts are int). */
enum { kRecv, kSend, kAllReduce };
struct grt_transport_request {
  int kind, n;
  MPI_Request req[];
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

/* Open MPI's choice of algorithm for MPI_Iallreduce (coll/libnbc), set per
 * call through the MPI tool interface (choose_algorithm): -1 where that
 * variable is missing (another MPI), where the host initialised MPI, or
 * where the user chose through OMPI_MCA_coll_libnbc_iallreduce_algorithm,
 * which are then left as they are. Under g_mu. */
static MPI_T_cvar_handle g_algorithm;
static int g_algorithm_now = -1, g_algorithm_default;
/* An all-reduce given up (cancel) stays pending inside MPI, and
 * MPI_Finalize would wait for it forever: such a process exits without it. */
static int g_abandoned;

static int mpi_fail(int rc, const char* what, char* why, size_t size) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", rc);
  snprintf(why, size, "MPI: %s: %s", what, text);
  return 1;
}

/* A process exiting with a non-zero status leaves MPI unfinalized: Open
 * MPI's MPI_Finalize waits for every rank to reach it, so a failed rank
 * would wait on a peer that is hung or never starts its step, and mpirun
 * would not end the job; a rank that ends unfinalized makes mpirun end it
 * at once, non-zero. The process's other exit handlers still run. */
static void finalize_at_exit(int status, void* arg) {
  (void)arg;
  int done = 0;
  MPI_Finalized(&done);
  if (!done && !g_abandoned && status == 0) MPI_Finalize();
}

/* The handle of libnbc's iallreduce algorithm, when it can be set. */
static void find_algorithm(void) {
  const char* name = "coll_libnbc_iallreduce_algorithm";
  int provided = 0, index = -1, count = 0, value = 0;
  if (getenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm")) return;
  if (MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
      MPI_T_cvar_handle_alloc(index, NULL, &g_algorithm, &count) != MPI_SUCCESS || count != 1 ||
      MPI_T_cvar_read(g_algorithm, &value) != MPI_SUCCESS)
    return;
  g_algorithm_now = g_algorithm_default = value;
}

/* Before an MPI_Iallreduce of `bytes` per rank, under g_mu. Open MPI 4.1's
 * libnbc sums on fewer than 4 ranks, and below 64 KiB, with a binomial tree:
 * every rank's whole vector goes to rank 0, which sums it all and sends it
 * back, two full transfers one after the other and one rank doing every
 * addition. Its ring (each rank sums 1/p of the vector and passes it on,
 * then the sums go round; out of place it writes straight into the output
 * with no first copy) moves 2(p-1)/p of the vector and shares the sums, as
 * the blocking MPI_Allreduce's own large-message algorithms do. Below
 * kRingBytes its 2(p-1) steps cost more than they save (4 ranks, 4-64 KiB:
 * 0.4-0.8x libnbc's own choice in alternating rounds), so that choice
 * stays there. Every rank gets the same bits either way: each part of the
 * sum is made on one rank and passed on as it is. */
enum { kRingBytes = 256 << 10, kLibnbcRing = 1 };
static void choose_algorithm(size_t bytes) {
  if (g_algorithm_now < 0) return;
  int want = g_algorithm_default;
  /* GRT_MPI_ALLREDUCE=libnbc leaves libnbc's choice at every size: for
   * measuring the two side by side (allreduce_bench ab). */
  if (bytes >= kRingBytes) {
    const char* force = getenv("GRT_MPI_ALLREDUCE");
    want = force && !strcmp(force, "libnbc") ? g_algorithm_default : kLibnbcRing;
  }
  if (want != g_algorithm_now && MPI_T_cvar_write(g_algorithm, &want) == MPI_SUCCESS)
    g_algorithm_now = want;
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
    if (rc == MPI_SUCCESS) on_exit(finalize_at_exit, NULL);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* A host that initialised MPI itself keeps its own choice. */
  if (rc == MPI_SUCCESS && !inited) find_algorithm();
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
  grt_transport_request* r = malloc(sizeof *r + sizeof(MPI_Request));
  if (!r) {
    snprintf(why, why_size, "MPI: out of memory");
    return 1;
  }
  r->kind = is_send ? kSend : kRecv;
  r->n = 1;
  pthread_mutex_lock(&g_mu);
  int rc = is_send ? MPI_Isend(data, (int)bytes, MPI_BYTE, peer, (int)tag, MPI_COMM_WORLD, r->req)
                   : MPI_Irecv(data, (int)bytes, MPI_BYTE, peer, (int)tag, MPI_COMM_WORLD, r->req);
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
  int flag = 0;
  pthread_mutex_lock(&g_mu);
  int rc = MPI_Testall(r->n, r->req, &flag, MPI_STATUSES_IGNORE);
  pthread_mutex_unlock(&g_mu);
  *done = 0;
  static const char* const kWhat[] = {"receive", "send", "all-reduce"};
  if (rc != MPI_SUCCESS) return mpi_fail(rc, kWhat[r->kind], why, why_size);
  if (flag) {
    free(r);
    *done = 1;
  }
  return 0;
}

static void mpi_cancel(grt_transport_request* r) {
  if (!r) return;
  pthread_mutex_lock(&g_mu);
  if (r->kind == kSend) {
    /* Open MPI cannot take back a send; it completes once the peer takes
     * it (or never), with the caller's buffer kept. */
    MPI_Request_free(r->req);
  } else if (r->kind == kRecv) {
    MPI_Cancel(r->req);
    MPI_Wait(r->req, MPI_STATUS_IGNORE);
  } else {
    /* MPI can neither cancel nor free a collective's request: it is left
     * to MPI, with the caller's buffers (grt/transport.h). */
    g_abandoned = 1;
  }
  pthread_mutex_unlock(&g_mu);
  free(r);
}

/* ---- all-reduce ------------------------------------------------------ */

/* The largest chunk of one MPI_Iallreduce, in elements: counts are int. */
#define kMaxCount ((int64_t)1 << 30)

/* MPI has no 16-bit floats: they are summed by user operations in float,
 * rounded once per pair as a half addition would be, on MPI_UINT16_T. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else { /* subnormal: normalise */
    int e = -1;
    do {
      man <<= 1;
      e++;
    } while (!(man & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Round to nearest even, as grt's own conversion does. */
static uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* overflows to infinity */
  if (ax < 0x38800000u) {                                  /* subnormal or zero */
    if (ax < 0x33000000u) return (uint16_t)sign;
    uint32_t e = ax >> 23, m = (ax & 0x7fffff) | 0x800000, shift = 126 - e;
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static float bf16_to_float(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40); /* NaN stays NaN */
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static void sum_f16(void* in, void* inout, int* len, MPI_Datatype* type) {
  const uint16_t* a = in;
  uint16_t* b = inout;
  for (int i = 0; i < *len; i++) b[i] = float_to_half(half_to_float(a[i]) + half_to_float(b[i]));
}

static void sum_bf16(void* in, void* inout, int* len, MPI_Datatype* type) {
  const uint16_t* a = in;
  uint16_t* b = inout;
  for (int i = 0; i < *len; i++) b[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}

static MPI_Op g_sum_f16 = MPI_OP_NULL, g_sum_bf16 = MPI_OP_NULL; /* made under g_mu */

/* grt_dtype's values (grt/types.h) that an all-reduce sums. */
enum { kF16 = 1, kBF16 = 2, kF32 = 3, kF64 = 4, kI32 = 7, kI64 = 8 };

/* The MPI type, operation and element size of a grt dtype; under g_mu. */
static int reduce_type(int32_t dtype, MPI_Datatype* t, MPI_Op* op, size_t* size) {
  *op = MPI_SUM;
  switch (dtype) {
    case kF32:
      *t = MPI_FLOAT, *size = 4;
      return 0;
    case kF64:
      *t = MPI_DOUBLE, *size = 8;
      return 0;
    case kI32:
      *t = MPI_INT32_T, *size = 4;
      return 0;
    case kI64:
      *t = MPI_INT64_T, *size = 8;
      return 0;
    case kF16:
    case kBF16: {
      MPI_Op* made = dtype == kF16 ? &g_sum_f16 : &g_sum_bf16;
      if (*made == MPI_OP_NULL &&
          MPI_Op_create(dtype == kF16 ? sum_f16 : sum_bf16, 1, made) != MPI_SUCCESS)
        return 1;
      *t = MPI_UINT16_T, *op = *made, *size = 2;
      return 0;
    }
    default:
      return 1;
  }
}

static int mpi_iall_reduce(const void* in, void* out, int64_t count, int32_t dtype,
                           grt_transport_request** out_request, char* why, size_t why_size) {
  if (count < 0) {
    snprintf(why, why_size, "MPI: all-reduce of %lld elements", (long long)count);
    return 1;
  }
  int64_t chunks = count == 0 ? 1 : (count + kMaxCount - 1) / kMaxCount;
  grt_transport_request* r = malloc(sizeof *r + (size_t)chunks * sizeof(MPI_Request));
  if (!r) {
    snprintf(why, why_size, "MPI: out of memory");
    return 1;
  }
  r->kind = kAllReduce;
  r->n = 0;
  MPI_Datatype t;
  MPI_Op op;
  size_t size = 0;
  int rc = MPI_SUCCESS;
  pthread_mutex_lock(&g_mu);
  if (reduce_type(dtype, &t, &op, &size)) {
    pthread_mutex_unlock(&g_mu);
    free(r);
    snprintf(why, why_size, "MPI: no all-reduce for dtype %d", (int)dtype);
    return 1;
  }
  for (int64_t c = 0; rc == MPI_SUCCESS && c < chunks; c++) {
    int64_t at = c * kMaxCount, n = count - at < kMaxCount ? count - at : kMaxCount;
    const char* src = in == out ? MPI_IN_PLACE : (const char*)in + (size_t)at * size;
    choose_algorithm((size_t)n * size);
    rc = MPI_Iallreduce(src, (char*)out + (size_t)at * size, (int)n, t, op, MPI_COMM_WORLD,
                        &r->req[r->n]);
    if (rc == MPI_SUCCESS) r->n++;
  }
  /* Chunks already started cannot be taken back: left to MPI. */
  if (rc != MPI_SUCCESS && r->n > 0) g_abandoned = 1;
  pthread_mutex_unlock(&g_mu);
  if (rc != MPI_SUCCESS) {
    free(r);
    return mpi_fail(rc, "all-reduce", why, why_size);
  }
  *out_request = r;
  return 0;
}

static const grt_transport kMpi = {
    .api_version = GRT_TRANSPORT_API_VERSION,
    .size = sizeof(grt_transport),
    .name = "mpi",
    .init = mpi_init,
    .max_tag = mpi_max_tag,
    .all_gather = mpi_all_gather,
    .isend = mpi_isend,
    .irecv = mpi_irecv,
    .test = mpi_test,
    .cancel = mpi_cancel,
    .iall_reduce = mpi_iall_reduce,
};

__attribute__((visibility("default"))) const grt_transport* grt_transport_entry(
    uint32_t host_api_version) {
  return host_api_version == GRT_TRANSPORT_API_VERSION ? &kMpi : NULL;
}
