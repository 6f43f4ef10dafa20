/* The device's cuDNN handle (cudnn_handle.h). Made on first use so a
 * session that runs no convolution never loads cuDNN's engines. Checked on an H200
 * by the GPU suite. */
#include "cudnn_handle.h"

#include <stdlib.h>

#include "cuda_lib_search.h"

#define GRT_STR_(x) #x
#define GRT_STR(x) GRT_STR_(x)

grt_cudnn_api grt_cudnn;

#define CUDNN_ROW(field, symbol) GRT_LAZY_ROW(grt_cudnn_api, field, symbol)
static const grt_lazy_symbol kCudnnSymbols[] = {GRT_CUDNN_CALLS(CUDNN_ROW)};

/* The soname of the cuDNN these headers declare. */
static const char* const kCudnnNames[] = {"libcudnn.so." GRT_STR(CUDNN_MAJOR), NULL};
/* cuDNN 9 opens its engines by soname on first use; from a wheel's folder
 * they are opened first so that finds them. */
#define CUDNN_SUB(name) "libcudnn_" name ".so." GRT_STR(CUDNN_MAJOR)
static const char* const kCudnnCompanions[] = {CUDNN_SUB("graph"),
                                               CUDNN_SUB("ops"),
                                               CUDNN_SUB("cnn"),
                                               CUDNN_SUB("heuristic"),
                                               CUDNN_SUB("engines_precompiled"),
                                               CUDNN_SUB("engines_runtime_compiled"),
                                               NULL};
static const char* const kCudnnPackages[] = {"nvidia/cudnn/lib", "nvidia/cu13/lib", NULL};

static grt_lazy_lib g_cudnn = {
    .what = "cuDNN",
    .sonames = kCudnnNames,
    .symbols = kCudnnSymbols,
    .n_symbols = sizeof kCudnnSymbols / sizeof kCudnnSymbols[0],
    .table = &grt_cudnn,
    GRT_CUDA_LIB_SEARCH(kCudnnPackages, kCudnnCompanions),
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

grt_status* grt_cudnn_open(const char* needed_for) {
  return grt_lazy_lib_open(&g_cudnn, needed_for);
}

grt_status* grt_cudnn_error(cudnnStatus_t st, const char* what) {
  if (st == CUDNN_STATUS_SUCCESS) return NULL;
  grt_code code = st == CUDNN_STATUS_ALLOC_FAILED ? GRT_RESOURCE_EXHAUSTED : GRT_INTERNAL;
  return grt_status_new(code, "%s: %s", what, grt_cudnn.GetErrorString(st));
}

/* What d->dnn points to: the handle and the cache of choices made with it. */
typedef struct {
  cudnnHandle_t h;
  grt_dnn_cache* cache;
} dnn_state;

/* Distinct convolutions a device keeps the choices of; TensorFlow keeps
 * every one, but a process that sees ever new shapes should not grow. */
enum { kCacheEntries = 1024 };

static void free_cached(void* v) {
  grt_cudnn_cached* c = (grt_cudnn_cached*)v;
  c->destroy(c);
}

static void destroy(void* p) {
  dnn_state* s = (dnn_state*)p;
  grt_dnn_cache_free(s->cache); /* descriptors first, while cuDNN is open */
  grt_cudnn.Destroy(s->h);
  free(s);
}

grt_status* grt_cudnn_acquire(cuda_device* d, cudnnHandle_t* out) {
  pthread_mutex_lock(&d->dnn_mu);
  if (!d->dnn) {
    dnn_state* s = calloc(1, sizeof *s);
    grt_status* st =
        s ? NULL : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of host memory for cuDNN's state");
    if (!st) st = grt_cudnn_open("a convolution");
    if (!st) st = grt_dnn_cache_new(kCacheEntries, free_cached, &s->cache);
    if (!st) st = grt_cudnn_error(grt_cudnn.Create(&s->h), "cudnnCreate");
    if (!st)
      st = grt_cudnn_error(grt_cudnn.SetStream(s->h, d->streams[GRT_STREAM_COMPUTE].s),
                           "cudnnSetStream");
    if (st) {
      if (s && s->h) grt_cudnn.Destroy(s->h);
      if (s) grt_dnn_cache_free(s->cache);
      free(s);
      pthread_mutex_unlock(&d->dnn_mu);
      return st;
    }
    d->dnn = s;
    d->dnn_free = destroy;
  }
  *out = ((dnn_state*)d->dnn)->h;
  return NULL;
}

grt_dnn_cache* grt_cudnn_cache(cuda_device* d) { return ((dnn_state*)d->dnn)->cache; }

void grt_cudnn_release(cuda_device* d) { pthread_mutex_unlock(&d->dnn_mu); }
