/* Fashion-MNIST with data parallelism: the seeds' MLP (784-256-256-10,
 * ReLU, Adam 1e-3, batch 256), or with --model cnn a small convolutional
 * network (fashion_mnist_cnn.c), in towers over logical CPU devices,
 * trained through grt's public C API.
 *
 *   bazel run -c opt //examples:fashion_mnist -- --devices cpu:2 --towers 2 --epochs 2
 *   bazel run -c opt //examples:fashion_mnist -- --devices cpu:2 --towers 2 --epochs 2 --model cnn
 *
 * Prints a line per epoch and ends with test_accuracy=0.xxxx. Writes the
 * loss per step to fashion_mnist_loss.csv (in --out-dir, by default the
 * directory bazel run was started from) and, when gnuplot is installed, a
 * plot of it to fashion_mnist_loss.svg. --save CKPT writes the trained
 * variables (docs/checkpoint-format.md).
 *
 * Across processes (docs/distributed.md), every rank running this program:
 *
 *   mpirun -np 2 fashion_mnist --cluster worker:2 --towers 2 --epochs 2
 *   mpirun -np 3 fashion_mnist --cluster ps:1,worker:2 --towers 2 --epochs 2
 *   mpirun -np 4 fashion_mnist --cluster ps:2,worker:2 --towers 2 --epochs 2
 *
 * worker:N trains mirrored copies on the N workers, their gradients
 * all-reduced across them; ps:K,worker:N keeps the variables on the K ps
 * tasks (parameter servers), spread by the greedy setter (each to the ps
 * task holding the fewest bytes so far, as TensorFlow's
 * replica_device_setter with a greedy strategy). --log-placement true
 * writes the placement log (every node's device) to stderr. The towers divide among the workers;
 * each worker feeds its towers' parts of the same global batch (every rank reads the data and
 * shuffles it alike), and rank 0 prints and writes the CSV. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fashion_mnist_data.h"
#include "fashion_mnist_model.h"
#include "grt/grt.h"

typedef struct {
  int cpus, towers, epochs, batch;
  double lr;
  long limit;
  const char* data;
  const char* out_dir;
  const char* save;
  const char* model;
  const char* cluster; /* NULL: one process */
  int workers;         /* the cluster's worker tasks */
  int ps;              /* and this many ps tasks before them (0: mirrored) */
  bool log_placement;  /* the placement log to stderr */
} options;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(const char* why) {
  if (why) fprintf(stderr, "fashion_mnist: %s\n", why);
  fprintf(
      stderr,
      "usage: fashion_mnist [--devices cpu:N] [--towers N] [--epochs E] [--batch B]\n"
      "                     [--learning-rate R] [--limit N] [--data DIR] [--out-dir DIR]\n"
      "                     [--save CKPT] [--model mlp|cnn] [--cluster worker:N|ps:K,worker:N]\n"
      "                     [--log-placement true|false]\n");
  return 2;
}

static int parse(int argc, char** argv, options* o) {
  *o = (options){.cpus = 1,
                 .towers = 1,
                 .epochs = 2,
                 .batch = 256,
                 .lr = 1e-3,
                 .data = FMNIST_DEFAULT_DIR,
                 .model = "mlp"};
  o->out_dir = getenv("BUILD_WORKING_DIRECTORY") ? getenv("BUILD_WORKING_DIRECTORY") : ".";
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage("every option takes a value");
    i++;
    if (!strcmp(a, "--devices")) {
      if (sscanf(v, "cpu:%d", &o->cpus) != 1 || o->cpus < 1) return usage("--devices cpu:N");
    } else if (!strcmp(a, "--towers")) {
      o->towers = atoi(v);
    } else if (!strcmp(a, "--epochs")) {
      o->epochs = atoi(v);
    } else if (!strcmp(a, "--batch")) {
      o->batch = atoi(v);
    } else if (!strcmp(a, "--learning-rate")) {
      o->lr = atof(v);
    } else if (!strcmp(a, "--limit")) {
      o->limit = atol(v);
    } else if (!strcmp(a, "--data")) {
      o->data = v;
    } else if (!strcmp(a, "--out-dir")) {
      o->out_dir = v;
    } else if (!strcmp(a, "--save")) {
      o->save = v;
    } else if (!strcmp(a, "--model")) {
      o->model = v;
    } else if (!strcmp(a, "--cluster")) {
      int at = 0, end = 0;
      o->cluster = v;
      o->ps = 0;
      if (!strncmp(v, "ps:", 3) &&
          (sscanf(v, "ps:%d,%n", &o->ps, &at) != 1 || at == 0 || o->ps < 1))
        return usage("--cluster worker:N or ps:K,worker:N");
      if (sscanf(v + at, "worker:%d%n", &o->workers, &end) != 1 || v[at + end] || o->workers < 1)
        return usage("--cluster worker:N or ps:K,worker:N");
    } else if (!strcmp(a, "--log-placement")) {
      if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
        return usage("--log-placement true or false");
      o->log_placement = !strcmp(v, "true");
    } else {
      return usage("unknown option");
    }
  }
  if (strcmp(o->model, "mlp") != 0 && strcmp(o->model, "cnn") != 0)
    return usage("--model mlp or --model cnn");
  if (o->towers < 1 || o->epochs < 1 || o->batch < o->towers || o->batch % o->towers)
    return usage("--towers, --epochs >= 1, and --batch a multiple of --towers");
  if (o->cluster && o->towers % o->workers)
    return usage("--towers a multiple of the cluster's workers");
  return 0;
}

static grt_status* new_batch(int64_t rows, int64_t cols, grt_dtype dt, grt_tensor** out) {
  int64_t dims[2] = {rows, cols};
  return grt_tensor_new(dt, cols > 0 ? 2 : 1, dims, out);
}

/* Fisher-Yates with a fixed-seed generator, so runs repeat. */
static void shuffle(int64_t* idx, int64_t n, unsigned* state) {
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(rand_r(state) % (unsigned)(i + 1));
    int64_t t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
}

static void fill(const fmnist_set* d, const int64_t* idx, int64_t n, grt_tensor* x, grt_tensor* y) {
  float* xp = grt_tensor_data(x);
  int32_t* yp = y ? grt_tensor_data(y) : NULL;
  for (int64_t i = 0; i < n; i++) {
    memcpy(xp + i * FMNIST_PIXELS, d->images + idx[i] * FMNIST_PIXELS,
           FMNIST_PIXELS * sizeof(float));
    if (yp) yp[i] = d->labels[idx[i]];
  }
}

/* A step's feeds. In one process, "x" and "labels": the whole batch. In a
 * cluster each worker feeds its own towers' parts of the global batch, as
 * the towers' Split outputs ("tower_split/x:K"): a fed value is read where
 * its consumers run, so no part of the batch crosses tasks. Every rank
 * names every tower's feeds (the ranks must build one executable); the
 * parts of another task's towers are empty tensors, never read here. */
typedef struct feeder {
  int parts;       /* 1, or the towers (fmnist_build_towers refuses more than its maximum) */
  int first, mine; /* the parts this rank fills */
  int n;           /* feeds: one or two per part */
  int64_t rows;    /* per part */
  char names[2 * FMNIST_MAX_TOWERS][40];
  const char* name[2 * FMNIST_MAX_TOWERS];
  grt_tensor* value[2 * FMNIST_MAX_TOWERS];
} feeder;

static void feeder_free(feeder* f) {
  for (int i = 0; i < f->n; i++) grt_tensor_free(f->value[i]);
  f->n = 0;
}

/* Feeds for global batches of `batch` rows, with labels when `labels`;
 * `rank` is the session's (-1 in one process). */
static grt_status* feeder_new(const options* o, int rank, int64_t batch, bool labels, feeder* f) {
  memset(f, 0, sizeof *f);
  bool cl = o->cluster != NULL;
  int per = cl ? o->towers / o->workers : 1;
  f->parts = cl ? o->towers : 1;
  f->rows = batch / f->parts;
  f->first = cl ? (rank - o->ps) * per : 0; /* a ps task feeds no part */
  f->mine = cl && (f->first < 0 || f->first >= o->towers) ? 0 : per;
  grt_status* st = NULL;
  for (int k = 0; !st && k < f->parts; k++) {
    bool mine = k >= f->first && k < f->first + f->mine;
    for (int l = 0; l < (labels ? 2 : 1); l++) {
      const char* in = l ? "labels" : "x";
      int i = f->n;
      if (cl)
        snprintf(f->names[i], sizeof f->names[i], "tower_split/%s:%d", in, k);
      else
        snprintf(f->names[i], sizeof f->names[i], "%s", in);
      f->name[i] = f->names[i];
      st = new_batch(mine ? f->rows : 0, l ? 0 : FMNIST_PIXELS, l ? GRT_INT32 : GRT_FLOAT32,
                     &f->value[i]);
      if (!st) f->n++;
    }
  }
  if (st) feeder_free(f);
  return st;
}

/* This rank's parts of the batch idx[0 .. parts * rows). */
static void feeder_fill(feeder* f, const fmnist_set* d, const int64_t* idx) {
  int per_part = f->n / f->parts;
  for (int k = f->first; k < f->first + f->mine; k++)
    fill(d, idx + k * f->rows, f->rows, f->value[k * per_part],
         per_part > 1 ? f->value[k * per_part + 1] : NULL);
}

/* Accuracy over the test set, in batches padded to a multiple of the
 * towers (the padding's predictions are ignored). */
static grt_status* evaluate(grt_session* s, const options* o, int rank, const fmnist_set* test,
                            double* acc) {
  const int64_t B = 1000 - 1000 % o->towers;
  const char* fetches[] = {"logits"};
  grt_callable* c = NULL;
  int64_t* idx = malloc((size_t)B * sizeof *idx);
  int64_t correct = 0;
  feeder f = {0};
  grt_status* st = idx ? NULL : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t at = 0; !st && at < test->n; at += B) {
    int64_t n = test->n - at < B ? test->n - at : B;
    int64_t padded = (n + o->towers - 1) / o->towers * o->towers;
    for (int64_t i = 0; i < padded; i++) idx[i] = i < n ? at + i : at;
    if (f.n == 0 || f.rows * f.parts != padded) { /* the last batch may be shorter */
      feeder_free(&f);
      grt_callable_free(c);
      c = NULL;
      st = feeder_new(o, rank, padded, false, &f);
      if (!st) st = grt_session_make_callable_by_name(s, f.name, f.n, fetches, 1, NULL, 0, &c);
      if (st) break;
    }
    feeder_fill(&f, test, idx);
    grt_tensor* logits = NULL;
    st = grt_callable_run(c, f.value, &logits, NULL);
    if (st || !logits) continue; /* in a cluster, rank 0 alone gets the logits */
    const float* l = grt_tensor_data(logits);
    for (int64_t i = 0; i < n; i++) {
      int best = 0;
      for (int k = 1; k < FMNIST_CLASSES; k++)
        if (l[i * FMNIST_CLASSES + k] > l[i * FMNIST_CLASSES + best]) best = k;
      correct += best == test->labels[at + i];
    }
    grt_tensor_free(logits);
  }
  feeder_free(&f);
  grt_callable_free(c);
  free(idx);
  *acc = test->n ? (double)correct / (double)test->n : 0;
  return st;
}

/* The loss curve as SVG through gnuplot, when it is installed. */
static void plot(const char* csv, const char* svg, const char* model) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    printf("gnuplot not found: no plot (the CSV is %s)\n", csv);
    return;
  }
  FILE* p = popen("gnuplot", "w");
  if (!p) return;
  fprintf(p,
          "set terminal svg size 800,480\nset output '%s'\nset datafile separator ','\n"
          "set key autotitle columnhead\nset xlabel 'step'\nset ylabel 'loss'\n"
          "set title 'Fashion-MNIST %s, training loss'\n"
          "plot '%s' using 1:3 with lines title 'loss'\n",
          svg, strcmp(model, "cnn") ? "MLP" : "CNN", csv);
  if (pclose(p) == 0) printf("loss curve: %s\n", svg);
}

static grt_status* train(const options* o) {
  fmnist_set tr = {0}, te = {0};
  grt_graph* g = NULL;
  grt_session_options* so = NULL;
  grt_session* s = NULL;
  grt_callable* step = NULL;
  feeder f = {0};
  int64_t* idx = NULL;
  FILE* csv = NULL;
  char csv_path[1024], svg_path[1024], cpus[16];
  snprintf(csv_path, sizeof csv_path, "%s/fashion_mnist_loss.csv", o->out_dir);
  snprintf(svg_path, sizeof svg_path, "%s/fashion_mnist_loss.svg", o->out_dir);
  snprintf(cpus, sizeof cpus, "%d", o->cpus);
  fmnist_model_options mo = {.towers = o->towers,
                             .cpus = o->cpus,
                             .learning_rate = o->lr,
                             .seed = 7,
                             .workers = o->cluster ? o->workers : 0,
                             .ps = o->ps};
  grt_status* st = fmnist_load(o->data, "train", o->limit, &tr);
  if (!st) st = fmnist_load(o->data, "t10k", 0, &te);
  bool cnn = !strcmp(o->model, "cnn");
  if (!st) st = cnn ? fmnist_build_cnn(&mo, &g) : fmnist_build_mlp(&mo, &g);
  if (!st) st = grt_session_options_new(&so);
  if (!st) st = grt_session_options_set(so, "cpu.devices", cpus);
  if (!st && o->cluster) st = grt_session_options_set(so, "cluster", o->cluster);
  if (!st && o->log_placement) st = grt_session_options_set(so, "log_device_placement", "true");
  if (!st) st = grt_session_new(g, so, &s);
  int rank = s ? grt_session_cluster_rank(s) : -1;
  bool lead = rank <= 0; /* prints and writes the CSV: rank 0 gets the fetches */
  const char* init[] = {"init"};
  if (!st) st = grt_session_run(s, NULL, 0, NULL, 0, init, 1, NULL, NULL);
  const char* fetches[] = {"loss"};
  const char* targets[] = {"train"};
  if (!st) st = feeder_new(o, rank, o->batch, true, &f);
  if (!st) st = grt_session_make_callable_by_name(s, f.name, f.n, fetches, 1, targets, 1, &step);
  if (!st && !(idx = malloc((size_t)tr.n * sizeof *idx)))
    st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  if (!st && lead && !(csv = fopen(csv_path, "w")))
    st = grt_status_new(GRT_UNAVAILABLE, "%s: %s", csv_path, strerror(errno));
  if (!st && lead) {
    fprintf(csv, "step,epoch,loss\n");
    printf(
        "Fashion-MNIST: %lld training and %lld test examples; %s in %d "
        "tower%s on %d CPU device%s%s%s, batch %d, Adam %g\n",
        (long long)tr.n, (long long)te.n,
        cnn ? "CNN conv5x5-32/pool conv5x5-64/pool 256 10" : "MLP 784-256-256-10", o->towers,
        o->towers == 1 ? "" : "s", o->cpus, o->cpus == 1 ? "" : "s",
        o->cluster ? (o->ps ? " of each worker, parameter server, cluster "
                            : " of each worker, mirrored, cluster ")
                   : "",
        o->cluster ? o->cluster : "", o->batch, o->lr);
  }
  for (int64_t i = 0; !st && i < tr.n; i++) idx[i] = i;
  unsigned rng = 12345;
  long global = 0;
  double train_time = 0;
  int64_t steps_per_epoch = tr.n / o->batch;
  for (int e = 0; !st && e < o->epochs; e++) {
    shuffle(idx, tr.n, &rng);
    double t0 = now_s(), sum = 0;
    for (int64_t b = 0; !st && b < steps_per_epoch; b++) {
      feeder_fill(&f, &tr, idx + b * o->batch);
      grt_tensor* loss = NULL;
      st = grt_callable_run(step, f.value, &loss, NULL);
      if (st || !loss || !lead) { /* in a cluster, rank 0 alone is sure to get it */
        grt_tensor_free(loss);
        continue;
      }
      float l = *(const float*)grt_tensor_data(loss);
      grt_tensor_free(loss);
      sum += l;
      fprintf(csv, "%ld,%d,%.6f\n", ++global, e + 1, l);
    }
    double dt = now_s() - t0;
    train_time += dt;
    if (!st && lead)
      printf("epoch %d/%d  loss=%.4f  %.1f s  %.0f examples/s\n", e + 1, o->epochs,
             sum / (double)steps_per_epoch, dt, (double)(steps_per_epoch * o->batch) / dt);
    fflush(stdout);
  }
  if (csv) fclose(csv);
  double acc = 0;
  if (!st) st = evaluate(s, o, rank, &te, &acc);
  if (!st && o->save) st = grt_session_save_variables(s, o->save);
  if (!st && lead) {
    plot(csv_path, svg_path, o->model);
    printf("loss per step: %s\n", csv_path);
    printf("test_accuracy=%.4f\n", acc);
  }
  free(idx);
  feeder_free(&f);
  grt_callable_free(step);
  grt_session_free(s);
  grt_session_options_free(so);
  grt_graph_free(g);
  fmnist_free(&tr);
  fmnist_free(&te);
  return st;
}

int main(int argc, char** argv) {
  options o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  grt_status* st = train(&o);
  if (st) {
    fprintf(stderr, "fashion_mnist: %s\n", grt_status_message(st));
    grt_status_free(st);
    return 1;
  }
  return 0;
}
