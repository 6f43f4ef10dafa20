// The CUDA reductions' passes (backends/cuda/reduce_plan.h) without a GPU:
// the shapes of the passes for each kind of reduction, the cutting rules,
// and every plan run on the host (the int32 path) against a direct
// reduction over the original shape.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <random>
#include <vector>

extern "C" {
#include "backends/cuda/reduce_plan.h"
}

namespace {

grt_shape Shape(std::vector<int64_t> d) {
  grt_shape s = {(int32_t)d.size(), {0}};
  for (size_t i = 0; i < d.size(); i++) s.dims[i] = d[i];
  return s;
}

grt_cuda_red_plan Plan(std::vector<int64_t> dims, std::vector<int> axes) {
  bool reduced[GRT_MAX_RANK] = {false};
  for (int a : axes) reduced[a] = true;
  grt_shape s = Shape(dims);
  grt_cuda_red_plan p;
  grt_cuda_reduce_plan(&s, reduced, &p);
  return p;
}

void ExpectPass(const grt_cuda_red_pass& p, int64_t A, int64_t B, int64_t C, int64_t L) {
  EXPECT_EQ(p.A, A);
  EXPECT_EQ(p.B, B);
  EXPECT_EQ(p.C, C);
  EXPECT_EQ(p.L, L);
}

TEST(ReducePlan, InnerAxisOfManyRowsIsOneRowPass) {
  grt_cuda_red_plan p = Plan({2048, 300}, {1});
  ASSERT_EQ(p.kind, GRT_CUDA_RED_PASSES);
  ASSERT_EQ(p.n_passes, 1);
  ExpectPass(p.pass[0], 2048, 300, 1, 300);
  EXPECT_EQ(p.count, 300);
  EXPECT_EQ(p.n_out, 2048);
}

TEST(ReducePlan, OuterAxisIsAColumnPass) {
  grt_cuda_red_plan p = Plan({100, 40000}, {0});  // 1250 column tiles: enough
  ASSERT_EQ(p.n_passes, 1);
  ExpectPass(p.pass[0], 1, 100, 40000, 100);
}

TEST(ReducePlan, MiddleAxisKeepsOuterAndInner) {
  grt_cuda_red_plan p = Plan({6, 7, 8}, {1});
  ASSERT_EQ(p.n_passes, 1);
  EXPECT_EQ(p.pass[0].A, 6);
  EXPECT_EQ(p.pass[0].B, 7);
  EXPECT_EQ(p.pass[0].C, 8);
}

TEST(ReducePlan, AdjacentAxesMergeAndSizeOneAxesDrop) {
  // [3, 1, 4, 5, 1, 6] over axes 2, 3 and the size-1 axis 4: kept 3, reduced
  // 20, kept 6.
  grt_cuda_red_plan p = Plan({3, 1, 4, 5, 1, 6}, {2, 3, 4});
  ASSERT_EQ(p.n_passes, 1);
  EXPECT_EQ(p.pass[0].A, 3);
  EXPECT_EQ(p.pass[0].B, 20);
  EXPECT_EQ(p.pass[0].C, 6);
  EXPECT_EQ(p.count, 20);
}

TEST(ReducePlan, AlternatingAxesReduceInnermostGroupFirst) {
  // [2, 3, 4, 5] over 0 and 2: pass 1 reduces 4 of [6, 4, 5] -> [6, 5]
  // (kept 3 and 5 no longer neighbours: [2, 3*5]); pass 2 reduces 2 of
  // [1, 2, 15].
  grt_cuda_red_plan p = Plan({2, 3, 4, 5}, {0, 2});
  ASSERT_EQ(p.n_passes, 2);
  ExpectPass(p.pass[0], 6, 4, 5, 4);
  ExpectPass(p.pass[1], 1, 2, 15, 2);
  EXPECT_EQ(p.count, 8);
}

TEST(ReducePlan, FullReductionOfALongRowIsCutIntoChunks) {
  const int64_t n = int64_t{1} << 28;
  grt_cuda_red_plan p = Plan({n}, {0});
  ASSERT_EQ(p.n_passes, 2);
  int64_t chunks = GRT_CUDA_RED_TARGET_BLOCKS;
  ExpectPass(p.pass[0], 1, n, 1, n / chunks);
  ExpectPass(p.pass[1], 1, chunks, 1, chunks);
  EXPECT_EQ(grt_cuda_red_pass_outputs(&p.pass[0]), chunks);
}

TEST(ReducePlan, ShortRowsAreNotCutBelowTheMinimumChunk) {
  grt_cuda_red_plan p = Plan({4, GRT_CUDA_RED_MIN_ROW_CHUNK + 1}, {1});
  ASSERT_EQ(p.n_passes, 2);  // two chunks each, never more
  EXPECT_EQ(p.pass[0].L, GRT_CUDA_RED_MIN_ROW_CHUNK / 2 + 1);
  ExpectPass(p.pass[1], 4, 2, 1, 2);
  p = Plan({4, GRT_CUDA_RED_MIN_ROW_CHUNK}, {1});
  EXPECT_EQ(p.n_passes, 1);
}

TEST(ReducePlan, TallNarrowColumnsAreCut) {
  // [16384, 16384] over axis 0: 512 tiles, so two chunks of rows.
  grt_cuda_red_plan p = Plan({16384, 16384}, {0});
  ASSERT_EQ(p.n_passes, 2);
  ExpectPass(p.pass[0], 1, 16384, 16384, 8192);
  ExpectPass(p.pass[1], 1, 2, 16384, 2);
  // [2^20, 3] over axis 0: one tile, cut into 1024 chunks of 1024 rows.
  p = Plan({1 << 20, 3}, {0});
  ASSERT_EQ(p.n_passes, 2);
  ExpectPass(p.pass[0], 1, 1 << 20, 3, 1024);
  ExpectPass(p.pass[1], 1, 1024, 3, 1024);
}

TEST(ReducePlan, EmptyAndTrivialReductions) {
  grt_cuda_red_plan p = Plan({3, 0, 4}, {1});  // nothing reduced into 12 outputs
  EXPECT_EQ(p.kind, GRT_CUDA_RED_FILL);
  EXPECT_EQ(p.n_out, 12);
  EXPECT_EQ(p.count, 0);
  p = Plan({0, 4}, {1});  // no outputs at all
  EXPECT_EQ(p.kind, GRT_CUDA_RED_NOTHING);
  p = Plan({5, 1, 3}, {1});  // only a size-1 axis
  EXPECT_EQ(p.kind, GRT_CUDA_RED_COPY);
  EXPECT_EQ(p.count, 1);
  p = Plan({5, 3}, {});  // no axis
  EXPECT_EQ(p.kind, GRT_CUDA_RED_COPY);
  EXPECT_EQ(p.n_out, 15);
  p = Plan({}, {});  // a scalar
  EXPECT_EQ(p.kind, GRT_CUDA_RED_COPY);
  EXPECT_EQ(p.n_out, 1);
}

// ---- every plan run on the host against a direct reduction --------------

int32_t Combine(grt_cuda_red_op op, int32_t a, int32_t v) {
  switch (op) {
    case GRT_CUDA_RED_PROD:
      return (int32_t)((uint32_t)a * (uint32_t)v);
    case GRT_CUDA_RED_MAX:
      return v > a ? v : a;
    case GRT_CUDA_RED_MIN:
      return v < a ? v : a;
    default:
      return (int32_t)((uint32_t)a + (uint32_t)v);
  }
}

// Reference: each input element folded into its output by index, in order.
std::vector<int32_t> Direct(const std::vector<int64_t>& dims, const std::vector<int>& axes,
                            grt_cuda_red_op op, const std::vector<int32_t>& x) {
  std::vector<bool> red(dims.size(), false);
  for (int a : axes) red[a] = true;
  int64_t n_out = 1;
  for (size_t d = 0; d < dims.size(); d++)
    if (!red[d]) n_out *= dims[d];
  int32_t init = op == GRT_CUDA_RED_PROD  ? 1
                 : op == GRT_CUDA_RED_MAX ? INT32_MIN
                 : op == GRT_CUDA_RED_MIN ? INT32_MAX
                                          : 0;
  std::vector<int32_t> out((size_t)n_out, init);
  for (size_t i = 0; i < x.size(); i++) {
    int64_t rem = (int64_t)i, o = 0, scale = 1;
    for (int d = (int)dims.size() - 1; d >= 0; d--) {
      int64_t k = rem % dims[d];
      rem /= dims[d];
      if (!red[d]) {
        o += k * scale;
        scale *= dims[d];
      }
    }
    out[o] = Combine(op, out[o], x[i]);
  }
  return out;
}

TEST(ReducePlan, HostRunOfEveryKindMatchesADirectReduction) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int> axes;
  };
  const Case cases[] = {
      {{6, 7, 8}, {1}},
      {{6, 7, 8}, {0, 2}},
      {{6, 7, 8}, {2}},
      {{6, 7, 8}, {0, 1, 2}},
      {{2, 3, 4, 5, 6}, {0, 2, 4}},  // three reduced groups
      {{2, 3, 4, 5, 6}, {1, 3}},
      {{3, 1, 4, 5, 1, 6}, {2, 3, 4}},
      {{20000}, {0}},  // a full reduction cut into chunks
      {{3, 9000}, {1}},
      {{5000, 3}, {0}},  // tall narrow columns, cut
      {{3, 0, 4}, {1}},  // empty: the identity
      {{5, 1, 3}, {1}},  // a size-1 axis: a copy
      {{5, 3}, {}},
      {{1, 1}, {0, 1}},
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> small(-3, 3), big(INT32_MIN, INT32_MAX);
  for (const Case& c : cases)
    for (grt_cuda_red_op op :
         {GRT_CUDA_RED_SUM, GRT_CUDA_RED_PROD, GRT_CUDA_RED_MAX, GRT_CUDA_RED_MIN}) {
      int64_t n = 1;
      for (int64_t d : c.dims) n *= d;
      std::vector<int32_t> x((size_t)n);
      // Large values make Sum and Prod wrap, which must match too.
      for (auto& v : x) v = op == GRT_CUDA_RED_SUM ? big(rng) : small(rng);
      grt_cuda_red_plan p = Plan(c.dims, c.axes);
      std::vector<int32_t> want = Direct(c.dims, c.axes, op, x);
      std::vector<int32_t> got(want.size() + 1, 12345);  // one past the end: untouched
      grt_status* s = grt_cuda_reduce_host_i32(&p, op, x.data(), got.data());
      ASSERT_EQ(s, nullptr) << grt_status_message(s);
      EXPECT_EQ(got.back(), 12345);
      got.pop_back();
      EXPECT_EQ(got, want) << "op " << op << ", " << c.dims.size() << "-d case, " << p.n_passes
                           << " passes";
    }
}

TEST(ReducePlan, HostRunRefusesMean) {
  grt_cuda_red_plan p = Plan({4, 4}, {1});
  int32_t x[16] = {0}, y[4];
  grt_status* s = grt_cuda_reduce_host_i32(&p, GRT_CUDA_RED_MEAN, x, y);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_UNIMPLEMENTED);
  EXPECT_NE(std::string(grt_status_message(s)).find("Mean"), std::string::npos);
  grt_status_free(s);
}

// Every pass reads what the previous one wrote: its B (and A, C) multiply
// to the previous pass's output count, and the last writes n_out.
TEST(ReducePlan, PassesChainTheirSizes) {
  const std::vector<std::vector<int64_t>> shapes = {
      {7, 9000, 3, 5}, {1 << 16, 3, 2}, {3, 5, 7, 11, 13}, {40000, 2, 70}};
  for (const auto& dims : shapes)
    for (int mask = 1; mask < (1 << dims.size()); mask++) {
      std::vector<int> axes;
      for (size_t d = 0; d < dims.size(); d++)
        if (mask & (1 << d)) axes.push_back((int)d);
      grt_cuda_red_plan p = Plan(dims, axes);
      ASSERT_EQ(p.kind, GRT_CUDA_RED_PASSES);
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      for (int32_t k = 0; k < p.n_passes; k++) {
        const grt_cuda_red_pass& q = p.pass[k];
        EXPECT_EQ(q.A * q.B * q.C, n) << "mask " << mask << " pass " << k;
        EXPECT_GE(q.L, 1);
        EXPECT_LE(q.L, q.B);
        n = grt_cuda_red_pass_outputs(&q);
      }
      EXPECT_EQ(n, p.n_out) << "mask " << mask;
    }
}

}  // namespace
