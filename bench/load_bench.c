/* Loading benchmarks (prints figures; asserts nothing on time).
 *
 *   1. open + verify a .grt holding 1 GiB of constants (goal < 20 ms: the
 *      constants are mapped, not read), beside read()-ing the same file into
 *      memory, which is what a copying loader pays;
 *   2. load + validate a 100k-node graph from .grt (goal < 100 ms) and the
 *      same graph from JSON.
 *
 *   load_bench [--const-mib N] [--nodes N] [--repeats N] [--dir DIR]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grt/grt.h"
#include "graph_format/formats.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(grt_status* s, const char* what) {
  if (!s) return;
  fprintf(stderr, "load_bench: %s: %s\n", what, grt_status_message(s));
  exit(1);
}

/* `count` float32 constants of `mib` MiB in total, each feeding an Identity. */
static grt_graph* big_constants(int mib, int count) {
  grt_graph* g;
  die(grt_graph_new(&g), "new");
  int64_t per = (int64_t)mib * 1024 * 1024 / 4 / count;
  for (int i = 0; i < count; i++) {
    char name[32], id[32];
    snprintf(name, sizeof name, "c%d", i);
    snprintf(id, sizeof id, "id%d", i);
    grt_tensor* t;
    die(grt_tensor_new(GRT_FLOAT32, 1, &per, &t), "tensor");
    float* v = grt_tensor_data(t);
    for (int64_t k = 0; k < per; k += 1024) v[k] = (float)k;
    int32_t c, n;
    die(grt_graph_add_node(g, name, "Const", &c), "add");
    die(grt_graph_set_attr_type(g, c, "dtype", GRT_FLOAT32), "attr");
    die(grt_graph_set_attr_tensor(g, c, "value", t), "attr");
    grt_tensor_free(t);
    die(grt_graph_add_node(g, id, "Identity", &n), "add");
    die(grt_graph_add_input(g, n, name), "input");
    die(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32), "attr");
  }
  return g;
}

/* A layered graph of `nodes` nodes: placeholders, small constants, and
 * element-wise ops each reading two nodes of the previous layer. */
static grt_graph* many_nodes(int nodes) {
  grt_graph* g;
  die(grt_graph_new(&g), "new");
  const int width = 100;
  char name[48], in0[48], in1[48];
  for (int i = 0; i < nodes; i++) {
    int32_t n;
    snprintf(name, sizeof name, "layer%d/n%d", i / width, i % width);
    if (i < width) {
      die(grt_graph_add_node(g, name, "Placeholder", &n), "add");
      die(grt_graph_set_attr_type(g, n, "dtype", GRT_FLOAT32), "attr");
      int64_t d[] = {-1, 16};
      die(grt_graph_set_attr_shape(g, n, "shape", 2, d), "attr");
      continue;
    }
    static const char* const kOps[] = {"Add", "Mul", "Sub", "Maximum"};
    int layer = i / width, col = i % width;
    die(grt_graph_add_node(g, name, kOps[i % 4], &n), "add");
    snprintf(in0, sizeof in0, "layer%d/n%d", layer - 1, col);
    snprintf(in1, sizeof in1, "layer%d/n%d", layer - 1, (col + 1) % width);
    die(grt_graph_add_input(g, n, in0), "input");
    die(grt_graph_add_input(g, n, in1), "input");
    die(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32), "attr");
    if (i % 7 == 0) die(grt_graph_set_device(g, n, i % 2 ? "/gpu:0" : "/cpu:0"), "device");
  }
  return g;
}

typedef grt_status* (*load_fn)(const char* path, grt_graph** out);

static grt_status* open_only(const char* path, grt_graph** out) {
  return grt_format_open_grt(path, out);
}

static double best_of(int repeats, load_fn fn, const char* path, int* out_nodes) {
  double best = 1e30;
  for (int r = 0; r < repeats; r++) {
    grt_graph* g = NULL;
    double t0 = now_ms();
    die(fn(path, &g), path);
    double t = now_ms() - t0;
    *out_nodes = grt_graph_num_nodes(g);
    grt_graph_free(g);
    if (t < best) best = t;
  }
  return best;
}

static double best_read_all(int repeats, const char* path) {
  double best = 1e30;
  for (int r = 0; r < repeats; r++) {
    double t0 = now_ms();
    char* buf;
    size_t len;
    die(grt_read_file(path, &buf, &len), path);
    free(buf);
    double t = now_ms() - t0;
    if (t < best) best = t;
  }
  return best;
}

static long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char** argv) {
  int mib = 1024, nodes = 100000, repeats = 5;
  const char* dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--const-mib"))
      mib = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--nodes"))
      nodes = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--repeats"))
      repeats = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
  }
  char big[4096], small_grt[4096], small_json[4096];
  snprintf(big, sizeof big, "%s/grt_bench_consts.grt", dir);
  snprintf(small_grt, sizeof small_grt, "%s/grt_bench_nodes.grt", dir);
  snprintf(small_json, sizeof small_json, "%s/grt_bench_nodes.json", dir);

  grt_graph* g = big_constants(mib, 16);
  double t0 = now_ms();
  die(grt_graph_save(g, big), "save");
  printf("wrote %s: %ld bytes in %.0f ms\n", big, file_size(big), now_ms() - t0);
  grt_graph_free(g);

  int n = 0;
  double open_ms = best_of(repeats, open_only, big, &n);
  double load_ms = best_of(repeats, grt_graph_load, big, &n);
  double read_ms = best_read_all(repeats, big);
  printf("\n1 GiB of constants (%d MiB in 16 tensors), best of %d:\n", mib, repeats);
  printf("  open + verify .grt (mmap, zero-copy)   %8.3f ms   goal < 20 ms\n", open_ms);
  printf("  open + verify + validate               %8.3f ms\n", load_ms);
  printf("  baseline: read() the file into memory  %8.3f ms   (%.0fx slower)\n", read_ms,
         read_ms / load_ms);
  unlink(big);

  g = many_nodes(nodes);
  die(grt_graph_save(g, small_grt), "save grt");
  die(grt_graph_save(g, small_json), "save json");
  grt_graph_free(g);
  double grt_ms = best_of(repeats, grt_graph_load, small_grt, &n);
  double json_ms = best_of(repeats, grt_graph_load, small_json, &n);
  printf("\n%d-node graph (.grt %ld bytes, .json %ld bytes), best of %d:\n", n,
         file_size(small_grt), file_size(small_json), repeats);
  printf("  load + validate .grt    %8.3f ms  (%.0f ns/node)   goal < 100 ms\n", grt_ms,
         grt_ms * 1e6 / n);
  printf("  load + validate .json   %8.3f ms  (%.0f ns/node)   %.1fx the .grt time\n", json_ms,
         json_ms * 1e6 / n, json_ms / grt_ms);
  unlink(small_grt);
  unlink(small_json);
  return 0;
}
