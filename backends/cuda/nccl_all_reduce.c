/* NcclAllReduce groups on GPUs (grt_backend.all_reduce). grt calls this
 * once per group with every member's input ready on its device's compute
 * stream and an output allocated on each member's device.
 *
 * - Every member on its own physical GPU (and the plugin built with NCCL,
 *   GRT_HAVE_NCCL): one ncclAllReduce per member on its compute stream
 *   inside ncclGroupStart/End, over communicators made once per ordered set
 *   of physical GPUs (ncclCommInitAll) and kept for the life of the
 *   process, as TensorFlow's NcclManager keeps them. A mutex per set keeps
 *   two groups from interleaving their calls on the same communicators.
 * - Otherwise (virtual GPUs sharing a card, which NCCL refuses as two
 *   ranks; or no NCCL): member 0's compute stream waits for every member's,
 *   copies input 0 into output 0, then for each other member copies its
 *   input into a scratch buffer and accumulates it (collective.cu), copies
 *   the result into every other output, and every member's stream waits for
 *   that. Reduction in member order, as on the CPU.
 * GRT_CUDA_ALL_REDUCE=copies forces the second path (to test it on a
 * machine with several GPUs).
 *
 * Not yet run: NCCL groups need two physical GPUs, and the GPU runs so far
 * had one card (tests/gpu/runs). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "cuda_internal.h"
#include "cuda_lib_search.h"

#ifdef GRT_HAVE_NCCL
#include <nccl.h>
#endif

static cuda_device* member(const grt_all_reduce_args* a, int32_t k) {
  return (cuda_device*)a->devices[k];
}

static cudaStream_t compute_stream(cuda_device* d) { return d->streams[GRT_STREAM_COMPUTE].s; }

/* Work queued on `to` from now on waits for the work queued on `from`. */
static grt_status* order(cuda_device* from_dev, cudaStream_t from, cudaStream_t to) {
  cudaEvent_t e;
  grt_status* st = grt_cuda_error(cudaSetDevice(from_dev->physical), "cudaSetDevice");
  if (st) return st;
  st = grt_cuda_error(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  if (st) return st;
  st = grt_cuda_error(cudaEventRecord(e, from), "cudaEventRecord");
  if (!st) st = grt_cuda_error(cudaStreamWaitEvent(to, e, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(e); /* CUDA keeps it until the queued work is done */
  return st;
}

static grt_status* reduce_by_copies(const grt_all_reduce_args* a) {
  cuda_device* d0 = member(a, 0);
  cudaStream_t s0 = compute_stream(d0);
  size_t bytes = grt_tensor_byte_size(a->inputs[0]);
  int64_t n = grt_tensor_num_elements(a->inputs[0]);
  grt_dtype t = grt_tensor_dtype(a->inputs[0]);
  if (bytes == 0) return NULL;
  grt_status* st = NULL;
  for (int32_t k = 1; !st && k < a->n; k++)
    st = order(member(a, k), compute_stream(member(a, k)), s0);
  grt_allocator* mem = &d0->device_memory.base;
  void* scratch = NULL;
  if (!st && a->n > 1) {
    scratch = mem->alloc(mem, bytes, 256);
    if (!scratch)
      st = grt_status_new(GRT_RESOURCE_EXHAUSTED,
                          "all-reduce '%s': out of memory for %zu bytes of scratch on %s",
                          a->shared_name, bytes, d0->base.name);
  }
  if (!st) st = grt_cuda_error(cudaSetDevice(d0->physical), "cudaSetDevice");
  void* acc = grt_tensor_data(a->outputs[0]);
  if (!st)
    st = grt_cuda_error(
        cudaMemcpyAsync(acc, grt_tensor_data(a->inputs[0]), bytes, cudaMemcpyDeviceToDevice, s0),
        "cudaMemcpyAsync");
  for (int32_t k = 1; !st && k < a->n; k++) {
    st = grt_cuda_error(cudaMemcpyPeerAsync(scratch, d0->physical, grt_tensor_data(a->inputs[k]),
                                            member(a, k)->physical, bytes, s0),
                        "cudaMemcpyPeerAsync");
    if (!st) st = grt_cuda_accumulate(s0, t, a->reduction, acc, scratch, n);
  }
  for (int32_t k = 1; !st && k < a->n; k++)
    st = grt_cuda_error(cudaMemcpyPeerAsync(grt_tensor_data(a->outputs[k]), member(a, k)->physical,
                                            acc, d0->physical, bytes, s0),
                        "cudaMemcpyPeerAsync");
  /* Each member's stream waits for its output and for the reads of its
   * input (whose memory its allocator may hand out again). */
  for (int32_t k = 1; !st && k < a->n; k++) st = order(d0, s0, compute_stream(member(a, k)));
  if (st) cudaStreamSynchronize(s0); /* nothing queued may outlive the buffers */
  /* The scratch goes back to member 0's allocator, whose next user is
   * ordered after this work on the same compute stream. */
  mem->free(mem, scratch);
  return st;
}

#ifdef GRT_HAVE_NCCL

typedef struct comm_set {
  struct comm_set* next;
  int n;
  int* devices; /* physical ordinals, rank order */
  ncclComm_t* comms;
  pthread_mutex_t mu; /* one group's calls at a time on these communicators */
} comm_set;

static comm_set* g_sets;
static pthread_mutex_t g_sets_mu = PTHREAD_MUTEX_INITIALIZER;

/* The NCCL calls made here, through a table filled on the first all-reduce
 * over NCCL (lazy_lib.h): no other run maps NCCL. */
#define GRT_NCCL_CALLS(X)         \
  X(CommInitAll, ncclCommInitAll) \
  X(AllReduce, ncclAllReduce)     \
  X(GroupStart, ncclGroupStart)   \
  X(GroupEnd, ncclGroupEnd)       \
  X(GetErrorString, ncclGetErrorString)

typedef struct {
  GRT_NCCL_CALLS(GRT_LAZY_FIELD)
} nccl_api;

static nccl_api g_nccl;

#define NCCL_ROW(field, symbol) GRT_LAZY_ROW(nccl_api, field, symbol)
static const grt_lazy_symbol kNcclSymbols[] = {GRT_NCCL_CALLS(NCCL_ROW)};

#define GRT_STR_(x) #x
#define GRT_STR(x) GRT_STR_(x)
/* The soname of the NCCL this header declares. */
static const char* const kNcclNames[] = {"libnccl.so." GRT_STR(NCCL_MAJOR), NULL};
static const char* const kNcclPackages[] = {"nvidia/nccl/lib", "nvidia/cu13/lib", NULL};

static grt_lazy_lib g_nccl_lib = {
    .what = "NCCL",
    .sonames = kNcclNames,
    .symbols = kNcclSymbols,
    .n_symbols = sizeof kNcclSymbols / sizeof kNcclSymbols[0],
    .table = &g_nccl,
    GRT_CUDA_LIB_SEARCH(kNcclPackages, NULL),
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

static grt_status* nccl_error(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return NULL;
  return grt_status_new(GRT_INTERNAL, "%s: %s", what, g_nccl.GetErrorString(r));
}

/* The communicators for `devices` in this order, made on first use. */
static grt_status* comms_for(const int* devices, int n, comm_set** out) {
  pthread_mutex_lock(&g_sets_mu);
  comm_set* c = g_sets;
  for (; c; c = c->next)
    if (c->n == n && memcmp(c->devices, devices, (size_t)n * sizeof *devices) == 0) break;
  grt_status* st = NULL;
  if (!c) {
    c = calloc(1, sizeof *c);
    if (c) {
      c->devices = calloc((size_t)n, sizeof *c->devices);
      c->comms = calloc((size_t)n, sizeof *c->comms);
    }
    if (!c || !c->devices || !c->comms) {
      st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory making NCCL communicators");
    } else {
      memcpy(c->devices, devices, (size_t)n * sizeof *devices);
      c->n = n;
      st = nccl_error(g_nccl.CommInitAll(c->comms, n, devices), "ncclCommInitAll");
    }
    if (st) {
      if (c) {
        free(c->devices);
        free(c->comms);
        free(c);
      }
      c = NULL;
    } else {
      pthread_mutex_init(&c->mu, NULL);
      c->next = g_sets;
      g_sets = c;
    }
  }
  pthread_mutex_unlock(&g_sets_mu);
  *out = c;
  return st;
}

static bool nccl_type(grt_dtype t, ncclDataType_t* out) {
  switch (t) {
    case GRT_FLOAT16:
      *out = ncclFloat16;
      return true;
    case GRT_FLOAT32:
      *out = ncclFloat32;
      return true;
    case GRT_FLOAT64:
      *out = ncclFloat64;
      return true;
    case GRT_INT32:
      *out = ncclInt32;
      return true;
    case GRT_INT64:
      *out = ncclInt64;
      return true;
    default:
      return false;
  }
}

static const ncclRedOp_t kOps[] = {
    [GRT_REDUCE_SUM] = ncclSum,
    [GRT_REDUCE_PROD] = ncclProd,
    [GRT_REDUCE_MIN] = ncclMin,
    [GRT_REDUCE_MAX] = ncclMax,
};

static grt_status* reduce_by_nccl(const grt_all_reduce_args* a) {
  ncclDataType_t dt;
  grt_dtype t = grt_tensor_dtype(a->inputs[0]);
  if (!nccl_type(t, &dt))
    return grt_status_new(GRT_UNIMPLEMENTED, "all-reduce '%s': NCCL does not handle %s",
                          a->shared_name, grt_dtype_name(t));
  size_t count = (size_t)grt_tensor_num_elements(a->inputs[0]);
  if (count == 0) return NULL;
  grt_status* st = grt_cuda_nccl_open("NcclAllReduce across GPUs");
  if (st) return grt_status_prefix(st, "all-reduce '%s'", a->shared_name);
  int* devices = calloc((size_t)a->n, sizeof *devices);
  if (!devices) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; k < a->n; k++) devices[k] = member(a, k)->physical;
  comm_set* c = NULL;
  st = comms_for(devices, a->n, &c);
  free(devices);
  if (st) return st;
  pthread_mutex_lock(&c->mu);
  st = nccl_error(g_nccl.GroupStart(), "ncclGroupStart");
  for (int32_t k = 0; !st && k < a->n; k++)
    st = nccl_error(
        g_nccl.AllReduce(grt_tensor_data(a->inputs[k]), grt_tensor_data(a->outputs[k]), count, dt,
                         kOps[a->reduction], c->comms[k], compute_stream(member(a, k))),
        "ncclAllReduce");
  /* A group once started is always ended, even after a failed call. */
  grt_status* end = nccl_error(g_nccl.GroupEnd(), "ncclGroupEnd");
  pthread_mutex_unlock(&c->mu);
  if (!st)
    st = end;
  else
    grt_status_free(end);
  return st;
}

#endif /* GRT_HAVE_NCCL */

grt_status* grt_cuda_nccl_open(const char* needed_for) {
#ifdef GRT_HAVE_NCCL
  return grt_lazy_lib_open(&g_nccl_lib, needed_for);
#else
  (void)needed_for;
  return NULL;
#endif
}

/* NCCL needs one rank per physical GPU. */
static bool distinct_cards(const grt_all_reduce_args* a) {
  for (int32_t i = 0; i < a->n; i++)
    for (int32_t j = 0; j < i; j++)
      if (member(a, i)->physical == member(a, j)->physical) return false;
  return true;
}

grt_status* grt_cuda_all_reduce(const grt_all_reduce_args* a) {
  const char* force = getenv("GRT_CUDA_ALL_REDUCE");
  bool copies = force && strcmp(force, "copies") == 0;
#ifdef GRT_HAVE_NCCL
  if (!copies && a->n > 1 && distinct_cards(a)) return reduce_by_nccl(a);
#else
  (void)distinct_cards;
  (void)copies;
#endif
  return reduce_by_copies(a);
}
