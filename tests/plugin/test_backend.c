/* A tiny out-of-tree backend for tests: device type "TEST", CPU-like
 * kernels (Identity, Add, Mul, MatMul; variables with Assign and AssignAdd
 * through grt_var_*; Squeeze's list attr; all float32) over its own memory, but
 * with truly asynchronous streams: each stream is a worker thread running
 * queued work in order, with a delay before every copy and kernel. A
 * consumer that does not wait on the right event reads memory the stream has
 * not written yet, so correct results prove the executor's event ordering.
 *
 * It also records streams as CUDA Graphs do (the capture hooks): while a
 * device records, queued work is kept instead of run, holding only raw
 * addresses (no tensor references, as a CUDA graph holds none), and any
 * stream or event sync fails the recording. A replay first checks that
 * every address the recorded work touches lies in memory still allocated
 * from the device, so a recording whose memory the executor let go fails
 * loudly instead of reading freed memory.
 *
 * Its session options (declared below with their check) are a backend's
 * own keys, which the session checks and hands over without knowing this
 * backend: test.copy_delay_us sets the delay before every copy,
 * test.kernel_delay_us the delay before every kernel's arithmetic. A copy
 * that skips its wait for the kernel producing its source reads early only
 * when that kernel takes longer than the copy's own delay, and a consumer
 * that skips its wait for a copy only when the copy takes longer: a test
 * of the ordering runs with each delay the longer one in turn.
 *
 * With GRT_TEST_ALL_REDUCE=1 in the environment when the plugin loads, it
 * also has an all_reduce hook (sum, float32: each member's compute stream
 * synced, then the sum written on the host, as its memory is the host's),
 * so groups on TEST devices run, as a GPU's do; without it a TEST group is
 * refused (the session's check for a backend without collectives).
 *
 * Built as libgrt_backend_test.so; it uses only grt's public headers. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grt/backend.h"
#include "grt/types.h"

/* ---- streams: a worker thread and a FIFO of closures ---------------------- */

/* Work: fn(arg), then free(arg) and the references in `hold`; `touch`
 * lists the addresses fn reads or writes (for a replay's check). */
enum { kHold = 3 };
typedef struct work {
  struct work* next;
  void (*fn)(void* arg);
  void* arg;
  grt_tensor* hold[kHold];
  const void* touch[kHold];
} work;

static void work_free(work* w) {
  for (int i = 0; i < kHold; i++) grt_tensor_free(w->hold[i]);
  free(w->arg);
  free(w);
}

typedef struct {
  grt_stream base;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  work *head, *tail;
  int stop;
} test_stream;

static void pause_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static void* stream_main(void* arg) {
  test_stream* s = arg;
  for (;;) {
    pthread_mutex_lock(&s->mu);
    while (!s->head && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
    work* w = s->head;
    if (!w) {
      pthread_mutex_unlock(&s->mu);
      return NULL;
    }
    s->head = w->next;
    if (!s->head) s->tail = NULL;
    pthread_mutex_unlock(&s->mu);
    w->fn(w->arg);
    work_free(w);
  }
}

/* Whether the device records (takes the work) instead of running it. */
static bool recorded(grt_device* d, work* w);

/* Queues fn(arg) (arg: malloc'd, freed after) holding the references in
 * hold (taken; NULL-padded) over the addresses in touch. On failure arg
 * and the references are freed. */
static grt_status* enqueue_work(grt_stream* gs, void (*fn)(void*), void* arg,
                                grt_tensor* const* hold, const void* const* touch) {
  test_stream* s = (test_stream*)gs;
  work* w = calloc(1, sizeof *w);
  if (!w) {
    for (int i = 0; hold && i < kHold; i++) grt_tensor_free(hold[i]);
    free(arg);
    return grt_status_new(GRT_RESOURCE_EXHAUSTED, "TEST stream: out of memory");
  }
  w->fn = fn;
  w->arg = arg;
  for (int i = 0; i < kHold; i++) {
    w->hold[i] = hold ? hold[i] : NULL;
    w->touch[i] = touch ? touch[i] : NULL;
  }
  if (recorded(gs->device, w)) return NULL;
  pthread_mutex_lock(&s->mu);
  if (s->tail)
    s->tail->next = w;
  else
    s->head = w;
  s->tail = w;
  pthread_cond_signal(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* ---- events: a counter of records and of completions ---------------------- */

/* Queued records and waits hold a reference, so the executor may free an
 * event while a stream still has work that refers to it (CUDA allows that). */
typedef struct {
  grt_event base;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned long recorded, completed;
  int refs;
} test_event;

static void event_unref(test_event* e) {
  pthread_mutex_lock(&e->mu);
  int left = --e->refs;
  pthread_mutex_unlock(&e->mu);
  if (left) return;
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
}

typedef struct {
  test_event* e;
  unsigned long target;
} event_mark;

static void event_complete(void* arg) {
  event_mark* m = arg;
  pthread_mutex_lock(&m->e->mu);
  if (m->e->completed < m->target) m->e->completed = m->target;
  pthread_cond_broadcast(&m->e->cv);
  pthread_mutex_unlock(&m->e->mu);
  event_unref(m->e);
}

static void event_block(void* arg) {
  event_mark* m = arg;
  pthread_mutex_lock(&m->e->mu);
  while (m->e->completed < m->target) pthread_cond_wait(&m->e->cv, &m->e->mu);
  pthread_mutex_unlock(&m->e->mu);
  event_unref(m->e);
}

static grt_status* mark(test_event* e, bool record, event_mark** out) {
  *out = malloc(sizeof **out);
  if (!*out) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "TEST event: out of memory");
  pthread_mutex_lock(&e->mu);
  if (record) e->recorded++;
  e->refs++;
  (*out)->e = e;
  (*out)->target = e->recorded;
  pthread_mutex_unlock(&e->mu);
  return NULL;
}

static bool recording(grt_device* d);

static grt_status* queue_mark(grt_stream* s, grt_event* ge, bool record, void (*fn)(void*)) {
  /* A recording keeps the work of all the device's streams in the order it
   * was queued, which already orders it as the events would. */
  if (recording(s->device)) return NULL;
  event_mark* m;
  grt_status* st = mark((test_event*)ge, record, &m);
  if (st) return st;
  return enqueue_work(s, fn, m, NULL, NULL);
}

static grt_status* stream_record(grt_stream* s, grt_event* ge) {
  return queue_mark(s, ge, true, event_complete);
}

static grt_status* stream_wait(grt_stream* s, grt_event* ge) {
  return queue_mark(s, ge, false, event_block);
}

static grt_status* refuse_sync(grt_device* d);

static grt_status* event_sync(grt_event* ge) {
  if (recording(ge->device)) return refuse_sync(ge->device);
  test_event* e = (test_event*)ge;
  pthread_mutex_lock(&e->mu);
  unsigned long target = e->recorded;
  while (e->completed < target) pthread_cond_wait(&e->cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
  return NULL;
}

static void event_free(grt_event* ge) { event_unref((test_event*)ge); }

static const grt_event_ops kEventOps = {event_sync, event_free};

static grt_status* event_new(grt_device* d, grt_event** out) {
  test_event* e = calloc(1, sizeof *e);
  if (!e) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "TEST event: out of memory");
  e->base.ops = &kEventOps;
  e->base.device = d;
  e->refs = 1;
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  *out = &e->base;
  return NULL;
}

/* ---- copies and sync ------------------------------------------------------ */

typedef struct {
  void* dst;
  const void* src;
  size_t n;
  long delay_us;
} copy_args;

static long copy_delay_us(grt_device* d);

static void do_copy(void* arg) {
  copy_args* c = arg;
  pause_us(c->delay_us);
  memcpy(c->dst, c->src, c->n);
}

static grt_status* stream_memcpy(grt_stream* s, void* dst, const void* src, size_t n) {
  copy_args* c = malloc(sizeof *c);
  if (!c) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "TEST copy: out of memory");
  *c = (copy_args){dst, src, n, copy_delay_us(s->device)};
  const void* touch[kHold] = {dst, src, NULL};
  return enqueue_work(s, do_copy, c, NULL, touch);
}

static grt_status* stream_sync(grt_stream* s) {
  if (recording(s->device)) return refuse_sync(s->device);
  grt_event* e;
  grt_status* st = event_new(s->device, &e);
  if (st) return st;
  st = stream_record(s, e);
  if (!st) st = event_sync(e);
  event_free(e);
  return st;
}

static const grt_stream_ops kStreamOps = {stream_memcpy, stream_record, stream_wait, stream_sync};

/* ---- memory --------------------------------------------------------------- */

/* Counts its bytes (in a 64-byte header) and honours the session's
 * memory_limit, as a GPU backend's allocator would. Live blocks are kept in
 * a list (through the header) so a replay can check its addresses. */
typedef struct mem_block {
  size_t size;
  struct mem_block *prev, *next;
} mem_block;

typedef struct {
  grt_allocator base;
  size_t limit, in_use, peak; /* under mu */
  mem_block live;             /* list head, under mu */
  pthread_mutex_t mu;
} test_allocator;

enum { kMemHeader = 64 };

/* Whether p lies in a block allocated now (caller holds t->mu). */
static bool live_locked(const test_allocator* t, const void* p) {
  for (const mem_block* b = t->live.next; b != &t->live; b = b->next) {
    const char* data = (const char*)b + kMemHeader;
    if ((const char*)p >= data && (const char*)p <= data + b->size) return true;
  }
  return false;
}

static void* mem_alloc(grt_allocator* a, size_t size, size_t alignment) {
  test_allocator* t = (test_allocator*)a;
  if (alignment > kMemHeader || size > SIZE_MAX - kMemHeader) return NULL;
  pthread_mutex_lock(&t->mu);
  bool over = t->limit && (size > t->limit || t->in_use > t->limit - size);
  if (!over) t->in_use += size;
  if (t->in_use > t->peak) t->peak = t->in_use;
  pthread_mutex_unlock(&t->mu);
  if (over) {
    /* Says why, as a GPU backend's allocator names its state. */
    grt_allocator_fail_reason(grt_status_new(GRT_RESOURCE_EXHAUSTED,
                                             "asked for %zu bytes, in use %zu of limit %zu", size,
                                             t->in_use, t->limit));
    return NULL;
  }
  void* p = NULL;
  if (posix_memalign(&p, kMemHeader, size + kMemHeader) != 0) {
    pthread_mutex_lock(&t->mu);
    t->in_use -= size;
    pthread_mutex_unlock(&t->mu);
    return NULL;
  }
  mem_block* b = p;
  b->size = size;
  pthread_mutex_lock(&t->mu);
  b->prev = &t->live;
  b->next = t->live.next;
  t->live.next->prev = b;
  t->live.next = b;
  pthread_mutex_unlock(&t->mu);
  return (char*)p + kMemHeader;
}

static void mem_free(grt_allocator* a, void* ptr) {
  if (!ptr) return;
  test_allocator* t = (test_allocator*)a;
  mem_block* b = (mem_block*)((char*)ptr - kMemHeader);
  pthread_mutex_lock(&t->mu);
  t->in_use -= b->size;
  b->prev->next = b->next;
  b->next->prev = b->prev;
  pthread_mutex_unlock(&t->mu);
  free(b);
}

/* ---- kernels: outputs now, arithmetic queued on the compute stream --------- */

typedef struct {
  int op; /* 0 Add, 1 Mul, 2 MatMul */
  const float* a;
  const float* b;
  float* out;
  int64_t m, k, n, count;
  bool ta, tb;
  long delay_us;
} math_args;

static long kernel_delay_us(grt_device* d);

static void do_math(void* arg) {
  math_args* m = arg;
  pause_us(m->delay_us);
  const float* a = m->a;
  const float* b = m->b;
  float* o = m->out;
  if (m->op == 2) {
    for (int64_t i = 0; i < m->m; i++)
      for (int64_t j = 0; j < m->n; j++) {
        float acc = 0;
        for (int64_t p = 0; p < m->k; p++) {
          float x = m->ta ? a[p * m->m + i] : a[i * m->k + p];
          float y = m->tb ? b[j * m->k + p] : b[p * m->n + j];
          acc += x * y;
        }
        o[i * m->n + j] = acc;
      }
  } else {
    for (int64_t i = 0; i < m->count; i++) o[i] = m->op == 0 ? a[i] + b[i] : a[i] * b[i];
  }
}

static grt_status* launch_math(grt_kernel_ctx* ctx, math_args* m, const grt_shape* shape) {
  grt_tensor* out;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, shape, &out);
  if (st) {
    free(m);
    return st;
  }
  m->a = grt_tensor_data(ctx->inputs[0]);
  m->b = grt_tensor_data(ctx->inputs[1]);
  m->out = grt_tensor_data(out);
  m->count = grt_tensor_num_elements(out);
  m->delay_us = kernel_delay_us(ctx->stream->device);
  grt_tensor* hold[kHold] = {grt_tensor_ref(ctx->inputs[0]), grt_tensor_ref(ctx->inputs[1]),
                             grt_tensor_ref(out)};
  const void* touch[kHold] = {m->a, m->b, m->out};
  return enqueue_work(ctx->stream, do_math, m, hold, touch);
}

/* Below, beside the device: inputs_on_device. */
static grt_status* inputs_on_device(grt_kernel_ctx* ctx, const char* op);

static grt_status* elementwise(grt_kernel_ctx* ctx, int op) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  grt_status* where = inputs_on_device(ctx, op ? "Mul" : "Add");
  if (where) return where;
  int32_t r = grt_tensor_rank(a);
  if (r != grt_tensor_rank(b) || r > GRT_MAX_RANK)
    return grt_status_new(GRT_INVALID_ARGUMENT, "TEST kernels need inputs of one shape");
  grt_shape shape = {r, {0}};
  for (int32_t i = 0; i < r; i++) {
    shape.dims[i] = grt_tensor_dim(a, i);
    if (shape.dims[i] != grt_tensor_dim(b, i))
      return grt_status_new(GRT_INVALID_ARGUMENT, "TEST kernels need inputs of one shape");
  }
  math_args* m = calloc(1, sizeof *m);
  if (!m) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  m->op = op;
  return launch_math(ctx, m, &shape);
}

static grt_status* add_compute(grt_kernel_ctx* ctx) { return elementwise(ctx, 0); }
static grt_status* mul_compute(grt_kernel_ctx* ctx) { return elementwise(ctx, 1); }

static grt_status* matmul_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  bool ta = false, tb = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "transpose_a", &ta);
  if (!st) st = grt_kernel_attr_bool(ctx, "transpose_b", &tb);
  if (st) return st;
  if (grt_tensor_rank(a) != 2 || grt_tensor_rank(b) != 2)
    return grt_status_new(GRT_INVALID_ARGUMENT, "MatMul needs matrices");
  int64_t m = grt_tensor_dim(a, ta ? 1 : 0), k = grt_tensor_dim(a, ta ? 0 : 1);
  int64_t k2 = grt_tensor_dim(b, tb ? 1 : 0), n = grt_tensor_dim(b, tb ? 0 : 1);
  if (k != k2) return grt_status_new(GRT_INVALID_ARGUMENT, "MatMul: inner sizes differ");
  math_args* args = calloc(1, sizeof *args);
  if (!args) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  *args = (math_args){2, NULL, NULL, NULL, m, k, n, 0, ta, tb};
  grt_shape shape = {2, {m, n}};
  return launch_math(ctx, args, &shape);
}

static grt_status* identity_compute(grt_kernel_ctx* ctx) {
  grt_kernel_set_output(ctx, 0, ctx->inputs[0]);
  return NULL;
}

/* ---- variables and a list(int) attr through the public API ---------------- */

typedef struct {
  float* dst;
  const float* src;
  int64_t n;
  bool add;
  long delay_us;
} update_args;

static void do_update(void* arg) {
  update_args* u = arg;
  pause_us(u->delay_us);
  for (int64_t i = 0; i < u->n; i++) u->dst[i] = u->add ? u->dst[i] + u->src[i] : u->src[i];
}

/* dst = src (or dst += src) on the compute stream. */
static grt_status* queue_update(grt_kernel_ctx* ctx, grt_tensor* dst, grt_tensor* src, bool add) {
  update_args* u = malloc(sizeof *u);
  if (!u) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  *u = (update_args){grt_tensor_data(dst), grt_tensor_data(src), grt_tensor_num_elements(dst), add,
                     kernel_delay_us(ctx->stream->device)};
  grt_tensor* hold[kHold] = {grt_tensor_ref(dst), grt_tensor_ref(src), NULL};
  const void* touch[kHold] = {u->dst, u->src, NULL};
  return enqueue_work(ctx->stream, do_update, u, hold, touch);
}

static grt_shape shape_of(const grt_tensor* t) {
  grt_shape s = {grt_tensor_rank(t), {0}};
  for (int32_t i = 0; i < s.rank; i++) s.dims[i] = grt_tensor_dim(t, i);
  return s;
}

static grt_status* variable_compute(grt_kernel_ctx* ctx) {
  ctx->output_refs[0] = ctx->state;
  return NULL;
}

static grt_status* assign_compute(grt_kernel_ctx* ctx) {
  grt_var* v = ctx->input_refs ? ctx->input_refs[0] : NULL;
  if (!v) return grt_status_new(GRT_INTERNAL, "input 0 is not a variable");
  bool validate = true;
  grt_status* st = grt_kernel_attr_bool(ctx, "validate_shape", &validate);
  if (st) return st;
  grt_shape s = shape_of(ctx->inputs[1]);
  grt_tensor* fresh;
  st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &s, &fresh);
  if (st) return st;
  st = queue_update(ctx, fresh, ctx->inputs[1], false);
  if (st) {
    grt_tensor_free(fresh);
    return st;
  }
  st = grt_var_assign(ctx, v, fresh, validate);
  if (!st) ctx->output_refs[0] = v;
  return st;
}

static grt_status* assign_add_compute(grt_kernel_ctx* ctx) {
  grt_var* v = ctx->input_refs ? ctx->input_refs[0] : NULL;
  if (!v) return grt_status_new(GRT_INTERNAL, "input 0 is not a variable");
  grt_tensor* x = grt_var_value(v, false);
  if (!x)
    return grt_status_new(GRT_FAILED_PRECONDITION, "Attempting to use uninitialized value %s",
                          grt_var_name(v));
  grt_status* st = NULL;
  if (grt_tensor_num_elements(x) != grt_tensor_num_elements(ctx->inputs[1]))
    st = grt_status_new(GRT_INVALID_ARGUMENT, "AssignAdd: shapes differ");
  else
    st = queue_update(ctx, x, ctx->inputs[1], true);
  grt_tensor_free(x);
  if (!st) ctx->output_refs[0] = v;
  return st;
}

static grt_status* squeeze_compute(grt_kernel_ctx* ctx) {
  const int64_t* axes;
  int32_t n_axes;
  grt_status* st = grt_kernel_attr_int_list(ctx, "squeeze_dims", &axes, &n_axes);
  if (st) return st;
  grt_shape in = shape_of(ctx->inputs[0]), out = {0, {0}};
  for (int32_t d = 0; d < in.rank; d++) {
    bool listed = n_axes == 0 && in.dims[d] == 1;
    for (int32_t k = 0; k < n_axes; k++) listed |= axes[k] == d || axes[k] + in.rank == d;
    if (listed && in.dims[d] != 1)
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "Can not squeeze dim[%d], expected a dimension "
                            "of 1, got %lld",
                            (int)d, (long long)in.dims[d]);
    if (!listed) out.dims[out.rank++] = in.dims[d];
  }
  grt_tensor* t;
  st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &out, &t);
  return st ? st : queue_update(ctx, t, ctx->inputs[0], false);
}

/* Const and Reshape, the memory-type checks: below the device. */
static grt_status* const_compute(grt_kernel_ctx* ctx);
static grt_status* reshape_compute(grt_kernel_ctx* ctx);

/* NcclAllReduce has a row and a kernel here but the backend no all_reduce
 * hook: the session refuses a group on TEST devices (and one mixing TEST
 * and CPU) when the run is built, and never calls this. */
static grt_status* nccl_all_reduce_compute(grt_kernel_ctx* ctx) {
  return grt_status_new(GRT_INTERNAL, "TEST: NcclAllReduce runs only as a group");
}

static const grt_op_kernel kKernels[] = {
    {"NcclAllReduce", nccl_all_reduce_compute, NULL, NULL, 0},
    {"VariableV2", variable_compute, grt_var_state_new, grt_var_state_free, 0},
    {"Assign", assign_compute, NULL, NULL, 0},
    {"AssignAdd", assign_add_compute, NULL, NULL, 0},
    {"Squeeze", squeeze_compute, NULL, NULL, 0},
    {"Add", add_compute, NULL, NULL, 0},
    {"Mul", mul_compute, NULL, NULL, 0},
    {"MatMul", matmul_compute, NULL, NULL, 0},
    {"Identity", identity_compute, NULL, NULL, 0},
    {"Const", const_compute, NULL, NULL, 0},
    {"Reshape", reshape_compute, NULL, NULL, 0},
};

static const grt_op_kernel* kernel(const char* op) {
  for (size_t i = 0; i < sizeof kKernels / sizeof kKernels[0]; i++)
    if (strcmp(kKernels[i].op, op) == 0) return &kKernels[i];
  return NULL;
}

static const grt_kernel_spec kRows[] = {
    {"Add", "TEST", "T: {float32}", "", 0},
    {"Mul", "TEST", "T: {float32}", "", 0},
    {"MatMul", "TEST", "T: {float32}", "", 0},
    {"Identity", "TEST", "T: {float32}", "", 0},
    {"VariableV2", "TEST", "dtype: {float32}", "", 0},
    {"Assign", "TEST", "T: {float32}", "", 0},
    {"AssignAdd", "TEST", "T: {float32}", "", 0},
    {"Squeeze", "TEST", "T: {float32}", "", 0},
    {"NcclAllReduce", "TEST", "T: {float32}", "", 0},
    /* Below the CPU's priority, and int64 only for Const: an unpinned
     * Const or Reshape, and every float32 Const, stays on the CPU, as in
     * the tests written before these rows. */
    {"Const", "TEST", "dtype: {int64}", "", -1},
    {"Reshape", "TEST", "T: {float32}; Tshape: {int32, int64}", "shape", -1},
};

/* ---- the device ------------------------------------------------------------ */

typedef struct {
  grt_device base;
  test_allocator memory;
  /* test.separate_host_memory: host memory from an allocator of its own. */
  test_allocator host_memory;
  bool separate_host;
  test_stream streams[GRT_NUM_STREAM_KINDS];
  /* Recording (capture hooks), under cap_mu. */
  pthread_mutex_t cap_mu;
  bool capturing, cap_failed;
  work *rec_head, *rec_tail;
  long copy_delay_us;   /* session option test.copy_delay_us */
  long kernel_delay_us; /* session option test.kernel_delay_us */
} test_device;

static long copy_delay_us(grt_device* d) { return ((test_device*)d)->copy_delay_us; }
static long kernel_delay_us(grt_device* d) { return ((test_device*)d)->kernel_delay_us; }

/* Const and Reshape: the memory-type checks. With the session option
 * test.separate_host_memory a TEST device keeps host memory in an allocator
 * of its own (as a GPU's pinned memory is apart from its device memory);
 * Reshape's row wants its shape in host memory and its kernel checks that
 * the pointer it was given lies there, so a run that hands it device memory
 * (a Const's output made in device memory) fails instead of reading it. */
typedef struct {
  void* dst;
  const void* src;
  size_t n;
} bytes_args;

static void do_bytes(void* arg) {
  bytes_args* b = arg;
  memcpy(b->dst, b->src, b->n);
}

static grt_status* const_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* v;
  grt_status* st = grt_kernel_attr_tensor(ctx, "value", &v);
  if (st) return st;
  grt_shape s = shape_of(v);
  grt_tensor* out;
  st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(v), &s, &out);
  size_t n = grt_tensor_byte_size(v);
  if (st || !n) return st;
  if (ctx->host_outputs & 1) {
    memcpy(grt_tensor_data(out), grt_tensor_data(v), n);
    return NULL;
  }
  bytes_args* b = malloc(sizeof *b);
  if (!b) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  *b = (bytes_args){grt_tensor_data(out), grt_tensor_data(v), n};
  /* v lives as long as the graph, which outlives the run's queued work. */
  grt_tensor* hold[kHold] = {grt_tensor_ref(out), NULL, NULL};
  const void* touch[kHold] = {b->dst, NULL, NULL};
  return enqueue_work(ctx->stream, do_bytes, b, hold, touch);
}

static bool in_memory(test_allocator* t, const void* p) {
  pthread_mutex_lock(&t->mu);
  bool in = live_locked(t, p);
  pthread_mutex_unlock(&t->mu);
  return in;
}

/* With test.separate_host_memory, a device's Add and Mul read only its
 * device memory, as a GPU's kernels can: an input left in host memory (a
 * copy the executor forgot) fails instead of being read. */
static grt_status* inputs_on_device(grt_kernel_ctx* ctx, const char* op) {
  test_device* d = (test_device*)ctx->stream->device;
  for (int32_t k = 0; d->separate_host && k < ctx->n_inputs; k++)
    if (grt_tensor_num_elements(ctx->inputs[k]) > 0 &&
        !in_memory(&d->memory, grt_tensor_data(ctx->inputs[k])))
      return grt_status_new(GRT_INTERNAL, "TEST %s: input %d is not in the device's memory", op,
                            (int)k);
  return NULL;
}

static grt_status* reshape_compute(grt_kernel_ctx* ctx) {
  test_device* d = (test_device*)ctx->stream->device;
  const grt_tensor* sh = ctx->inputs[1];
  if (d->separate_host && !in_memory(&d->host_memory, grt_tensor_data(sh)))
    return grt_status_new(GRT_INTERNAL, "TEST Reshape: its shape argument is not in host memory");
  grt_shape out = {(int32_t)grt_tensor_num_elements(sh), {0}};
  if (grt_tensor_rank(sh) != 1 || out.rank > GRT_MAX_RANK)
    return grt_status_new(GRT_INVALID_ARGUMENT, "TEST Reshape: shape must be a short vector");
  int64_t known = 1, unknown = -1, n = grt_tensor_num_elements(ctx->inputs[0]);
  for (int32_t i = 0; i < out.rank; i++) {
    out.dims[i] = grt_tensor_dtype(sh) == GRT_INT32 ? ((const int32_t*)grt_tensor_data(sh))[i]
                                                    : ((const int64_t*)grt_tensor_data(sh))[i];
    if (out.dims[i] == -1)
      unknown = i;
    else
      known *= out.dims[i];
  }
  if (unknown >= 0 && known > 0) out.dims[unknown] = n / known;
  grt_tensor* t;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &out, &t);
  if (!st && grt_tensor_num_elements(t) != n) {
    grt_tensor_free(t);
    return grt_status_new(GRT_INVALID_ARGUMENT, "TEST Reshape: %lld elements do not fit the shape",
                          (long long)n);
  }
  return st ? st : queue_update(ctx, t, ctx->inputs[0], false);
}

/* ---- recording and replay --------------------------------------------------- */

struct grt_captured {
  work* head;
};

static bool recording(grt_device* gd) {
  test_device* d = (test_device*)gd;
  pthread_mutex_lock(&d->cap_mu);
  bool on = d->capturing;
  pthread_mutex_unlock(&d->cap_mu);
  return on;
}

static bool recorded(grt_device* gd, work* w) {
  test_device* d = (test_device*)gd;
  pthread_mutex_lock(&d->cap_mu);
  bool on = d->capturing;
  if (on) {
    if (d->rec_tail)
      d->rec_tail->next = w;
    else
      d->rec_head = w;
    d->rec_tail = w;
  }
  pthread_mutex_unlock(&d->cap_mu);
  /* A recording holds addresses only: the memory is the caller's to keep. */
  for (int i = 0; on && i < kHold; i++) {
    grt_tensor_free(w->hold[i]);
    w->hold[i] = NULL;
  }
  return on;
}

static grt_status* refuse_sync(grt_device* gd) {
  test_device* d = (test_device*)gd;
  pthread_mutex_lock(&d->cap_mu);
  d->cap_failed = true;
  pthread_mutex_unlock(&d->cap_mu);
  return grt_status_new(GRT_FAILED_PRECONDITION, "TEST: a stream or event sync while %s records",
                        gd->name);
}

static void free_works(work* w) {
  while (w) {
    work* next = w->next;
    work_free(w);
    w = next;
  }
}

static bool capturable(grt_device* d, const grt_op_kernel* k, const char** why) {
  if (strcmp(k->op, "Assign") == 0) {
    *why = "gives the variable a new tensor on each call";
    return false;
  }
  if (strcmp(k->op, "NcclAllReduce") == 0) {
    *why = "runs only as a group";
    return false;
  }
  return true;
}

static grt_status* capture_begin(grt_device* gd) {
  test_device* d = (test_device*)gd;
  pthread_mutex_lock(&d->cap_mu);
  bool busy = d->capturing;
  if (!busy) {
    d->capturing = true;
    d->cap_failed = false;
    d->rec_head = d->rec_tail = NULL;
  }
  pthread_mutex_unlock(&d->cap_mu);
  if (busy) return grt_status_new(GRT_FAILED_PRECONDITION, "TEST: %s records already", gd->name);
  return NULL;
}

static grt_status* capture_end(grt_device* gd, grt_captured** out) {
  test_device* d = (test_device*)gd;
  *out = NULL;
  pthread_mutex_lock(&d->cap_mu);
  work* head = d->rec_head;
  bool failed = d->cap_failed;
  d->capturing = false;
  d->rec_head = d->rec_tail = NULL;
  pthread_mutex_unlock(&d->cap_mu);
  /* A test may have every recording refused, as a device can. */
  const char* refuse = getenv("GRT_TEST_REFUSE_RECORDING");
  failed |= refuse && strcmp(refuse, "1") == 0;
  grt_captured* g = failed ? NULL : malloc(sizeof *g);
  if (!g) {
    free_works(head);
    return grt_status_new(failed ? GRT_FAILED_PRECONDITION : GRT_RESOURCE_EXHAUSTED,
                          "TEST: the recording on %s failed", gd->name);
  }
  g->head = head;
  *out = g;
  return NULL;
}

typedef struct {
  grt_captured* g;
} replay_args;

static void do_replay(void* arg) {
  for (work* w = ((replay_args*)arg)->g->head; w; w = w->next) w->fn(w->arg);
}

static grt_status* replay(grt_device* gd, grt_captured* g) {
  test_device* d = (test_device*)gd;
  pthread_mutex_lock(&d->memory.mu);
  const void* dead = NULL;
  for (work* w = g->head; w && !dead; w = w->next)
    for (int i = 0; i < kHold && !dead; i++)
      if (w->touch[i] && !live_locked(&d->memory, w->touch[i])) dead = w->touch[i];
  pthread_mutex_unlock(&d->memory.mu);
  if (dead)
    return grt_status_new(GRT_INTERNAL,
                          "TEST: the recording on %s touches %p, memory no longer "
                          "allocated",
                          gd->name, dead);
  replay_args* a = malloc(sizeof *a);
  if (!a) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "TEST replay: out of memory");
  a->g = g;
  return enqueue_work(gd->streams[GRT_STREAM_COMPUTE], do_replay, a, NULL, NULL);
}

static void captured_free(grt_device* d, grt_captured* g) {
  if (!g) return;
  free_works(g->head);
  free(g);
}

static void device_free(grt_device* gd) {
  test_device* d = (test_device*)gd;
  for (int k = 0; k < GRT_NUM_STREAM_KINDS; k++) {
    test_stream* s = &d->streams[k];
    if (!s->base.ops) continue;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
  }
  pthread_mutex_destroy(&d->memory.mu);
  if (d->separate_host) pthread_mutex_destroy(&d->host_memory.mu);
  pthread_mutex_destroy(&d->cap_mu);
  free_works(d->rec_head);
  free(d);
}

static void memory_stats(grt_device* gd, grt_memory_kind kind, size_t* in_use, size_t* peak) {
  test_device* d = (test_device*)gd;
  test_allocator* t = kind == GRT_MEMORY_HOST && d->separate_host ? &d->host_memory : &d->memory;
  pthread_mutex_lock(&t->mu);
  *in_use = t->in_use;
  *peak = t->peak;
  pthread_mutex_unlock(&t->mu);
}

static const grt_device_ops kDeviceOps = {
    .free = device_free,
    .event_new = event_new,
    .memory_stats = memory_stats,
    .capturable = capturable,
    .capture_begin = capture_begin,
    .capture_end = capture_end,
    .replay = replay,
    .captured_free = captured_free,
};

/* ---- options -------------------------------------------------------------- */

enum { kOptCopyDelay = 0, kOptKernelDelay = 1, kOptSeparateHost = 2, kNumOpts = 3 };

static grt_status* parse_bool(const char* v, bool* out) {
  if (strcmp(v, "true") && strcmp(v, "false"))
    return grt_status_new(GRT_INVALID_ARGUMENT, "'%s' is not true or false", v);
  *out = strcmp(v, "true") == 0;
  return NULL;
}

static grt_status* check_bool(const char* v) {
  bool b;
  return parse_bool(v, &b);
}

static grt_status* parse_delay(const char* v, long* out) {
  char* end;
  errno = 0;
  long us = strtol(v, &end, 10);
  if (!*v || *end || errno || us < 0 || us > 1000000)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "'%s' is not a number of microseconds in [0, 1000000]", v);
  *out = us;
  return NULL;
}

static grt_status* check_delay(const char* v) {
  long us;
  return parse_delay(v, &us);
}

static const grt_backend_option kOptionList[kNumOpts] = {
    [kOptCopyDelay] = {"copy_delay_us", "integer 0 to 1000000", "300",
                       "microseconds a TEST stream waits before each copy", check_delay},
    [kOptKernelDelay] = {"kernel_delay_us", "integer 0 to 1000000", "200",
                         "microseconds a TEST stream waits before each kernel's arithmetic",
                         check_delay},
    [kOptSeparateHost] = {"separate_host_memory", "bool", "false",
                          "host memory from an allocator apart from device memory", check_bool},
};
static const grt_backend_options kOptions = {kOptionList, kNumOpts, NULL};

static grt_status* device_new(const grt_device_config* cfg, grt_device** out) {
  *out = NULL;
  long delay = 300, kernel_delay = 200;
  if (cfg->n_options > kOptCopyDelay) {
    grt_status* st = parse_delay(cfg->options[kOptCopyDelay], &delay);
    if (st) return grt_status_prefix(st, "%s: option test.copy_delay_us", cfg->name);
  }
  if (cfg->n_options > kOptKernelDelay) {
    grt_status* st = parse_delay(cfg->options[kOptKernelDelay], &kernel_delay);
    if (st) return grt_status_prefix(st, "%s: option test.kernel_delay_us", cfg->name);
  }
  bool separate = false;
  if (cfg->n_options > kOptSeparateHost) {
    grt_status* st = parse_bool(cfg->options[kOptSeparateHost], &separate);
    if (st) return grt_status_prefix(st, "%s: option test.separate_host_memory", cfg->name);
  }
  test_device* d = calloc(1, sizeof *d);
  if (!d) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  d->copy_delay_us = delay;
  d->separate_host = separate;
  d->kernel_delay_us = kernel_delay;
  d->base.ops = &kDeviceOps;
  d->base.name = cfg->name;
  d->base.id = cfg->id;
  d->base.host_addressable = false;
  d->memory.base = (grt_allocator){"TEST", mem_alloc, mem_free};
  d->memory.limit = cfg->memory_limit > 0 ? (size_t)cfg->memory_limit : 0;
  pthread_mutex_init(&d->memory.mu, NULL);
  d->memory.live.prev = d->memory.live.next = &d->memory.live;
  pthread_mutex_init(&d->cap_mu, NULL);
  d->base.memory[GRT_MEMORY_DEVICE] = &d->memory.base;
  d->base.memory[GRT_MEMORY_HOST] = &d->memory.base;
  if (separate) {
    d->host_memory.base = (grt_allocator){"TEST host", mem_alloc, mem_free};
    pthread_mutex_init(&d->host_memory.mu, NULL);
    d->host_memory.live.prev = d->host_memory.live.next = &d->host_memory.live;
    d->base.memory[GRT_MEMORY_HOST] = &d->host_memory.base;
  }
  for (int k = 0; k < GRT_NUM_STREAM_KINDS; k++) {
    test_stream* s = &d->streams[k];
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->thread, NULL, stream_main, s) != 0) {
      pthread_mutex_destroy(&s->mu);
      pthread_cond_destroy(&s->cv);
      device_free(&d->base);
      return grt_status_new(GRT_RESOURCE_EXHAUSTED, "TEST: cannot start a stream thread");
    }
    s->base = (grt_stream){&kStreamOps, &d->base, (grt_stream_kind)k, false};
    d->base.streams[k] = &s->base;
  }
  *out = &d->base;
  return NULL;
}

static int32_t probe(char* why, size_t why_size) { return 2; }

static grt_status* all_reduce(const grt_all_reduce_args* a) {
  if (a->reduction != GRT_REDUCE_SUM)
    return grt_status_new(GRT_UNIMPLEMENTED, "TEST all-reduce '%s': sum only", a->shared_name);
  for (int32_t k = 0; k < a->n; k++) {
    if (grt_tensor_dtype(a->inputs[k]) != GRT_FLOAT32)
      return grt_status_new(GRT_UNIMPLEMENTED, "TEST all-reduce '%s': float32 only",
                            a->shared_name);
    grt_status* st = stream_sync(a->devices[k]->streams[GRT_STREAM_COMPUTE]);
    if (st) return st;
  }
  int64_t n = grt_tensor_num_elements(a->inputs[0]);
  float* first = grt_tensor_data(a->outputs[0]);
  for (int64_t i = 0; i < n; i++) {
    float sum = 0;
    for (int32_t k = 0; k < a->n; k++) sum += ((const float*)grt_tensor_data(a->inputs[k]))[i];
    first[i] = sum;
  }
  for (int32_t k = 1; k < a->n; k++)
    memcpy(grt_tensor_data(a->outputs[k]), first, (size_t)n * sizeof(float));
  return NULL;
}

static const grt_backend kBackend = {
    .api_version = GRT_BACKEND_API_VERSION,
    .type = "TEST",
    .priority = 150,
    .rows = kRows,
    .n_rows = (int32_t)(sizeof kRows / sizeof kRows[0]),
    .probe = probe,
    .device_new = device_new,
    .kernel = kernel,
    .options = &kOptions,
};

static grt_backend g_with_all_reduce;

__attribute__((visibility("default"))) const grt_backend* grt_backend_entry(
    uint32_t host_api_version) {
  const char* on = getenv("GRT_TEST_ALL_REDUCE");
  if (!on || strcmp(on, "1") != 0) return &kBackend;
  g_with_all_reduce = kBackend;
  g_with_all_reduce.all_reduce = all_reduce;
  return &g_with_all_reduce;
}
