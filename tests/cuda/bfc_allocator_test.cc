// The CUDA backend's best-fit-with-coalescing allocator, on host memory:
// the region provider here is aligned malloc, watched and refusable, so
// every policy (growth, reservation, limit, OOM and recovery) runs on a
// machine with no GPU. A shadow model of the live blocks checks every
// answer of a long random run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "backends/cuda/bfc_allocator.h"
}

namespace {

constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;

// Aligned malloc with a record of every region handed out, a cap on any
// one region's size and a switch that refuses everything.
struct Provider {
  std::map<void*, size_t> live;
  std::vector<size_t> asked;  // sizes asked for, in order (refused ones too)
  size_t max_region = SIZE_MAX;
  bool refuse = false;
  int frees = 0;

  static void* Alloc(void* ctx, size_t bytes) {
    auto* p = static_cast<Provider*>(ctx);
    p->asked.push_back(bytes);
    if (p->refuse || bytes > p->max_region) return nullptr;
    void* m = std::aligned_alloc(GRT_BFC_ALIGNMENT, bytes);
    if (m) p->live[m] = bytes;
    return m;
  }
  static void Free(void* ctx, void* base, size_t bytes) {
    auto* p = static_cast<Provider*>(ctx);
    auto it = p->live.find(base);
    ASSERT_NE(it, p->live.end()) << "region given back twice or never handed out";
    EXPECT_EQ(it->second, bytes);
    p->live.erase(it);
    p->frees++;
    std::free(base);
  }
  grt_bfc_provider Get() { return grt_bfc_provider{Alloc, Free, this}; }
  size_t LiveBytes() const {
    size_t n = 0;
    for (auto& kv : live) n += kv.second;
    return n;
  }
};

std::string Take(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

#define EXPECT_INVARIANTS(a) EXPECT_EQ(Take(grt_bfc_check(a)), "")

struct Bfc {
  Provider provider;
  grt_bfc* a = nullptr;
  Bfc(size_t limit, bool growth, size_t initial = 0) {
    grt_bfc_provider p = provider.Get();
    grt_bfc_options o{"GPU:0", limit, growth, initial};
    EXPECT_EQ(Take(grt_bfc_new(&p, &o, &a)), "");
  }
  ~Bfc() {
    grt_bfc_free_all(a);
    EXPECT_TRUE(provider.live.empty()) << "regions leaked";
  }
  grt_bfc_stats Stats() {
    grt_bfc_stats s;
    grt_bfc_get_stats(a, &s);
    return s;
  }
};

size_t Round(size_t n) { return n == 0 ? 256 : (n + 255) / 256 * 256; }

TEST(Bfc, AlignsRoundsAndCountsExactly) {
  Bfc b(4 * kMiB, false);
  ASSERT_NE(b.a, nullptr);
  EXPECT_EQ(b.provider.asked, std::vector<size_t>{4 * kMiB});  // reserved up front
  std::vector<void*> ps;
  size_t want = 0;
  for (size_t n : {0ul, 1ul, 255ul, 256ul, 257ul, 1000ul, 4096ul, 100000ul}) {
    void* p = grt_bfc_alloc(b.a, n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u) << n;
    EXPECT_EQ(grt_bfc_chunk_size(b.a, p), Round(n)) << n;
    std::memset(p, 0xab, n);  // the memory is really usable
    want += Round(n);
    ps.push_back(p);
    EXPECT_EQ(b.Stats().in_use, want);
  }
  EXPECT_INVARIANTS(b.a);
  auto s = b.Stats();
  EXPECT_EQ(s.allocs, 8);
  EXPECT_EQ(s.requested, 0 + 1 + 255 + 256 + 257 + 1000 + 4096 + 100000u);
  EXPECT_EQ(s.peak_in_use, want);
  EXPECT_EQ(s.reserved, 4 * kMiB);
  EXPECT_EQ(s.limit, 4 * kMiB);
  EXPECT_EQ(s.chunks, 9);  // eight blocks and the rest of the region
  for (void* p : ps) grt_bfc_release(b.a, p);
  s = b.Stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.peak_in_use, want);
  EXPECT_EQ(s.chunks, 1);  // everything merged back into one chunk
  EXPECT_EQ(s.largest_free, 4 * kMiB);
  EXPECT_INVARIANTS(b.a);
}

TEST(Bfc, PicksTheSmallestFreeChunkThatFits) {
  Bfc b(1 * kMiB, false);
  // [A 4K][g1][B 2K][g2][C 8K][g3][rest]: guards keep the holes apart.
  void* A = grt_bfc_alloc(b.a, 4 * kKiB);
  void* g1 = grt_bfc_alloc(b.a, 256);
  void* B = grt_bfc_alloc(b.a, 2 * kKiB);
  void* g2 = grt_bfc_alloc(b.a, 256);
  void* C = grt_bfc_alloc(b.a, 8 * kKiB);
  void* g3 = grt_bfc_alloc(b.a, 256);
  grt_bfc_release(b.a, A);
  grt_bfc_release(b.a, B);
  grt_bfc_release(b.a, C);
  EXPECT_INVARIANTS(b.a);
  EXPECT_EQ(grt_bfc_alloc(b.a, 1500), B);      // 2K hole is the best fit
  EXPECT_EQ(grt_bfc_alloc(b.a, 3 * kKiB), A);  // then the 4K one
  void* x = grt_bfc_alloc(b.a, 5 * kKiB);
  EXPECT_EQ(x, C);                         // then the 8K one, split
  void* y = grt_bfc_alloc(b.a, 3 * kKiB);  // the 3K left of C fits exactly
  EXPECT_EQ(static_cast<char*>(y), static_cast<char*>(C) + 5 * kKiB);
  // A's 1K remainder serves a 1K request before anything larger.
  EXPECT_EQ(static_cast<char*>(grt_bfc_alloc(b.a, 1 * kKiB)), static_cast<char*>(A) + 3 * kKiB);
  EXPECT_INVARIANTS(b.a);
  (void)g1, (void)g2, (void)g3;
}

TEST(Bfc, FreedNeighboursMergeInAnyOrder) {
  for (int order = 0; order < 6; order++) {
    Bfc b(64 * kKiB, false);
    void* p[3];
    for (auto& q : p) q = grt_bfc_alloc(b.a, 16 * kKiB);
    void* tail = grt_bfc_alloc(b.a, 16 * kKiB);  // fills the region
    ASSERT_NE(tail, nullptr);
    int idx[3] = {0, 1, 2};
    for (int k = 0; k < order; k++) std::next_permutation(idx, idx + 3);
    for (int k = 0; k < 3; k++) {
      grt_bfc_release(b.a, p[idx[k]]);
      EXPECT_INVARIANTS(b.a);
    }
    auto s = b.Stats();
    EXPECT_EQ(s.chunks, 2) << "order " << order;
    EXPECT_EQ(s.largest_free, 48 * kKiB);
    // The merged hole serves one block of all three sizes.
    EXPECT_EQ(grt_bfc_alloc(b.a, 48 * kKiB), p[0]);
  }
}

TEST(Bfc, FragmentationFailsWithTheStateNamedThenRecovers) {
  Bfc b(1 * kMiB, false);
  std::vector<void*> ps;
  for (int i = 0; i < 4; i++) ps.push_back(grt_bfc_alloc(b.a, 256 * kKiB));
  ASSERT_EQ(grt_bfc_alloc(b.a, 256), nullptr);  // full
  grt_bfc_release(b.a, ps[0]);
  grt_bfc_release(b.a, ps[2]);
  auto s = b.Stats();
  EXPECT_EQ(s.in_use, 512 * kKiB);
  EXPECT_EQ(s.largest_free, 256 * kKiB);
  // Half the memory is free, but no 512 KiB piece of it.
  EXPECT_EQ(grt_bfc_alloc(b.a, 512 * kKiB), nullptr);
  std::string m = Take(grt_bfc_oom_status(b.a, 512 * kKiB));
  EXPECT_NE(m.find("GPU:0"), std::string::npos) << m;
  EXPECT_NE(m.find("524288 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("in use 512.0 KiB"), std::string::npos) << m;
  EXPECT_NE(m.find("largest free chunk 256.0 KiB"), std::string::npos) << m;
  EXPECT_NE(m.find("limit 1.0 MiB"), std::string::npos) << m;
  EXPECT_GE(b.Stats().failed_allocs, 2);
  // Freeing a neighbour merges three pieces: the request now succeeds.
  grt_bfc_release(b.a, ps[1]);
  EXPECT_EQ(b.Stats().largest_free, 768 * kKiB);
  EXPECT_EQ(grt_bfc_alloc(b.a, 512 * kKiB), ps[0]);
  EXPECT_INVARIANTS(b.a);
}

TEST(Bfc, GrowthTakesDoublingRegionsUpToTheLimit) {
  Bfc b(7 * kMiB, true, 1 * kMiB);
  EXPECT_TRUE(b.provider.asked.empty());  // nothing up front
  void* p1 = grt_bfc_alloc(b.a, 100 * kKiB);
  EXPECT_EQ(b.provider.asked, std::vector<size_t>{1 * kMiB});
  void* p2 = grt_bfc_alloc(b.a, 1 * kMiB);  // does not fit the first region
  EXPECT_EQ(b.provider.asked.back(), 2 * kMiB);
  void* p3 = grt_bfc_alloc(b.a, 3 * kMiB);  // next would be 4 MiB: capped by the limit
  ASSERT_NE(p3, nullptr);
  EXPECT_EQ(b.provider.asked.back(), 4 * kMiB);
  auto s = b.Stats();
  EXPECT_EQ(s.reserved, 7 * kMiB);
  EXPECT_EQ(s.regions, 3);
  EXPECT_EQ(b.provider.LiveBytes(), 7 * kMiB);
  // At the limit: no more regions, however small the request.
  size_t asked = b.provider.asked.size();
  EXPECT_EQ(grt_bfc_alloc(b.a, 2 * kMiB), nullptr);
  EXPECT_EQ(b.provider.asked.size(), asked);
  EXPECT_LE(b.Stats().reserved, 7 * kMiB);
  grt_bfc_release(b.a, p1);
  grt_bfc_release(b.a, p2);
  grt_bfc_release(b.a, p3);
  EXPECT_INVARIANTS(b.a);
}

TEST(Bfc, GrowthGivesBackFreeRegionsBeforeFailing) {
  Bfc b(4 * kMiB, true, 1 * kMiB);
  void* p1 = grt_bfc_alloc(b.a, 1 * kMiB);
  void* p2 = grt_bfc_alloc(b.a, 2 * kMiB);
  grt_bfc_release(b.a, p1);
  grt_bfc_release(b.a, p2);
  EXPECT_EQ(b.Stats().reserved, 3 * kMiB);
  // 4 MiB needs the whole limit: the two free regions go back first.
  void* big = grt_bfc_alloc(b.a, 4 * kMiB);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(b.provider.frees, 2);
  auto s = b.Stats();
  EXPECT_EQ(s.regions, 1);
  EXPECT_EQ(s.reserved, 4 * kMiB);
  EXPECT_INVARIANTS(b.a);
  grt_bfc_release(b.a, big);
}

TEST(Bfc, GrowthBacksOffWhenTheProviderRefusesLargeRegions) {
  Bfc b(64 * kMiB, true, 8 * kMiB);
  b.provider.max_region = 3 * kMiB;  // the card has little free
  void* p = grt_bfc_alloc(b.a, 1 * kMiB);
  ASSERT_NE(p, nullptr);
  // Asked 8 MiB, then 4, then 2 (which fits the provider).
  EXPECT_EQ(b.provider.asked, (std::vector<size_t>{8 * kMiB, 4 * kMiB, 2 * kMiB}));
  b.provider.refuse = true;
  EXPECT_EQ(grt_bfc_alloc(b.a, 2 * kMiB), nullptr);  // no region to be had
  b.provider.refuse = false;
  EXPECT_NE(grt_bfc_alloc(b.a, 2 * kMiB), nullptr);  // and recovers
  EXPECT_INVARIANTS(b.a);
}

TEST(Bfc, ReservingUpFrontFailsWithTheBytesNamed) {
  Provider p;
  p.refuse = true;
  grt_bfc_provider gp = p.Get();
  grt_bfc_options o{"GPU:1", 3 * kMiB, false, 0};
  grt_bfc* a = nullptr;
  std::string m = Take(grt_bfc_new(&gp, &o, &a));
  EXPECT_EQ(a, nullptr);
  EXPECT_NE(m.find("GPU:1"), std::string::npos) << m;
  EXPECT_NE(m.find("3145728 bytes"), std::string::npos) << m;
  EXPECT_TRUE(p.live.empty());
}

TEST(Bfc, WithoutGrowthNeverAsksTwice) {
  Bfc b(1 * kMiB, false);
  void* p = grt_bfc_alloc(b.a, 1 * kMiB);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(grt_bfc_alloc(b.a, 1), nullptr);
  EXPECT_EQ(b.provider.asked.size(), 1u);
  grt_bfc_release(b.a, p);
  EXPECT_NE(grt_bfc_alloc(b.a, 1), nullptr);  // OOM then recovery
}

TEST(Bfc, OddRequestsAndFrees) {
  Bfc b(1 * kMiB, false);
  EXPECT_EQ(grt_bfc_alloc(b.a, SIZE_MAX), nullptr);
  EXPECT_EQ(grt_bfc_alloc(b.a, SIZE_MAX - 10), nullptr);
  EXPECT_EQ(grt_bfc_alloc(b.a, 2 * kMiB), nullptr);
  grt_bfc_release(b.a, nullptr);
  int x;
  grt_bfc_release(b.a, &x);  // not ours: ignored and counted
  EXPECT_EQ(grt_bfc_bad_frees(b.a), 1);
  void* p = grt_bfc_alloc(b.a, 512);
  grt_bfc_release(b.a, p);
  grt_bfc_release(b.a, p);  // twice: the second is not live any more
  EXPECT_EQ(grt_bfc_bad_frees(b.a), 2);
  EXPECT_EQ(b.Stats().in_use, 0u);
  EXPECT_INVARIANTS(b.a);
}

// A long random run against a shadow model: every live block keeps its
// contents, no two overlap, the counters equal the model's sums, and the
// invariants hold throughout.
void RandomRun(bool growth, uint32_t seed) {
  Bfc b(32 * kMiB, growth, 256 * kKiB);
  std::mt19937 rng(seed);
  struct Block {
    size_t size;
    unsigned char fill;
  };
  std::map<char*, Block> model;
  size_t in_use = 0, peak = 0;
  auto sizes = [&]() -> size_t {
    switch (rng() % 4) {
      case 0:
        return rng() % 512;
      case 1:
        return rng() % (16 * kKiB);
      case 2:
        return rng() % (256 * kKiB);
      default:
        return rng() % (4 * kMiB);
    }
  };
  for (int step = 0; step < 6000; step++) {
    bool do_alloc = model.empty() || rng() % 100 < 55;
    if (do_alloc) {
      size_t n = sizes();
      char* p = static_cast<char*>(grt_bfc_alloc(b.a, n));
      if (!p) {
        // Allowed only when no free chunk is large enough and (growing) no
        // region can be added within the limit.
        auto s = b.Stats();
        EXPECT_LT(s.largest_free, Round(n)) << "step " << step;
        if (growth) {  // the provider never refuses here: only the limit can
          EXPECT_LT(s.limit - s.reserved, Round(n)) << "refused " << n << " bytes, step " << step;
        }
        continue;
      }
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
      auto next = model.lower_bound(p);
      if (next != model.end()) {
        ASSERT_LE(p + Round(n), next->first) << "overlap";
      }
      if (next != model.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + Round(prev->second.size), p) << "overlap";
      }
      unsigned char fill = static_cast<unsigned char>(rng());
      std::memset(p, fill, n);
      model[p] = {n, fill};
      in_use += Round(n);
      peak = std::max(peak, in_use);
    } else {
      auto it = model.begin();
      std::advance(it, rng() % model.size());
      for (size_t i = 0; i < it->second.size; i += 97)
        ASSERT_EQ(static_cast<unsigned char>(it->first[i]), it->second.fill) << "clobbered";
      if (it->second.size) {
        ASSERT_EQ(static_cast<unsigned char>(it->first[it->second.size - 1]), it->second.fill);
      }
      in_use -= Round(it->second.size);
      grt_bfc_release(b.a, it->first);
      model.erase(it);
    }
    auto s = b.Stats();
    ASSERT_EQ(s.in_use, in_use);
    ASSERT_EQ(s.peak_in_use, peak);
    ASSERT_EQ(s.allocs, static_cast<int64_t>(model.size()));
    ASSERT_LE(s.reserved, 32 * kMiB);
    ASSERT_EQ(s.reserved, b.provider.LiveBytes());
    if (step % 50 == 0) {
      ASSERT_EQ(Take(grt_bfc_check(b.a)), "") << "step " << step;
    }
  }
  for (auto& kv : model) grt_bfc_release(b.a, kv.first);
  auto s = b.Stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.chunks, s.regions);  // each region one free chunk again
  EXPECT_INVARIANTS(b.a);
}

TEST(Bfc, RandomRunAgainstAModelReserved) { RandomRun(false, 1); }
TEST(Bfc, RandomRunAgainstAModelGrowing) { RandomRun(true, 2); }
TEST(Bfc, RandomRunAgainstAModelOtherSeeds) {
  RandomRun(false, 3);
  RandomRun(true, 4);
}

TEST(Bfc, ThreadsShareOneAllocator) {
  Bfc b(64 * kMiB, true, 1 * kMiB);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; t++)
    ts.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      std::vector<std::pair<char*, unsigned char>> mine;
      for (int i = 0; i < 3000; i++) {
        if (mine.empty() || rng() % 2) {
          char* p = static_cast<char*>(grt_bfc_alloc(b.a, 256 + rng() % (64 * kKiB)));
          if (!p) continue;
          unsigned char f = static_cast<unsigned char>(t * 16 + i);
          std::memset(p, f, 256);
          mine.push_back({p, f});
        } else {
          size_t k = rng() % mine.size();
          EXPECT_EQ(static_cast<unsigned char>(mine[k].first[255]), mine[k].second);
          grt_bfc_release(b.a, mine[k].first);
          mine.erase(mine.begin() + static_cast<long>(k));
        }
      }
      for (auto& m : mine) grt_bfc_release(b.a, m.first);
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(b.Stats().in_use, 0u);
  EXPECT_INVARIANTS(b.a);
}

}  // namespace
