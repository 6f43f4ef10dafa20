// The per-device cache of cuDNN choices (backends/cuda/dnn_cache.h): a key
// finds the value put under it and no other, a put replaces, the least
// recently used entry goes first when full (a get counts as a use), and
// every value is freed exactly once: on eviction, removal, replacement or
// with the cache.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

extern "C" {
#include "backends/cuda/dnn_cache.h"
}

namespace {

// Values are ints on the heap; the free hook counts each one.
std::map<int, int>* g_freed;

void FreeValue(void* v) {
  (*g_freed)[*static_cast<int*>(v)]++;
  delete static_cast<int*>(v);
}

struct Key {  // as the convolution's key: a struct of integers
  int32_t pass, dtype;
  int64_t dims[4];
};

Key K(int pass, int64_t n) { return Key{pass, 1, {n, 3, 8, 8}}; }

class DnnCache : public ::testing::Test {
 protected:
  void SetUp() override {
    g_freed = &freed_;
    ASSERT_EQ(grt_dnn_cache_new(3, FreeValue, &c_), nullptr);
  }
  void TearDown() override { grt_dnn_cache_free(c_); }
  void Put(const Key& k, int v) {
    ASSERT_EQ(grt_dnn_cache_put(c_, &k, sizeof k, new int(v)), nullptr);
  }
  int Get(const Key& k) {
    void* v = grt_dnn_cache_get(c_, &k, sizeof k);
    return v ? *static_cast<int*>(v) : -1;
  }
  grt_dnn_cache* c_ = nullptr;
  std::map<int, int> freed_;
};

TEST_F(DnnCache, AKeyFindsItsValueAndNoOther) {
  Put(K(0, 1), 10);
  Put(K(1, 1), 11);  // same shapes, another pass
  EXPECT_EQ(Get(K(0, 1)), 10);
  EXPECT_EQ(Get(K(1, 1)), 11);
  EXPECT_EQ(Get(K(0, 2)), -1);
  EXPECT_EQ(grt_dnn_cache_size(c_), 2u);
}

TEST_F(DnnCache, APutReplacesAndFreesTheOldValue) {
  Put(K(0, 1), 10);
  Put(K(0, 1), 20);
  EXPECT_EQ(Get(K(0, 1)), 20);
  EXPECT_EQ(freed_[10], 1);
  EXPECT_EQ(grt_dnn_cache_size(c_), 1u);
}

TEST_F(DnnCache, TheLeastRecentlyUsedGoesFirstWhenFull) {
  Put(K(0, 1), 1);
  Put(K(0, 2), 2);
  Put(K(0, 3), 3);
  EXPECT_EQ(Get(K(0, 1)), 1);  // 1 is now the most recent; 2 the least
  Put(K(0, 4), 4);
  EXPECT_EQ(grt_dnn_cache_size(c_), 3u);
  EXPECT_EQ(Get(K(0, 2)), -1);
  EXPECT_EQ(freed_[2], 1);
  EXPECT_EQ(Get(K(0, 1)), 1);
  EXPECT_EQ(Get(K(0, 3)), 3);
  EXPECT_EQ(Get(K(0, 4)), 4);
}

TEST_F(DnnCache, RemoveFreesAndForgets) {
  Put(K(0, 1), 1);
  Put(K(0, 2), 2);
  Key one = K(0, 1), nine = K(0, 9);
  grt_dnn_cache_remove(c_, &one, sizeof one);
  EXPECT_EQ(freed_[1], 1);
  EXPECT_EQ(Get(K(0, 1)), -1);
  EXPECT_EQ(Get(K(0, 2)), 2);
  grt_dnn_cache_remove(c_, &nine, sizeof nine);  // absent: nothing happens
  EXPECT_EQ(grt_dnn_cache_size(c_), 1u);
}

TEST_F(DnnCache, FreeingTheCacheFreesEveryValueOnce) {
  grt_dnn_cache* c;
  ASSERT_EQ(grt_dnn_cache_new(8, FreeValue, &c), nullptr);
  for (int i = 0; i < 5; i++) {
    Key k = K(2, i);
    ASSERT_EQ(grt_dnn_cache_put(c, &k, sizeof k, new int(100 + i)), nullptr);
  }
  grt_dnn_cache_free(c);
  for (int i = 0; i < 5; i++) EXPECT_EQ(freed_[100 + i], 1) << i;
  grt_dnn_cache_free(nullptr);
}

TEST(DnnCacheNew, ZeroCapacityIsRefused) {
  grt_dnn_cache* c = nullptr;
  grt_status* st = grt_dnn_cache_new(0, nullptr, &c);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  grt_status_free(st);
  EXPECT_EQ(c, nullptr);
}

}  // namespace
