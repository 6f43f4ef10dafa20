/* A CUDA device: per logical GPU a compute stream and host-to-device,
 * device-to-host and device-to-device streams, events without timing to
 * order them, and accounts on the process's allocators (gpu_memory.h): the
 * logical GPU's BFC allocator over cudaMalloc'd regions for device memory,
 * bounded per session by memory_limit, and the card's over pinned host
 * memory for staging (the HOST memory kind). Streams, events and the
 * cuBLAS/cuDNN handles stay per session.
 *
 * Checked on an H200 by the GPU suite
 * (tests/gpu/run_gpu_suite.sh; logs in tests/gpu/runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

grt_status* grt_cuda_error(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return NULL;
  grt_code code = err == cudaErrorMemoryAllocation ? GRT_RESOURCE_EXHAUSTED : GRT_INTERNAL;
  return grt_status_new(code, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

grt_status* grt_cuda_launch_error(const char* what) {
  return grt_cuda_error(cudaGetLastError(), what);
}

int32_t grt_cuda_probe(char* why, size_t why_size) {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    snprintf(why, why_size, "no usable CUDA driver: %s", cudaGetErrorString(err));
    cudaGetLastError(); /* clear it */
    return 0;
  }
  if (n == 0) snprintf(why, why_size, "the CUDA driver found no GPU");
  return n;
}

/* ---- region providers for the BFC allocators --------------------------- */

/* The regions outlive every session (the allocators are the process's):
 * ctx is the card's ordinal itself. The caller's current card is put back,
 * as a session's thread may be serving another card. */
static void* device_region_alloc(void* ctx, size_t bytes) {
  int physical = (int)(intptr_t)ctx, current = -1;
  void* p = NULL;
  if (cudaGetDevice(&current) != cudaSuccess || cudaSetDevice(physical) != cudaSuccess) {
    cudaGetLastError();
    return NULL;
  }
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    cudaGetLastError(); /* an out-of-memory error must not stick to later launches */
    p = NULL;
  }
  if (current != physical && cudaSetDevice(current) != cudaSuccess) cudaGetLastError();
  return p;
}

static void device_region_free(void* ctx, void* base, size_t bytes) {
  int physical = (int)(intptr_t)ctx, current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) current = physical;
  if (cudaSetDevice(physical) != cudaSuccess || cudaFree(base) != cudaSuccess) cudaGetLastError();
  if (current != physical && cudaSetDevice(current) != cudaSuccess) cudaGetLastError();
}

static void* host_region_alloc(void* ctx, size_t bytes) {
  void* p = NULL;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return NULL;
  }
  return p;
}

static void host_region_free(void* ctx, void* base, size_t bytes) {
  if (cudaFreeHost(base) != cudaSuccess) cudaGetLastError();
}

/* On failure, leaves why (the session's memory_limit or the shared BFC's
 * state: in use, largest free chunk, reserved and limit) as the reason
 * grt's out-of-memory error reports. */
static void* account_alloc(grt_allocator* self, size_t size, size_t alignment) {
  if (alignment > GRT_BFC_ALIGNMENT) return NULL;
  grt_status* why = NULL;
  void* p = grt_gpu_memory_alloc(((cuda_allocator*)self)->account, size, &why);
  if (why) grt_allocator_fail_reason(why);
  return p;
}

static void account_free(grt_allocator* self, void* p) {
  grt_gpu_memory_release(((cuda_allocator*)self)->account, p);
}

/* ---- streams and events --------------------------------------------------- */

static grt_status* stream_memcpy(grt_stream* s, void* dst, const void* src, size_t n) {
  if (!n) return NULL;
  cuda_device* d = grt_cuda_device(s);
  grt_status* st = grt_cuda_error(cudaSetDevice(d->physical), "cudaSetDevice");
  if (st) return st;
  /* Unified addressing tells each side's kind; between cards with peer
   * access on this is a peer copy. */
  return grt_cuda_error(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, grt_cuda_stream(s)),
                        "cudaMemcpyAsync");
}

static grt_status* stream_record(grt_stream* s, grt_event* e) {
  return grt_cuda_error(cudaEventRecord(((cuda_event*)e)->e, grt_cuda_stream(s)),
                        "cudaEventRecord");
}

static grt_status* stream_wait(grt_stream* s, grt_event* e) {
  return grt_cuda_error(cudaStreamWaitEvent(grt_cuda_stream(s), ((cuda_event*)e)->e, 0),
                        "cudaStreamWaitEvent");
}

static grt_status* stream_sync(grt_stream* s) {
  return grt_cuda_error(cudaStreamSynchronize(grt_cuda_stream(s)), "cudaStreamSynchronize");
}

static const grt_stream_ops kStreamOps = {stream_memcpy, stream_record, stream_wait, stream_sync};

static grt_status* event_sync(grt_event* e) {
  return grt_cuda_error(cudaEventSynchronize(((cuda_event*)e)->e), "cudaEventSynchronize");
}

/* CUDA lets an event go while work that records it is queued. */
static void event_free(grt_event* e) {
  cudaEventDestroy(((cuda_event*)e)->e);
  free(e);
}

static const grt_event_ops kEventOps = {event_sync, event_free};

static grt_status* event_new(grt_device* gd, grt_event** out) {
  *out = NULL;
  cuda_device* d = (cuda_device*)gd;
  cuda_event* e = calloc(1, sizeof *e);
  if (!e)
    return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory making an event on %s", gd->name);
  grt_status* st = grt_cuda_error(cudaSetDevice(d->physical), "cudaSetDevice");
  if (!st)
    st = grt_cuda_error(cudaEventCreateWithFlags(&e->e, cudaEventDisableTiming), "cudaEventCreate");
  if (st) {
    free(e);
    return st;
  }
  e->base.ops = &kEventOps;
  e->base.device = gd;
  *out = &e->base;
  return NULL;
}

/* ---- the device ------------------------------------------------------------ */

static void memory_stats(grt_device* gd, grt_memory_kind kind, size_t* in_use, size_t* peak) {
  cuda_device* d = (cuda_device*)gd;
  grt_gpu_memory_account* a =
      kind == GRT_MEMORY_HOST ? d->host_memory.account : d->device_memory.account;
  *in_use = *peak = 0;
  if (a) grt_gpu_memory_account_stats(a, in_use, peak);
}

/* grt_gpu_memory_close's hook: the last of the device's accounts frees it. */
static void account_closed(void* arg) {
  cuda_device* d = arg;
  if (__atomic_sub_fetch(&d->open_accounts, 1, __ATOMIC_ACQ_REL) == 0) free(d);
}

static void device_free(grt_device* gd) {
  cuda_device* d = (cuda_device*)gd;
  if (!d) return;
  cudaSetDevice(d->physical);
  for (int k = 0; k < GRT_NUM_STREAM_KINDS; k++)
    if (d->streams[k].s) {
      cudaStreamSynchronize(d->streams[k].s);
      cudaStreamDestroy(d->streams[k].s);
    }
  if (d->blas) grt_cublas.Destroy(d->blas); /* a handle means cuBLAS is open */
  pthread_mutex_destroy(&d->blas_mu);
  if (d->dnn && d->dnn_free) d->dnn_free(d->dnn);
  pthread_mutex_destroy(&d->dnn_mu);
  /* The allocators stay with the process. A block still live (a tensor
   * outliving the session) keeps its account, and this struct, whose
   * grt allocators front the accounts, until it goes. */
  grt_gpu_memory_account* device = d->device_memory.account;
  grt_gpu_memory_account* host = d->host_memory.account; /* d may go with the first close */
  int accounts = (device != NULL) + (host != NULL);
  if (!accounts) {
    free(d);
    return;
  }
  __atomic_store_n(&d->open_accounts, accounts, __ATOMIC_RELEASE);
  grt_gpu_memory_close(device, account_closed, d);
  grt_gpu_memory_close(host, account_closed, d);
}

/* The executor's threads launch kernels for any device: the card must be
 * the thread's current one before work goes on its streams. */
static grt_status* launch(grt_device* gd, grt_stream* s, const grt_op_kernel* k,
                          grt_kernel_ctx* ctx) {
  grt_status* st = grt_cuda_error(cudaSetDevice(((cuda_device*)gd)->physical), "cudaSetDevice");
  return st ? st : k->compute(ctx);
}

static const grt_device_ops kDeviceOps = {
    .free = device_free,
    .event_new = event_new,
    .launch = launch,
    .memory_stats = memory_stats,
    .capturable = grt_cuda_capturable,
    .capture_begin = grt_cuda_capture_begin,
    .capture_end = grt_cuda_capture_end,
    .replay = grt_cuda_replay,
    .captured_free = grt_cuda_captured_free,
};

/* Peer access from this card to every other that allows it, so copies
 * between cards go over NVLink/PCIe directly. Refusals are not errors. */
static void enable_peers(int physical) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return;
  for (int j = 0; j < n; j++) {
    int can = 0;
    if (j == physical || cudaDeviceCanAccessPeer(&can, physical, j) != cudaSuccess || !can)
      continue;
    cudaDeviceEnablePeerAccess(j, 0); /* "already enabled" is fine */
  }
  cudaGetLastError();
}

static grt_status* card_of(int physical, grt_cuda_card* card) {
  struct cudaDeviceProp p;
  grt_status* st = grt_cuda_error(cudaGetDeviceProperties(&p, physical), "cudaGetDeviceProperties");
  if (st) return st;
  memset(card, 0, sizeof *card);
  snprintf(card->name, sizeof card->name, "%s", p.name);
  snprintf(card->pci_bus_id, sizeof card->pci_bus_id, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID,
           p.pciDeviceID);
  card->major = p.major;
  card->minor = p.minor;
  card->total_memory = p.totalGlobalMem;
  return NULL;
}

typedef struct {
  const grt_cuda_placement* where;
  const grt_gpu_options* opts;
  size_t card_total;
} device_limit_ctx;

/* The bytes a new allocator of the logical GPU may hold (its virtual size,
 * else memory_fraction of the card), at most what the card has free now:
 * memory_fraction 1 must not ask for more than that. The card is the
 * thread's current one. */
static size_t device_limit(void* ctx) {
  const device_limit_ctx* c = ctx;
  size_t limit = grt_cuda_memory_limit(c->where, c->opts, c->card_total);
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    limit = grt_cuda_cap_to_free(limit, free_bytes);
  else
    cudaGetLastError();
  return limit;
}

grt_status* grt_cuda_device_new(const grt_device_config* cfg, grt_device** out) {
  *out = NULL;
  grt_gpu_options opts;
  grt_status* st = grt_gpu_options_parse(cfg->options, cfg->n_options, &opts);
  if (st) return grt_status_prefix(st, "%s", cfg->name);
  grt_cuda_placement where = grt_cuda_virtual_map(cfg->id, &opts);
  int cards = 0;
  st = grt_cuda_error(cudaGetDeviceCount(&cards), "cudaGetDeviceCount");
  if (st) return st;
  if (where.physical < 0 || where.physical >= cards)
    return grt_status_new(GRT_UNAVAILABLE, "%s: this machine has %d GPU%s", cfg->name, cards,
                          cards == 1 ? "" : "s");
  cuda_device* d = calloc(1, sizeof *d);
  if (!d) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory creating %s", cfg->name);
  d->base.ops = &kDeviceOps;
  d->base.name = cfg->name;
  d->base.id = cfg->id;
  d->base.host_addressable = false;
  pthread_mutex_init(&d->blas_mu, NULL);
  pthread_mutex_init(&d->dnn_mu, NULL);
  d->physical = where.physical;
  d->virtual_index = where.virtual_index;
  d->virtual_count = where.virtual_count;
  const char* tf32 = getenv("GRT_CUDA_ALLOW_TF32");
  d->tf32 = tf32 && strcmp(tf32, "1") == 0;
  grt_cuda_card card;
  st = grt_cuda_error(cudaSetDevice(d->physical), "cudaSetDevice");
  if (!st) st = card_of(d->physical, &card);
  if (!st) enable_peers(d->physical);
  for (int k = 0; !st && k < GRT_NUM_STREAM_KINDS; k++) {
    st = grt_cuda_error(cudaStreamCreateWithFlags(&d->streams[k].s, cudaStreamNonBlocking),
                        "cudaStreamCreate");
    d->streams[k].base = (grt_stream){&kStreamOps, &d->base, (grt_stream_kind)k, false};
    d->base.streams[k] = &d->streams[k].base;
  }
  if (!st) st = grt_cublas_open("a GPU device");
  if (!st && grt_cublas.Create(&d->blas) != CUBLAS_STATUS_SUCCESS)
    st = grt_status_new(GRT_INTERNAL, "%s: cublasCreate failed", cfg->name);
  if (!st) {
    grt_cublas.SetStream(d->blas, d->streams[GRT_STREAM_COMPUTE].s);
    grt_cublas.SetMathMode(d->blas, d->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    /* The logical GPU's allocator is the process's: made here only by the
     * first session that needs it (after the context and cuBLAS took
     * theirs), shared after. */
    device_limit_ctx lc = {&where, &opts, card.total_memory};
    grt_gpu_memory_spec spec = {
        .physical = where.physical,
        .virtual_index = where.virtual_index,
        .virtual_count = where.virtual_count,
        .virtual_size = where.limit,
        .allow_growth = opts.allow_growth,
        .memory_fraction = opts.memory_fraction,
        .provider = {device_region_alloc, device_region_free, (void*)(intptr_t)where.physical},
        .limit = device_limit,
        .limit_ctx = &lc,
    };
    size_t session_limit = cfg->memory_limit > 0 ? (size_t)cfg->memory_limit : 0;
    st = grt_gpu_memory_open(grt_gpu_memory_process(), &spec, cfg->name, session_limit,
                             &d->device_memory.account);
  }
  if (!st) {
    /* Pinned staging memory, one allocator per card, grows on demand up to
     * 64 GiB, as TensorFlow's GPU host allocator. */
    grt_bfc_provider hp = {host_region_alloc, host_region_free, NULL};
    st = grt_gpu_memory_open_host(grt_gpu_memory_process(), d->physical, &hp, (size_t)64 << 30,
                                  cfg->name, &d->host_memory.account);
  }
  if (st) {
    device_free(&d->base);
    return grt_status_prefix(st, "creating %s", cfg->name);
  }
  grt_bfc_stats held;
  grt_bfc_get_stats(grt_gpu_memory_bfc(d->device_memory.account), &held);
  grt_cuda_describe(&card, &where, held.limit, d->description, sizeof d->description);
  d->device_memory.base = (grt_allocator){cfg->name, account_alloc, account_free};
  d->host_memory.base = (grt_allocator){"pinned host memory", account_alloc, account_free};
  d->base.memory[GRT_MEMORY_DEVICE] = &d->device_memory.base;
  d->base.memory[GRT_MEMORY_HOST] = &d->host_memory.base;
  *out = &d->base;
  return NULL;
}

/* The device mapping's line for GPU cfg->id (grt/backend.h's optional
 * grt_backend_describe): the card's name, PCI bus id, compute capability
 * and the memory this logical GPU may hold. */
__attribute__((visibility("default"))) size_t grt_backend_describe(const grt_device_config* cfg,
                                                                   char* buf, size_t size) {
  grt_gpu_options opts;
  grt_status* st = grt_gpu_options_parse(cfg->options, cfg->n_options, &opts);
  grt_cuda_placement where = grt_cuda_virtual_map(cfg->id, &opts);
  grt_cuda_card card;
  if (!st) st = card_of(where.physical, &card);
  if (st) {
    grt_status_free(st);
    return 0;
  }
  size_t limit = grt_cuda_memory_limit(&where, &opts, card.total_memory);
  return grt_cuda_describe(&card, &where, limit, buf, size);
}
