// The first-use library loader (base/lazy_lib.h) on
// host libraries: the table is filled from the first soname that loads, a
// missing library or call is an error naming it and what needed it, kept
// for every later caller, and concurrent first calls open it once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "base/lazy_lib.h"
}

namespace {

struct MathApi {
  double (*cos_)(double);
  double (*sqrt_)(double);
};

const grt_lazy_symbol kMath[] = {
    {"cos", offsetof(MathApi, cos_)},
    {"sqrt", offsetof(MathApi, sqrt_)},
};

grt_lazy_lib Lib(const char* const* sonames, const grt_lazy_symbol* symbols, size_t n,
                 void* table) {
  grt_lazy_lib l{};
  l.what = "libm";
  l.sonames = sonames;
  l.symbols = symbols;
  l.n_symbols = n;
  l.table = table;
  pthread_mutex_init(&l.mu, nullptr);
  return l;
}

std::string Open(grt_lazy_lib* l, const char* needed_for) {
  grt_status* s = grt_lazy_lib_open(l, needed_for);
  if (!s) return "";
  EXPECT_EQ(grt_status_code(s), GRT_FAILED_PRECONDITION);
  std::string m = grt_status_message(s);
  grt_status_free(s);
  return m;
}

TEST(LazyLib, FillsTheTableFromTheFirstNameThatLoads) {
  const char* names[] = {"libgrt_no_such_library.so.7", "libm.so.6", nullptr};
  MathApi api{};
  grt_lazy_lib l = Lib(names, kMath, 2, &api);
  EXPECT_EQ(Open(&l, "a test"), "");
  ASSERT_NE(api.cos_, nullptr);
  ASSERT_NE(api.sqrt_, nullptr);
  EXPECT_EQ(api.cos_(0.0), 1.0);
  EXPECT_EQ(api.sqrt_(9.0), 3.0);
  EXPECT_EQ(Open(&l, "a test"), "");  // open already: nothing more
}

TEST(LazyLib, AMissingLibraryIsAnErrorNamingItAndWhatNeededIt) {
  const char* names[] = {"libgrt_no_such_library.so.7", nullptr};
  MathApi api{};
  grt_lazy_lib l = Lib(names, kMath, 2, &api);
  l.what = "cuDNN";
  std::string m = Open(&l, "Conv2D");
  EXPECT_NE(m.find("Conv2D needs cuDNN"), std::string::npos) << m;
  EXPECT_NE(m.find("libgrt_no_such_library.so.7"), std::string::npos) << m;
  EXPECT_EQ(api.cos_, nullptr);
  // Kept: the next caller gets the same reason, with its own need.
  std::string again = Open(&l, "Conv2DBackpropInput");
  EXPECT_NE(again.find("Conv2DBackpropInput needs cuDNN"), std::string::npos) << again;
  EXPECT_NE(again.find("libgrt_no_such_library.so.7"), std::string::npos) << again;
}

TEST(LazyLib, AMissingCallIsAnErrorNamingTheCallAndTheLibrary) {
  const char* names[] = {"libm.so.6", nullptr};
  const grt_lazy_symbol symbols[] = {
      {"cos", offsetof(MathApi, cos_)},
      {"grt_no_such_call", offsetof(MathApi, sqrt_)},
  };
  MathApi api{};
  grt_lazy_lib l = Lib(names, symbols, 2, &api);
  std::string m = Open(&l, "MatMul");
  EXPECT_NE(m.find("MatMul needs libm"), std::string::npos) << m;
  EXPECT_NE(m.find("libm.so.6 has no grt_no_such_call"), std::string::npos) << m;
}

TEST(LazyLib, ConcurrentFirstCallsAllSucceed) {
  const char* names[] = {"libm.so.6", nullptr};
  MathApi api{};
  grt_lazy_lib l = Lib(names, kMath, 2, &api);
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (size_t i = 0; i < results.size(); i++)
    threads.emplace_back([&, i] { results[i] = Open(&l, "a test"); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, "");
  ASSERT_NE(api.sqrt_, nullptr);
  EXPECT_EQ(api.sqrt_(16.0), 4.0);
}

}  // namespace
