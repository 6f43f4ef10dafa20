/* The sizes and repetitions both all-reduce benchmarks use, so their lines
 * pair up: 4 KiB to 256 MiB by factors of 4, about 256 MiB moved per size
 * (at least 3 and at most 200 repetitions). */
#ifndef GRT_BENCH_CLUSTER_SIZES_H_
#define GRT_BENCH_CLUSTER_SIZES_H_

enum { kStep = 4 };
#define kMinBytes 4096LL
#define kMaxBytes (256LL << 20)

static inline int bench_reps(long long bytes) {
  long long r = (256LL << 20) / bytes;
  return r < 3 ? 3 : r > 200 ? 200 : (int)r;
}

#endif /* GRT_BENCH_CLUSTER_SIZES_H_ */
