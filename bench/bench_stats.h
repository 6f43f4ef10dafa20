/* What the benchmarks print beside their figures: min and median over
 * rounds, and the load average they ran at (bench/README.md: figures taken
 * above load 1.5 are no claim). */
#ifndef GRT_BENCH_BENCH_STATS_H_
#define GRT_BENCH_BENCH_STATS_H_

#include <stdint.h>

/* The median of v[0..n), n >= 1 (the mean of the middle two when n is
 * even); v is left as it is. */
double grt_bench_median(const double* v, int n);

/* The least of v[0..n), n >= 1. */
double grt_bench_minimum(const double* v, int n);

/* "load average WHEN: 1m 5m 15m" on stdout (-1 where /proc/loadavg cannot
 * be read). */
void grt_bench_print_load(const char* when);

#endif  // GRT_BENCH_BENCH_STATS_H_
