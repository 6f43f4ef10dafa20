// GPU memory per process (backends/cuda/gpu_memory.h) on host memory: a
// fake card (aligned malloc with a capacity) stands for cudaMalloc, so the
// registry's sharing, reuse, option checks, memory_limit accounting and a
// leaked session's effect run on a machine with no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "backends/cuda/gpu_memory.h"
}

namespace {

constexpr size_t kMiB = 1024 * 1024;

// A card of `capacity` bytes: regions are aligned malloc, refused past it.
struct Card {
  size_t capacity;
  std::map<void*, size_t> live;
  int allocs = 0, frees = 0;
  explicit Card(size_t cap) : capacity(cap) {}
  ~Card() {
    for (auto& kv : live) std::free(kv.first);
  }
  size_t Used() const {
    size_t n = 0;
    for (auto& kv : live) n += kv.second;
    return n;
  }
  static void* Alloc(void* ctx, size_t bytes) {
    auto* c = static_cast<Card*>(ctx);
    if (bytes > c->capacity - c->Used()) return nullptr;
    void* m = std::aligned_alloc(GRT_BFC_ALIGNMENT, bytes);
    if (m) {
      c->live[m] = bytes;
      c->allocs++;
    }
    return m;
  }
  static void Free(void* ctx, void* base, size_t bytes) {
    auto* c = static_cast<Card*>(ctx);
    auto it = c->live.find(base);
    ASSERT_NE(it, c->live.end()) << "region given back twice or never handed out";
    EXPECT_EQ(it->second, bytes);
    c->live.erase(it);
    c->frees++;
    std::free(base);
  }
};

// As the plugin's limit: the logical GPU's size (else the whole card), at
// most what the card has free now.
struct Limit {
  Card* card;
  size_t want;  // 0: the card's free bytes
  int calls = 0;
  static size_t Get(void* ctx) {
    auto* l = static_cast<Limit*>(ctx);
    l->calls++;
    size_t free_bytes = l->card->capacity - l->card->Used();
    return l->want && l->want < free_bytes ? l->want : free_bytes;
  }
};

grt_gpu_memory_spec Spec(Card* card, Limit* limit, bool growth = false, double fraction = 1,
                         int index = 0, int count = 1, size_t size = 0) {
  grt_gpu_memory_spec s{};
  s.physical = 0;
  s.virtual_index = index;
  s.virtual_count = count;
  s.virtual_size = size;
  s.allow_growth = growth;
  s.memory_fraction = fraction;
  s.provider = grt_bfc_provider{Card::Alloc, Card::Free, card};
  s.limit = Limit::Get;
  s.limit_ctx = limit;
  return s;
}

std::string Take(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

class GpuMemory : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(grt_gpu_memory_new(&m_), nullptr); }
  void TearDown() override { grt_gpu_memory_free(m_); }
  grt_gpu_memory_account* Open(const grt_gpu_memory_spec& s, size_t limit = 0,
                               const char* name = "GPU:0") {
    grt_gpu_memory_account* a = nullptr;
    grt_status* st = grt_gpu_memory_open(m_, &s, name, limit, &a);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    return a;
  }
  int32_t Count(int32_t* idle = nullptr) { return grt_gpu_memory_count(m_, idle); }
  // Cards outlive the registry, which gives their regions back in TearDown.
  Card& NewCard(size_t capacity) {
    cards_.push_back(std::make_unique<Card>(capacity));
    return *cards_.back();
  }
  std::vector<std::unique_ptr<Card>> cards_;
  grt_gpu_memory* m_ = nullptr;
};

// Two sessions' devices of one logical GPU share one allocator: the card is
// reserved once, each account counts only its own blocks.
TEST_F(GpuMemory, TwoSessionsShareOneAllocator) {
  Card& card = NewCard(64 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  grt_gpu_memory_account* a = Open(s);
  grt_gpu_memory_account* b = Open(s);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(Count(), 1);
  EXPECT_EQ(card.allocs, 1);
  EXPECT_EQ(card.Used(), 64 * kMiB);
  EXPECT_EQ(limit.calls, 1);
  EXPECT_EQ(grt_gpu_memory_bfc(a), grt_gpu_memory_bfc(b));
  void* p = grt_gpu_memory_alloc(a, 1000, nullptr);
  void* q = grt_gpu_memory_alloc(b, 3 * kMiB, nullptr);
  ASSERT_TRUE(p && q);
  size_t in_use, peak;
  grt_gpu_memory_account_stats(a, &in_use, &peak);
  EXPECT_EQ(in_use, 1024u);  // rounded to 256 bytes, as the allocator holds it
  grt_gpu_memory_account_stats(b, &in_use, &peak);
  EXPECT_EQ(in_use, 3 * kMiB);
  grt_bfc_stats st;
  grt_bfc_get_stats(grt_gpu_memory_bfc(a), &st);
  EXPECT_EQ(st.in_use, 3 * kMiB + 1024);
  grt_gpu_memory_release(b, q);
  grt_gpu_memory_account_stats(b, &in_use, &peak);
  EXPECT_EQ(in_use, 0u);
  EXPECT_EQ(peak, 3 * kMiB);
  grt_gpu_memory_release(a, p);
  grt_gpu_memory_close(a, nullptr, nullptr);
  grt_gpu_memory_close(b, nullptr, nullptr);
}

// The allocator outlives its sessions: the next session of the same
// logical GPU and options reuses it, taking nothing more from the card.
TEST_F(GpuMemory, ManySessionsInALoopReuseOneAllocator) {
  Card& card = NewCard(64 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  for (int i = 0; i < 1000; i++) {
    grt_gpu_memory_account* a = Open(s);
    ASSERT_NE(a, nullptr);
    void* p = grt_gpu_memory_alloc(a, 60 * kMiB, nullptr);
    ASSERT_NE(p, nullptr) << i;
    grt_gpu_memory_release(a, p);
    grt_gpu_memory_close(a, nullptr, nullptr);
  }
  int32_t idle = 0;
  EXPECT_EQ(Count(&idle), 1);
  EXPECT_EQ(idle, 1);
  EXPECT_EQ(card.allocs, 1);
  EXPECT_EQ(card.frees, 0);
  EXPECT_EQ(limit.calls, 1);
}

// memory_limit bounds one session's account: past it the allocation is
// refused with the limit, the device and the shared allocator's state,
// the session stays usable, and another session is not bound by it.
TEST_F(GpuMemory, MemoryLimitRefusesPastTheSessionsLimit) {
  Card& card = NewCard(64 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  grt_gpu_memory_account* a = Open(s, kMiB, "GPU:0");
  grt_gpu_memory_account* b = Open(s);
  void* p = grt_gpu_memory_alloc(a, 512 * 1024, nullptr);
  ASSERT_NE(p, nullptr);
  grt_status* why = nullptr;
  EXPECT_EQ(grt_gpu_memory_alloc(a, 600 * 1024, &why), nullptr);
  ASSERT_NE(why, nullptr);
  EXPECT_EQ(grt_status_code(why), GRT_RESOURCE_EXHAUSTED);
  std::string msg = Take(why);
  EXPECT_NE(msg.find("memory_limit of 1048576 bytes on GPU:0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("524288 in use"), std::string::npos) << msg;
  EXPECT_NE(msg.find("largest free chunk"), std::string::npos) << msg;
  void* big = grt_gpu_memory_alloc(b, 32 * kMiB, nullptr);  // b has no limit
  EXPECT_NE(big, nullptr);
  size_t in_use, peak;
  grt_gpu_memory_account_stats(a, &in_use, &peak);
  EXPECT_EQ(in_use, 512 * 1024u);  // the refusal left nothing counted
  grt_gpu_memory_release(a, p);
  void* again = grt_gpu_memory_alloc(a, 600 * 1024, nullptr);
  EXPECT_NE(again, nullptr);
  EXPECT_EQ(grt_gpu_memory_alloc(a, 2 * kMiB, nullptr), nullptr);  // alone past the limit
  grt_gpu_memory_release(a, again);
  grt_gpu_memory_release(b, big);
  grt_gpu_memory_close(a, nullptr, nullptr);
  grt_gpu_memory_close(b, nullptr, nullptr);
}

// The shared allocator full (not the session's limit): the reason says so.
TEST_F(GpuMemory, AFullSharedAllocatorSaysSo) {
  Card& card = NewCard(8 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  grt_gpu_memory_account* a = Open(s, 0, "GPU:0");
  grt_status* why = nullptr;
  EXPECT_EQ(grt_gpu_memory_alloc(a, 9 * kMiB, &why), nullptr);
  std::string msg = Take(why);
  EXPECT_NE(msg.find("the process's allocator of GPU:0 (1 session) is full"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("reserved 8.0 MiB of limit 8.0 MiB"), std::string::npos) << msg;
  grt_gpu_memory_close(a, nullptr, nullptr);
}

// Options differing from an allocator a live session holds are refused,
// naming both; once no session holds it, it is made again with the new.
TEST_F(GpuMemory, MismatchingOptionsFailWhileHeldAndRemakeWhenIdle) {
  Card& card = NewCard(64 * kMiB);
  Limit limit{&card, 0};
  auto fixed = Spec(&card, &limit, false, 1);
  auto growth = Spec(&card, &limit, true, 1);
  auto half = Spec(&card, &limit, false, 0.5);
  grt_gpu_memory_account* a = Open(fixed);
  for (auto* other : {&growth, &half}) {
    grt_gpu_memory_account* b = nullptr;
    grt_status* st = grt_gpu_memory_open(m_, other, "GPU:0", 0, &b);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(b, nullptr);
    EXPECT_EQ(grt_status_code(st), GRT_FAILED_PRECONDITION);
    std::string msg = Take(st);
    EXPECT_NE(msg.find("made with gpu.allow_growth=false, gpu.memory_fraction=1 and 1 live "
                       "session holds it"),
              std::string::npos)
        << msg;
    EXPECT_NE(
        msg.find(other == &growth ? "asks for gpu.allow_growth=true" : "gpu.memory_fraction=0.5"),
        std::string::npos)
        << msg;
  }
  grt_gpu_memory_close(a, nullptr, nullptr);
  grt_gpu_memory_account* b = Open(growth);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(card.frees, 1);  // the fixed reservation went back
  EXPECT_EQ(Count(), 1);
  grt_bfc_stats st;
  grt_bfc_get_stats(grt_gpu_memory_bfc(b), &st);
  EXPECT_EQ(st.reserved, 0u);  // growing: nothing taken yet
  grt_gpu_memory_close(b, nullptr, nullptr);
}

// A session that is never freed (a test's failed ASSERT) holds only its
// own blocks: the next session of the logical GPU shares the allocator
// and finds the rest of it free, instead of a card with nothing left.
TEST_F(GpuMemory, ALeakedSessionDoesNotStarveTheNext) {
  Card& card = NewCard(64 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  grt_gpu_memory_account* leaked = Open(s);
  void* held = grt_gpu_memory_alloc(leaked, 16 * kMiB, nullptr);
  ASSERT_NE(held, nullptr);
  for (int i = 0; i < 3; i++) {
    grt_gpu_memory_account* next = Open(s);
    ASSERT_NE(next, nullptr);
    void* p = grt_gpu_memory_alloc(next, 40 * kMiB, nullptr);
    EXPECT_NE(p, nullptr) << i;
    grt_gpu_memory_release(next, p);
    grt_gpu_memory_close(next, nullptr, nullptr);
  }
  EXPECT_EQ(card.allocs, 1);
  grt_gpu_memory_release(leaked, held);
  grt_gpu_memory_close(leaked, nullptr, nullptr);
}

// Sessions with other layouts one after another: making a new logical
// GPU's allocator gives the card's idle ones back first. One held by a
// live session stays, and the new one is refused naming what holds the card.
TEST_F(GpuMemory, OtherLayoutsTakeTheCardFromIdleAllocators) {
  Card& card = NewCard(64 * kMiB);
  Limit whole{&card, 0}, part{&card, 16 * kMiB};
  auto plain = Spec(&card, &whole);
  auto v0 = Spec(&card, &part, false, 1, 0, 2, 16 * kMiB);
  auto v1 = Spec(&card, &part, false, 1, 1, 2, 16 * kMiB);
  grt_gpu_memory_close(Open(plain), nullptr, nullptr);
  EXPECT_EQ(card.Used(), 64 * kMiB);
  grt_gpu_memory_account* a = Open(v0);
  grt_gpu_memory_account* b = Open(v1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(Count(), 2);  // the whole-card allocator went back
  EXPECT_EQ(card.Used(), 32 * kMiB);
  EXPECT_NE(grt_gpu_memory_bfc(a), grt_gpu_memory_bfc(b));
  // The whole card again while v1 is held: v0 (idle) goes, v1 stays, and
  // the whole-card allocator takes what is left.
  grt_gpu_memory_close(a, nullptr, nullptr);
  grt_gpu_memory_account* c = Open(plain);
  ASSERT_NE(c, nullptr);
  grt_bfc_stats st;
  grt_bfc_get_stats(grt_gpu_memory_bfc(c), &st);
  EXPECT_EQ(st.limit, 48 * kMiB);
  // Nothing left for another logical GPU while both are held.
  grt_gpu_memory_account* d = nullptr;
  grt_status* err = grt_gpu_memory_open(m_, &v0, "GPU:0", 0, &d);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(grt_status_code(err), GRT_RESOURCE_EXHAUSTED);
  std::string msg = Take(err);
  EXPECT_NE(msg.find("card 0 has no memory free for GPU:0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("this process holds on card 0:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GPU:1 (gpu.allow_growth=false, 16 MiB (logical 1 of 2); 1 session, "
                     "reserved 16 MiB)"),
            std::string::npos)
      << msg;
  grt_gpu_memory_close(b, nullptr, nullptr);
  grt_gpu_memory_close(c, nullptr, nullptr);
}

// A device that goes while one of its blocks lives on (a fetched tensor):
// the account, and the allocator's hold, last until the block is released.
TEST_F(GpuMemory, AClosedAccountLastsUntilItsLastBlock) {
  Card& card = NewCard(64 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  grt_gpu_memory_account* a = Open(s);
  void* p = grt_gpu_memory_alloc(a, 1000, nullptr);
  int done = 0;
  auto count = [](void* arg) { ++*static_cast<int*>(arg); };
  grt_gpu_memory_close(a, count, &done);
  int32_t idle = -1;
  EXPECT_EQ(Count(&idle), 1);
  EXPECT_EQ(idle, 0);
  EXPECT_EQ(done, 0);
  grt_gpu_memory_release(a, p);
  EXPECT_EQ(Count(&idle), 1);
  EXPECT_EQ(idle, 1);
  EXPECT_EQ(done, 1);
  // With no block live, it closes at once.
  grt_gpu_memory_close(Open(s), count, &done);
  EXPECT_EQ(done, 2);
}

// Pinned host memory: one allocator per card, shared.
TEST_F(GpuMemory, PinnedHostMemoryIsOnePerCard) {
  Card& host = NewCard(64 * kMiB);
  grt_bfc_provider hp{Card::Alloc, Card::Free, &host};
  grt_gpu_memory_account *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(grt_gpu_memory_open_host(m_, 0, &hp, 32 * kMiB, "GPU:0", &a), nullptr);
  ASSERT_EQ(grt_gpu_memory_open_host(m_, 0, &hp, 32 * kMiB, "GPU:0", &b), nullptr);
  ASSERT_EQ(grt_gpu_memory_open_host(m_, 1, &hp, 32 * kMiB, "GPU:1", &c), nullptr);
  EXPECT_EQ(grt_gpu_memory_bfc(a), grt_gpu_memory_bfc(b));
  EXPECT_NE(grt_gpu_memory_bfc(a), grt_gpu_memory_bfc(c));
  void* p = grt_gpu_memory_alloc(a, kMiB, nullptr);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(Count(), 0);  // device allocators only
  grt_gpu_memory_release(a, p);
  for (auto* x : {a, b, c}) grt_gpu_memory_close(x, nullptr, nullptr);
}

// Sessions' threads at once on one allocator, each account under its
// limit: no account ever passes it, and all ends balanced.
TEST_F(GpuMemory, ThreadsOfSeveralSessionsAtOnce) {
  Card& card = NewCard(256 * kMiB);
  Limit limit{&card, 0};
  auto s = Spec(&card, &limit);
  const size_t kLimit = 8 * kMiB;
  std::vector<grt_gpu_memory_account*> acc = {Open(s, kLimit), Open(s, kLimit), Open(s)};
  std::atomic<bool> passed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; t++)
    threads.emplace_back([&, t] {
      grt_gpu_memory_account* a = acc[t % acc.size()];
      std::mt19937 rng(t);
      std::vector<void*> live;
      for (int i = 0; i < 3000; i++) {
        if (live.empty() || rng() % 3) {
          void* p = grt_gpu_memory_alloc(a, 1 + rng() % (2 * kMiB), nullptr);
          if (p) live.push_back(p);
        } else {
          size_t k = rng() % live.size();
          grt_gpu_memory_release(a, live[k]);
          live.erase(live.begin() + (long)k);
        }
        size_t in_use, peak;
        grt_gpu_memory_account_stats(a, &in_use, &peak);
        if (a != acc[2] && peak > kLimit) passed = true;
      }
      for (void* p : live) grt_gpu_memory_release(a, p);
    });
  for (auto& th : threads) th.join();
  EXPECT_FALSE(passed.load());
  for (auto* a : acc) {
    size_t in_use, peak;
    grt_gpu_memory_account_stats(a, &in_use, &peak);
    EXPECT_EQ(in_use, 0u);
  }
  grt_status* st = grt_bfc_check(grt_gpu_memory_bfc(acc[0]));
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_bfc_stats bs;
  grt_bfc_get_stats(grt_gpu_memory_bfc(acc[0]), &bs);
  EXPECT_EQ(bs.in_use, 0u);
  for (auto* a : acc) grt_gpu_memory_close(a, nullptr, nullptr);
}

}  // namespace
