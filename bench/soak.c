/* Soak benchmark: many host threads on one session for a long time, with
 * cancellations and deadline misses mixed in, as a host that embeds grt
 * runs it. Prints runs done, errors by kind, and the process's resident
 * memory after warm-up and at the end (goal: flat within 1%, no error but
 * the injected ones). Not a test: people run it on purpose.
 *
 *   soak [--seconds S] [--threads N] [--warmup S]   (defaults 600, 8, 60)
 *   bazel run -c opt //bench:soak -- --seconds 120
 *
 * Each thread picks at random among:
 *   mlp      x[B,64] -> MatMul -> Relu -> MatMul -> Softmax, B random;
 *            checks every row sums to 1
 *   chain    30 elementwise ops over [128,128]; checks the known result
 *   draw     Sum(RandomUniform([r, c])), r and c random; checks the mean
 *   callable the mlp through a callable made once
 *   counter  AssignAdd on a variable (target), then reads it
 *   deadline a draw too big for its 1 ms timeout: DEADLINE_EXCEEDED expected
 * while one more thread calls grt_session_cancel every 20-200 ms: a run that
 * returns CANCELLED is an injected error. Anything else is unexpected.
 *
 * RSS is read at quiet points: every 10% of the run the workers finish the
 * run they are in and wait, so the figure holds what stays between runs
 * (variables, caches, leaks), not the tensors of runs in flight. It is read
 * twice: as it is (with the CPU allocator's free lists, which follow the
 * recent working set and decay, so it moves by a few percent either way),
 * and after grt_release_memory, which leaves what grt keeps for good plus
 * malloc's own state. The warm-up is long enough for glibc's per-thread
 * caches (tcache) and arenas to fill: with GLIBC_TUNABLES=
 * glibc.malloc.tcache_count=0 malloc's in-use bytes stay flat from the
 * start, without it they creep for many minutes towards a bound (each
 * thread's cache keeps up to 7 freed chunks of each of 64 sizes, so up to
 * ~230 KiB a thread, filled as rarer sizes come by). The tunables in
 * effect are printed first.
 * The grt heap figure (grt_heap_used) is every byte grt holds, tensors and
 * bookkeeping: after grt_release_memory it must not grow at all. */
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grt/grt.h"

enum { kMaxThreads = 64, kChain = 30 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What malloc holds (all arenas): from the system, in use, free inside it,
 * and how many arenas there are (malloc_info's <heap> elements). */
typedef struct {
  long system_kib, in_use_kib, free_kib, mmap_kib;
  int arenas;
} malloc_figures;

static malloc_figures malloc_now(void) {
  malloc_figures m = {0};
  struct mallinfo2 mi = mallinfo2();
  m.system_kib = (long)(mi.arena / 1024);
  m.mmap_kib = (long)(mi.hblkhd / 1024);
  m.in_use_kib = (long)(mi.uordblks / 1024);
  m.free_kib = (long)(mi.fordblks / 1024);
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (f) {
    malloc_info(0, f);
    fclose(f);
    for (char* at = buf; at && (at = strstr(at, "<heap nr=")); at++) m.arenas++;
    free(buf);
  }
  return m;
}

static void die(grt_status* s, const char* what) {
  if (!s) return;
  fprintf(stderr, "soak: %s: %s\n", what, grt_status_message(s));
  exit(1);
}

/* The graph: the mlp, the chain, the draw and the counter side by side. */
static char* graph_text(void) {
  size_t cap = 1 << 16, len = 0;
  char* t = malloc(cap);
#define PUT(...) len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__)
  PUT("{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": [\n");
  PUT("{\"name\": \"x\", \"op\": \"Placeholder\", \"attrs\": {\"dtype\": \"float32\", \"shape\": "
      "[-1, 64]}},\n");
  PUT("{\"name\": \"w1\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": "
      "{\"dtype\": \"float32\", \"shape\": [64, 64], \"values\": [0.01]}}},\n");
  PUT("{\"name\": \"w2\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": "
      "{\"dtype\": \"float32\", \"shape\": [64, 10], \"values\": [0.02]}}},\n");
  PUT("{\"name\": \"h\", \"op\": \"MatMul\", \"inputs\": [\"x\", \"w1\"]},\n");
  PUT("{\"name\": \"hr\", \"op\": \"Relu\", \"inputs\": [\"h\"]},\n");
  PUT("{\"name\": \"logits\", \"op\": \"MatMul\", \"inputs\": [\"hr\", \"w2\"]},\n");
  PUT("{\"name\": \"probs\", \"op\": \"Softmax\", \"inputs\": [\"logits\"]},\n");
  /* chain: c0 = 1; c(k+1) = c(k) * one + zero ... stays 1 with real work. */
  PUT("{\"name\": \"c0\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": "
      "{\"dtype\": \"float32\", \"shape\": [128, 128], \"values\": [1]}}},\n");
  PUT("{\"name\": \"one\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": "
      "{\"dtype\": \"float32\", \"shape\": [], \"values\": [1]}}},\n");
  for (int k = 0; k < kChain; k++)
    PUT("{\"name\": \"c%d\", \"op\": \"%s\", \"inputs\": [\"c%d\", \"one\"]},\n", k + 1,
        k % 2 ? "Mul" : "Maximum", k);
  PUT("{\"name\": \"shape\", \"op\": \"Placeholder\", \"attrs\": {\"dtype\": \"int32\", \"shape\": "
      "[2]}},\n");
  PUT("{\"name\": \"r\", \"op\": \"RandomUniform\", \"inputs\": [\"shape\"], \"attrs\": "
      "{\"dtype\": \"float32\", \"T\": \"int32\"}},\n");
  PUT("{\"name\": \"axes\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"int32\", \"value\": "
      "{\"dtype\": \"int32\", \"shape\": [2], \"values\": [0, 1]}}},\n");
  PUT("{\"name\": \"draw\", \"op\": \"Mean\", \"inputs\": [\"r\", \"axes\"]},\n");
  PUT("{\"name\": \"v\", \"op\": \"VariableV2\", \"attrs\": {\"dtype\": \"float32\", \"shape\": "
      "[]}},\n");
  PUT("{\"name\": \"zero\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": "
      "{\"dtype\": \"float32\", \"shape\": [], \"values\": [0]}}},\n");
  PUT("{\"name\": \"init\", \"op\": \"Assign\", \"inputs\": [\"v\", \"zero\"]},\n");
  PUT("{\"name\": \"bump\", \"op\": \"AssignAdd\", \"inputs\": [\"v\", \"one\"]},\n");
  PUT("{\"name\": \"read\", \"op\": \"Identity\", \"inputs\": [\"v\"]}\n");
  PUT("]}\n");
#undef PUT
  return t;
}

enum job { MLP, CHAIN, DRAW, CALLABLE, COUNTER, DEADLINE, NUM_JOBS };
static const char* const kJobNames[] = {"mlp", "chain", "draw", "callable", "counter", "deadline"};
/* Out of 100. */
static const int kJobWeights[] = {30, 20, 20, 15, 5, 10};

typedef struct {
  long runs[NUM_JOBS];
  long codes[GRT_DATA_LOSS + 1]; /* errors by code */
  long injected;                 /* CANCELLED, and DEADLINE_EXCEEDED of deadline jobs */
  long unexpected;
  char first_unexpected[256];
} tally;

static grt_session* g_session;
static grt_callable* g_callable;
static int g_workers_stop; /* atomic: the run is over */
static int g_stop;

/* Quiet points: main sets g_pause; each worker, between runs, counts itself
 * in g_paused and waits for g_pause to clear. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_pause, g_paused, g_running;

static void maybe_pause(void) {
  if (!__atomic_load_n(&g_pause, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&g_mu);
  g_paused++;
  pthread_cond_broadcast(&g_cv);
  while (g_pause) pthread_cond_wait(&g_cv, &g_mu);
  g_paused--;
  pthread_mutex_unlock(&g_mu);
}

/* Resident memory by kind of mapping (/proc/self/smaps), to tell what
 * grows: malloc's main heap, other anonymous mappings of 32 MiB and more
 * (glibc thread arenas are 64 MiB reservations, OpenBLAS buffers and large
 * tensor blocks are mapped whole), smaller anonymous mappings (tensor
 * blocks, thread stacks), and files (code, data). */
typedef struct {
  long rss, heap, big_anon, small_anon, file; /* KiB */
} resident;

static resident resident_now(void) {
  resident r = {0};
  FILE* f = fopen("/proc/self/smaps", "r");
  if (!f) return r;
  char line[512];
  int kind = 0; /* 0 heap, 1 big anon, 2 small anon, 3 file */
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    long kib;
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && strchr(line, ' ')) {
      const char* path = strchr(line, '/');
      if (strstr(line, "[heap]"))
        kind = 0;
      else if (path)
        kind = 3;
      else
        kind = hi - lo >= (32ul << 20) ? 1 : 2;
    } else if (sscanf(line, "Rss: %ld kB", &kib) == 1) {
      r.rss += kib;
      long* slot[] = {&r.heap, &r.big_anon, &r.small_anon, &r.file};
      *slot[kind] += kib;
    }
  }
  fclose(f);
  return r;
}

/* Everything read at a quiet point. */
typedef struct {
  resident res;
  malloc_figures mal;
  long heap_kib; /* grt_heap_used */
  /* The same after grt_release_memory: what stays when grt gives its
   * caches back, so growth there is not a cache filling up. */
  resident res_released;
  long heap_released_kib;
} figures;

/* Stops the workers between runs and reads the figures then. */
static figures quiet_figures(void) {
  pthread_mutex_lock(&g_mu);
  __atomic_store_n(&g_pause, 1, __ATOMIC_RELEASE);
  while (g_paused < g_running) pthread_cond_wait(&g_cv, &g_mu);
  figures fig;
  fig.res = resident_now();
  fig.mal = malloc_now();
  fig.heap_kib = (long)(grt_heap_used() / 1024);
  grt_release_memory();
  fig.res_released = resident_now();
  fig.heap_released_kib = (long)(grt_heap_used() / 1024);
  __atomic_store_n(&g_pause, 0, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
  return fig;
}

static void print_figures(const char* when, const figures* f) {
  printf(
      "  %-8s RSS %6ld KiB (heap %ld, anon>=32M %ld, anon<32M %ld, files %ld); grt heap %ld KiB;"
      " malloc: %d arenas, %ld KiB from the system (%ld in use, %ld free), %ld KiB mmapped\n",
      when, f->res.rss, f->res.heap, f->res.big_anon, f->res.small_anon, f->res.file, f->heap_kib,
      f->mal.arenas, f->mal.system_kib, f->mal.in_use_kib, f->mal.free_kib, f->mal.mmap_kib);
  printf(
      "  %-8s after grt_release_memory: RSS %6ld KiB (heap %ld, anon>=32M %ld, anon<32M %ld);"
      " grt heap %ld KiB\n",
      "", f->res_released.rss, f->res_released.heap, f->res_released.big_anon,
      f->res_released.small_anon, f->heap_released_kib);
  fflush(stdout);
}

static grt_tensor* floats(int64_t rows, int64_t cols, unsigned* seed) {
  grt_tensor* t;
  int64_t dims[2] = {rows, cols};
  die(grt_tensor_new(GRT_FLOAT32, 2, dims, &t), "tensor");
  float* p = grt_tensor_data(t);
  for (int64_t i = 0; i < rows * cols; i++) p[i] = (float)rand_r(seed) / RAND_MAX - 0.5f;
  return t;
}

static grt_tensor* shape(int32_t r, int32_t c) {
  grt_tensor* t;
  int64_t n = 2;
  die(grt_tensor_new(GRT_INT32, 1, &n, &t), "tensor");
  int32_t* p = grt_tensor_data(t);
  p[0] = r;
  p[1] = c;
  return t;
}

/* Checks a successful run's value; returns a reason it is wrong, or NULL. */
static const char* check_value(enum job j, const grt_tensor* v, int64_t n) {
  const float* p = grt_tensor_data(v);
  switch (j) {
    case MLP:
    case CALLABLE:
      for (int64_t r = 0; r < grt_tensor_dim(v, 0); r++) {
        double s = 0;
        for (int c = 0; c < 10; c++) s += p[r * 10 + c];
        if (fabs(s - 1) > 1e-4) return "softmax row does not sum to 1";
      }
      return NULL;
    case CHAIN:
      for (int64_t i = 0; i < 128 * 128; i++)
        if (p[i] != 1.0f) return "chain result is not 1";
      return NULL;
    case DRAW:
      /* The mean of n uniform draws: within 6 sigma of 0.5. */
      return fabs(p[0] - 0.5) > 6 * sqrt(1.0 / 12 / (double)n) + 1e-3 ? "draw mean is off" : NULL;
    case COUNTER:
      return p[0] >= 1 ? NULL : "counter went backwards";
    default:
      return NULL;
  }
}

static void one_run(tally* t, unsigned* seed, grt_run_options* deadline) {
  int pick = rand_r(seed) % 100, j = 0;
  while (pick >= kJobWeights[j]) pick -= kJobWeights[j++];
  grt_tensor* in = NULL;
  grt_tensor* out = NULL;
  grt_status* st = NULL;
  int64_t n = 0;
  const grt_run_options* ro = NULL;
  if (j == MLP || j == CALLABLE) {
    in = floats(1 + rand_r(seed) % 64, 64, seed);
    if (j == CALLABLE) {
      st = grt_callable_run(g_callable, &in, &out, NULL);
    } else {
      grt_feed f = {"x", in};
      const char* fetch = "probs";
      st = grt_session_run(g_session, &f, 1, &fetch, 1, NULL, 0, &out, NULL);
    }
  } else if (j == CHAIN) {
    char name[16];
    snprintf(name, sizeof name, "c%d", kChain);
    const char* fetch = name;
    st = grt_session_run(g_session, NULL, 0, &fetch, 1, NULL, 0, &out, NULL);
  } else if (j == DRAW || j == DEADLINE) {
    int32_t r = j == DEADLINE ? 4000 : 16 + rand_r(seed) % 400;
    int32_t c = j == DEADLINE ? 4000 : 16 + rand_r(seed) % 400;
    n = (int64_t)r * c;
    in = shape(r, c);
    grt_feed f = {"shape", in};
    const char* fetch = "draw";
    ro = j == DEADLINE ? deadline : NULL;
    st = grt_session_run_with_options(g_session, ro, &f, 1, &fetch, 1, NULL, 0, &out, NULL);
  } else {
    const char* target = "bump";
    const char* fetch = "read";
    st = grt_session_run(g_session, NULL, 0, NULL, 0, &target, 1, NULL, NULL);
    if (!st) st = grt_session_run(g_session, NULL, 0, &fetch, 1, NULL, 0, &out, NULL);
  }
  t->runs[j]++;
  const char* wrong = NULL;
  if (st) {
    grt_code code = grt_status_code(st);
    t->codes[code]++;
    if (code == GRT_CANCELLED || (code == GRT_DEADLINE_EXCEEDED && j == DEADLINE)) {
      t->injected++;
    } else {
      wrong = grt_status_message(st);
    }
  } else {
    wrong = check_value((enum job)j, out, n);
  }
  if (wrong) {
    if (!t->unexpected)
      snprintf(t->first_unexpected, sizeof t->first_unexpected, "%s: %s", kJobNames[j], wrong);
    t->unexpected++;
  }
  grt_status_free(st);
  grt_tensor_free(out);
  grt_tensor_free(in);
}

static void* worker(void* arg) {
  tally* t = arg;
  unsigned seed = (unsigned)(uintptr_t)arg;
  grt_run_options* deadline;
  die(grt_run_options_new(&deadline), "run options");
  die(grt_run_options_set_timeout_ms(deadline, 1), "run options");
  while (!__atomic_load_n(&g_workers_stop, __ATOMIC_ACQUIRE)) {
    one_run(t, &seed, deadline);
    maybe_pause();
  }
  grt_run_options_free(deadline);
  pthread_mutex_lock(&g_mu);
  g_running--;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
  return NULL;
}

static void* canceller(void* arg) {
  long* cancels = arg;
  unsigned seed = 4242;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    usleep(20000 + rand_r(&seed) % 180000);
    grt_session_cancel(g_session);
    (*cancels)++;
  }
  return NULL;
}

int main(int argc, char** argv) {
  double seconds = 600, warmup = 60;
  int threads = 8;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
      warmup = atof(argv[++i]);
    else {
      fprintf(stderr, "usage: soak [--seconds S] [--threads N] [--warmup S]\n");
      return 2;
    }
  }
  if (threads < 1 || threads > kMaxThreads || seconds <= 0 || warmup < 0) {
    fprintf(stderr, "soak: threads must be 1..%d, seconds > 0, warmup >= 0\n", kMaxThreads);
    return 2;
  }
  long heap_at_start = (long)(grt_heap_used() / 1024);
  char* text = graph_text();
  grt_graph* g;
  die(grt_graph_from_json(text, strlen(text), &g), "graph");
  free(text);
  die(grt_session_new(g, NULL, &g_session), "session");
  const char* feed = "x";
  const char* fetch = "probs";
  die(grt_session_make_callable_by_name(g_session, &feed, 1, &fetch, 1, NULL, 0, &g_callable),
      "callable");
  const char* init = "init";
  die(grt_session_run(g_session, NULL, 0, NULL, 0, &init, 1, NULL, NULL), "init");

  tally tallies[kMaxThreads];
  memset(tallies, 0, sizeof tallies);
  pthread_t th[kMaxThreads], canc;
  long cancels = 0;
  double start = now_s();
  g_running = threads;
  for (int i = 0; i < threads; i++) pthread_create(&th[i], NULL, worker, &tallies[i]);
  pthread_create(&canc, NULL, canceller, &cancels);
  /* RSS after warm-up (caches, pools and allocator free lists filled),
   * then every 10% of the run, to see a trend rather than two points. */
  usleep((useconds_t)(warmup * 1e6));
  figures first = quiet_figures();
  const char* tunables = getenv("GLIBC_TUNABLES");
  printf("soak: %d threads, %.0f s after %.0f s warm-up; GLIBC_TUNABLES=%s\n", threads, seconds,
         warmup, tunables ? tunables : "(unset)");
  print_figures("warm", &first);
  figures last = first;
  for (int k = 1; k <= 10; k++) {
    double at = start + warmup + seconds * k / 10;
    while (now_s() < at) usleep(100000);
    last = quiet_figures();
    char when[16];
    snprintf(when, sizeof when, "%d%%:", k * 10);
    print_figures(when, &last);
  }
  long rss_start = first.res.rss, rss_end = last.res.rss;
  long heap_start = first.heap_kib, heap_end = last.heap_kib;
  __atomic_store_n(&g_workers_stop, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  pthread_join(canc, NULL);

  tally sum;
  memset(&sum, 0, sizeof sum);
  for (int i = 0; i < threads; i++) {
    for (int j = 0; j < NUM_JOBS; j++) sum.runs[j] += tallies[i].runs[j];
    for (int c = 0; c <= GRT_DATA_LOSS; c++) sum.codes[c] += tallies[i].codes[c];
    sum.injected += tallies[i].injected;
    if (tallies[i].unexpected && !sum.unexpected)
      memcpy(sum.first_unexpected, tallies[i].first_unexpected, sizeof sum.first_unexpected);
    sum.unexpected += tallies[i].unexpected;
  }
  long total = 0;
  for (int j = 0; j < NUM_JOBS; j++) total += sum.runs[j];
  double elapsed = now_s() - start;
  printf("runs: %ld in %.1f s (%.0f/s):", total, elapsed, total / elapsed);
  for (int j = 0; j < NUM_JOBS; j++) printf(" %s %ld", kJobNames[j], sum.runs[j]);
  printf("\ncancel calls: %ld\nerrors by kind:", cancels);
  int any = 0;
  for (int c = 1; c <= GRT_DATA_LOSS; c++)
    if (sum.codes[c]) {
      printf(" %s %ld", grt_code_name((grt_code)c), sum.codes[c]);
      any = 1;
    }
  printf("%s\ninjected (CANCELLED, DEADLINE_EXCEEDED of deadline runs): %ld; unexpected: %ld%s%s\n",
         any ? "" : " none", sum.injected, sum.unexpected, sum.unexpected ? ", first: " : "",
         sum.first_unexpected);
  double change = rss_start ? 100.0 * (double)(rss_end - rss_start) / (double)rss_start : 0;
  printf("RSS: %ld KiB after warm-up, %ld KiB at the end (%+.2f%%; goal within 1%%)\n", rss_start,
         rss_end, change);
  long kept_start = first.res_released.rss, kept_end = last.res_released.rss;
  printf("RSS after grt_release_memory: %ld KiB after warm-up, %ld KiB at the end (%+.2f%%)\n",
         kept_start, kept_end,
         kept_start ? 100.0 * (double)(kept_end - kept_start) / (double)kept_start : 0);
  printf("grt heap (grt_heap_used): %ld KiB after warm-up, %ld KiB at the end\n", heap_start,
         heap_end);

  grt_callable_free(g_callable);
  grt_session_free(g_session);
  grt_graph_free(g);
  /* What stays is made once per process (op and kernel tables, backend
   * registry), so a second session would not add to it. */
  printf("after freeing the session: grt heap %ld KiB (%ld KiB before the graph was made)\n",
         (long)(grt_heap_used() / 1024), heap_at_start);
  return sum.unexpected ? 1 : 0;
}
