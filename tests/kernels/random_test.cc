// Random generators: Philox4x32-10 against the Random123 known-answer
// vectors; the kernels' outputs against values derived here from the raw
// Philox stream with TensorFlow's keying, per-run advance and conversions;
// statistics, determinism and work splitting.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"

extern "C" {
#include "backends/cpu/random_philox.h"
}

namespace grt_test {
namespace {

std::vector<double> Values(const grt_tensor* t) {
  std::vector<double> v(grt_tensor_num_elements(t));
  for (size_t i = 0; i < v.size(); i++) v[i] = At(t, static_cast<int64_t>(i));
  return v;
}

// From the Random123 distribution's kat_vectors (counter, key -> output).
TEST(Philox, KnownAnswerVectors) {
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  } kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    grt_philox g;
    std::memcpy(g.counter, k.ctr, sizeof g.counter);
    std::memcpy(g.key, k.key, sizeof g.key);
    uint32_t out[4];
    grt_philox_next(&g, out);
    for (int i = 0; i < 4; i++) EXPECT_EQ(out[i], k.out[i]) << i;
  }
}

TEST(Philox, SkipCarriesAcrossWords) {
  grt_philox g;
  grt_philox_init(&g, 0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(g.key[0], 0x55667788u);
  EXPECT_EQ(g.key[1], 0x11223344u);
  EXPECT_EQ(g.counter[2], 0xddeeff00u);
  EXPECT_EQ(g.counter[3], 0x99aabbccu);
  g.counter[0] = 0xfffffff0u;
  g.counter[1] = 0xffffffffu;
  grt_philox_skip(&g, 0x20);
  EXPECT_EQ(g.counter[0], 0x10u);
  EXPECT_EQ(g.counter[1], 0u);
  EXPECT_EQ(g.counter[2], 0xddeeff01u);
  // Skipping n blocks is generating n blocks.
  grt_philox a, b;
  grt_philox_init(&a, 7, 9);
  b = a;
  uint32_t w[4], x[4];
  for (int i = 0; i < 1000; i++) grt_philox_next(&a, w);
  grt_philox_next(&a, w);
  grt_philox_skip(&b, 1000);
  grt_philox_next(&b, x);
  EXPECT_EQ(std::memcmp(w, x, sizeof w), 0);
}

// The block TensorFlow's generator for (seed, seed2) gives after `skip` blocks.
std::vector<uint32_t> Block(uint64_t seed, uint64_t seed2, uint64_t skip) {
  grt_philox g;
  grt_philox_init(&g, seed, seed2);
  grt_philox_skip(&g, skip);
  std::vector<uint32_t> out(4);
  grt_philox_next(&g, out.data());
  return out;
}

// 23 random mantissa bits as a fraction: TensorFlow's Uint32ToFloat.
double UniformBits(uint32_t x) { return (x & 0x7fffff) / 8388608.0; }

void Normals(uint32_t a, uint32_t b, double* f0, double* f1) {
  double u1 = std::max(UniformBits(a), 1e-7), v1 = 2 * M_PI * UniformBits(b);
  double r = std::sqrt(-2 * std::log(u1));
  *f0 = r * std::sin(v1);
  *f1 = r * std::cos(v1);
}

OpRun* NewRandom(const char* op, grt_dtype t, std::vector<int64_t> shape, int64_t seed,
                 int64_t seed2) {
  OpRun* r = new OpRun(op);
  r->AttrType("dtype", t).AttrType("T", GRT_INT32).AttrInt("seed", seed).AttrInt("seed2", seed2);
  r->Input(T_<int32_t>({static_cast<int64_t>(shape.size())},
                       std::vector<double>(shape.begin(), shape.end())));
  return r;
}

TEST(RandomKernels, UniformIsTensorFlowsStreamAndAdvancesPerRun) {
  std::unique_ptr<OpRun> r(NewRandom("RandomUniform", GRT_FLOAT32, {2, 5}, 87654321, 87654322));
  for (int run = 0; run < 3; run++) {
    ASSERT_OK(r->Run());
    std::vector<double> want;
    // 10 outputs reserve 10 * 256 blocks per run; 4 floats per block.
    for (int b = 0; b < 3; b++)
      for (uint32_t w : Block(87654321, 87654322, run * 2560 + b)) want.push_back(UniformBits(w));
    want.resize(10);
    ExpectNear(r->Output(0), {2, 5}, want, 0);
  }
}

TEST(RandomKernels, UniformDoubleUsesTwoWordsPerValue) {
  std::unique_ptr<OpRun> r(NewRandom("RandomUniform", GRT_FLOAT64, {3}, 5, 6));
  ASSERT_OK(r->Run());
  std::vector<double> want;
  for (int b = 0; b < 2; b++) {
    std::vector<uint32_t> w = Block(5, 6, b);
    for (int i = 0; i < 2; i++)
      want.push_back(((static_cast<uint64_t>(w[2 * i] & 0xfffff) << 32) | w[2 * i + 1]) /
                     4503599627370496.0);
  }
  want.resize(3);
  ExpectNear(r->Output(0), {3}, want, 0);
}

TEST(RandomKernels, NormalIsBoxMullerOverTheStream) {
  std::unique_ptr<OpRun> r(NewRandom("RandomStandardNormal", GRT_FLOAT32, {6}, 1, 2));
  ASSERT_OK(r->Run());
  std::vector<double> want;
  for (int b = 0; b < 2; b++) {
    std::vector<uint32_t> w = Block(1, 2, b);
    double f[4];
    Normals(w[0], w[1], &f[0], &f[1]);
    Normals(w[2], w[3], &f[2], &f[3]);
    want.insert(want.end(), f, f + 4);
  }
  want.resize(6);
  ExpectNear(r->Output(0), {6}, want, 1e-5);
}

TEST(RandomKernels, TruncatedNormalRejectsAndGivesEachGroupItsWindow) {
  std::unique_ptr<OpRun> r(NewRandom("TruncatedNormal", GRT_FLOAT32, {8}, 3, 4));
  ASSERT_OK(r->Run());
  // Group g (4 outputs) reads words from block g * 256 on, keeping |x| < 2.
  std::vector<double> want;
  for (int g = 0; g < 2; g++) {
    grt_philox gen;
    grt_philox_init(&gen, 3, 4);
    grt_philox_skip(&gen, g * 256);
    std::vector<double> got;
    while (got.size() < 4) {
      uint32_t w[4];
      grt_philox_next(&gen, w);
      for (int i = 0; i < 4 && got.size() < 4; i += 2) {
        double f[2];
        Normals(w[i], w[i + 1], &f[0], &f[1]);
        for (double x : f)
          if (std::fabs(x) < 2 && got.size() < 4) got.push_back(x);
      }
    }
    want.insert(want.end(), got.begin(), got.end());
  }
  ExpectNear(r->Output(0), {8}, want, 1e-5);
}

struct Stats {
  double mean = 0, var = 0, lo = 1e300, hi = -1e300;
};

Stats Measure(const grt_tensor* t) {
  std::vector<double> v = Values(t);
  Stats s;
  for (double x : v) {
    s.mean += x;
    s.lo = std::min(s.lo, x);
    s.hi = std::max(s.hi, x);
  }
  s.mean /= v.size();
  for (double x : v) s.var += (x - s.mean) * (x - s.mean);
  s.var /= v.size();
  return s;
}

TEST(RandomKernels, DistributionsHaveTheRightMoments) {
  const int64_t n = 200000;
  // Variance of a standard normal truncated to (-2, 2).
  const double phi2 = std::exp(-2.0) / std::sqrt(2 * M_PI);
  const double trunc_var = 1 - 4 * phi2 / std::erf(2 / std::sqrt(2.0));
  for (grt_dtype t : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16}) {
    SCOPED_TRACE(grt_dtype_name(t));
    std::unique_ptr<OpRun> u(NewRandom("RandomUniform", t, {n}, 11, 12));
    ASSERT_OK(u->Run());
    Stats su = Measure(u->Output(0));
    EXPECT_GE(su.lo, 0);
    EXPECT_LT(su.hi, 1);
    EXPECT_NEAR(su.mean, 0.5, 0.01);
    EXPECT_NEAR(su.var, 1.0 / 12, 0.005);

    std::unique_ptr<OpRun> z(NewRandom("RandomStandardNormal", t, {n}, 11, 12));
    ASSERT_OK(z->Run());
    Stats sz = Measure(z->Output(0));
    EXPECT_NEAR(sz.mean, 0, 0.01);
    EXPECT_NEAR(sz.var, 1, 0.02);
    EXPECT_GT(sz.hi, 3);  // tails are there

    std::unique_ptr<OpRun> tn(NewRandom("TruncatedNormal", t, {n}, 11, 12));
    ASSERT_OK(tn->Run());
    Stats st = Measure(tn->Output(0));
    if (t == GRT_FLOAT32 || t == GRT_FLOAT64) {
      EXPECT_GT(st.lo, -2);
      EXPECT_LT(st.hi, 2);
    } else {  // checked in float32, then rounded (as TensorFlow does): 2 can appear
      EXPECT_GE(st.lo, -2);
      EXPECT_LE(st.hi, 2);
    }
    EXPECT_NEAR(st.mean, 0, 0.01);
    EXPECT_NEAR(st.var, trunc_var, 0.02);
  }
}

TEST(RandomKernels, HalfUniformHasTenRandomMantissaBits) {
  std::unique_ptr<OpRun> r(NewRandom("RandomUniform", GRT_FLOAT16, {4096}, 21, 22));
  ASSERT_OK(r->Run());
  std::set<double> distinct;
  for (double x : Values(r->Output(0))) {
    EXPECT_EQ(x * 1024, std::floor(x * 1024));
    distinct.insert(x);
  }
  EXPECT_GT(distinct.size(), 900u);  // of 1024 possible
}

TEST(RandomKernels, SameSeedsRepeatOtherSeedsDiffer) {
  auto first = [](int64_t seed, int64_t seed2) {
    std::unique_ptr<OpRun> r(NewRandom("RandomStandardNormal", GRT_FLOAT32, {64}, seed, seed2));
    grt_status* s = r->Run();
    EXPECT_EQ(s, nullptr);
    grt_status_free(s);
    return Values(r->Output(0));
  };
  EXPECT_EQ(first(1, 2), first(1, 2));
  EXPECT_NE(first(1, 2), first(1, 3));
  EXPECT_NE(first(1, 2), first(2, 2));
  EXPECT_NE(first(0, 0), first(0, 0));  // seeds from the OS
}

TEST(RandomKernels, ShapeMustBeNonNegative) {
  // -1 passes validation (an unknown dimension) but cannot be run.
  std::unique_ptr<OpRun> r(NewRandom("RandomUniform", GRT_FLOAT32, {2, -1}, 1, 1));
  grt_status* s = r->Run();
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_STREQ(grt_status_message(s), "Dimension -1 must be >= 0");
  grt_status_free(s);
}

// The same node run with an intra-op pool and without gives the same values
// (the groups' stream positions do not depend on the split).
TEST(RandomKernels, SplittingTheWorkDoesNotChangeTheValues) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    grt_graph* g = nullptr;
    ASSERT_OK(grt_graph_new(&g));
    int32_t c, n;
    grt_tensor* shape = T_<int32_t>({1}, {100003});
    ASSERT_OK(grt_graph_add_node(g, "shape", "Const", &c));
    ASSERT_OK(grt_graph_set_attr_type(g, c, "dtype", GRT_INT32));
    ASSERT_OK(grt_graph_set_attr_tensor(g, c, "value", shape));
    ASSERT_OK(grt_graph_add_node(g, "r", op, &n));
    ASSERT_OK(grt_graph_set_attr_type(g, n, "dtype", GRT_FLOAT32));
    ASSERT_OK(grt_graph_set_attr_type(g, n, "T", GRT_INT32));
    ASSERT_OK(grt_graph_set_attr_int(g, n, "seed", 42));
    ASSERT_OK(grt_graph_add_input(g, n, "shape"));
    ASSERT_OK(grt_graph_validate(g));
    const grt_op_kernel* k = grt_cpu_kernel_lookup(op);
    std::vector<double> got[2];
    for (int i = 0; i < 2; i++) {
      void* state = nullptr;
      ASSERT_OK(k->create_state(&g->nodes[n], &state));
      grt_tensor* in[1] = {shape};
      grt_var* in_refs[1] = {nullptr};
      grt_tensor* out[1] = {nullptr};
      grt_var* out_refs[1] = {nullptr};
      grt_kernel_ctx ctx = {};
      ctx.node = &g->nodes[n];
      ctx.n_inputs = 1;
      ctx.inputs = in;
      ctx.input_refs = in_refs;
      ctx.n_outputs = 1;
      ctx.outputs = out;
      ctx.output_refs = out_refs;
      ctx.allocator = grt_host_allocator();
      ctx.intra_op = i == 0 ? TestPool() : nullptr;
      ctx.state = state;
      ASSERT_OK(k->compute(&ctx));
      got[i] = Values(out[0]);
      grt_tensor_free(out[0]);
      k->free_state(state);
    }
    EXPECT_EQ(got[0], got[1]) << op;
    EXPECT_EQ(got[0].size(), 100003u);
    grt_tensor_free(shape);
    grt_graph_free(g);
  }
}

}  // namespace
}  // namespace grt_test
