#include "bench/bench_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

double grt_bench_median(const double* v, int n) {
  /* A sorted copy; the rounds of a benchmark are a few dozen at most. */
  double small[64];
  double* s = n <= 64 ? small : malloc(sizeof *s * (size_t)n);
  if (!s) return v[n / 2]; /* out of memory: a value from the middle */
  memcpy(s, v, sizeof *v * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  if (s != small) free(s);
  return m;
}

double grt_bench_minimum(const double* v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++) m = v[i] < m ? v[i] : m;
  return m;
}

void grt_bench_print_load(const char* when) {
  double l[3] = {-1, -1, -1};
  FILE* f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3) l[0] = l[1] = l[2] = -1;
    fclose(f);
  }
  printf("load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
}
