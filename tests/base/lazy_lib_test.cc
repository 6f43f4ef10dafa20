// The first-use library loader (base/lazy_lib.h) on
// host libraries: the table is filled from the first soname that loads, a
// missing library or call is an error naming it and what needed it, kept
// for every later caller, and concurrent first calls open it once. The
// search beyond the loader's path (the variable's folders first, the
// folders beside an anchor library, the Python package roots, companions
// opened first, a failure naming every folder) on fake library folders
// holding copies of the host's libm under other names.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cmath>
#include <cstddef>
#include <fstream>
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

// ---- the search path -------------------------------------------------------

// The host's libm, found from a function of it.
std::string HostLibm() {
  Dl_info info{};
  void* h = dlopen("libm.so.6", RTLD_NOW | RTLD_NOLOAD);
  void* cos_ = h ? dlsym(h, "cos") : nullptr;
  if (!cos_ || !dladdr(cos_, &info) || !info.dli_fname) return "";
  return info.dli_fname;
}

void MakeDirs(const std::string& path) {
  for (size_t at = 1; at != std::string::npos; at = path.find('/', at + 1))
    mkdir(path.substr(0, at).c_str(), 0755);
  mkdir(path.c_str(), 0755);
}

// A copy of libm at dir/name: a library the loader's path does not hold.
void FakeLib(const std::string& dir, const std::string& name) {
  MakeDirs(dir);
  std::ifstream in(HostLibm(), std::ios::binary);
  std::ofstream out(dir + "/" + name, std::ios::binary);
  out << in.rdbuf();
  ASSERT_TRUE(out.good()) << dir << "/" << name;
}

// The file the table's cos came from.
std::string Origin(void* fn) {
  Dl_info info{};
  return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "";
}

class LazyLibSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(HostLibm().empty());
    std::string tmpl = ::testing::TempDir() + "/lazy_lib_XXXXXX";
    ASSERT_NE(mkdtemp(&tmpl[0]), nullptr);
    root_ = tmpl;
    Save("GRT_TEST_LIBRARY_PATH");
    Save("VIRTUAL_ENV");
    Save("CONDA_PREFIX");
    unsetenv("GRT_TEST_LIBRARY_PATH");
    unsetenv("VIRTUAL_ENV");
    unsetenv("CONDA_PREFIX");
  }
  void TearDown() override {
    for (auto& kv : saved_) {
      if (kv.second.first)
        setenv(kv.first.c_str(), kv.second.second.c_str(), 1);
      else
        unsetenv(kv.first.c_str());
    }
  }
  void Save(const char* name) {
    const char* v = getenv(name);
    saved_.push_back({name, {v != nullptr, v ? v : ""}});
  }
  grt_lazy_lib Fake(const char* const* names, MathApi* api) {
    grt_lazy_lib l = Lib(names, kMath, 2, api);
    l.what = "the fake library";
    l.path_env = "GRT_TEST_LIBRARY_PATH";
    l.package_dirs = kPackageDirs;
    return l;
  }
  static constexpr const char* kPackageDirs[] = {"nvidia/fake/lib", nullptr};
  std::string root_;
  std::vector<std::pair<std::string, std::pair<bool, std::string>>> saved_;
};

constexpr const char* LazyLibSearch::kPackageDirs[];

TEST_F(LazyLibSearch, TheVariablesFoldersAreTriedInOrder) {
  FakeLib(root_ + "/b", "libgrt_fake.so.3");
  FakeLib(root_ + "/c", "libgrt_fake.so.3");
  std::string v = root_ + "/missing::" + root_ + "/b:" + root_ + "/c";
  setenv("GRT_TEST_LIBRARY_PATH", v.c_str(), 1);
  const char* names[] = {"libgrt_fake.so.3", nullptr};
  MathApi api{};
  grt_lazy_lib l = Fake(names, &api);
  ASSERT_EQ(Open(&l, "a test"), "");
  EXPECT_EQ(api.cos_(0.0), 1.0);
  EXPECT_EQ(Origin((void*)api.cos_), root_ + "/b/libgrt_fake.so.3");
}

TEST_F(LazyLibSearch, TheVariableWinsOverTheLoadersPath) {
  FakeLib(root_ + "/mine", "libm.so.6");
  setenv("GRT_TEST_LIBRARY_PATH", (root_ + "/mine").c_str(), 1);
  const char* names[] = {"libm.so.6", nullptr};
  MathApi api{};
  grt_lazy_lib l = Fake(names, &api);
  ASSERT_EQ(Open(&l, "a test"), "");
  EXPECT_EQ(Origin((void*)api.sqrt_), root_ + "/mine/libm.so.6");
}

TEST_F(LazyLibSearch, APythonPackageFolderUnderAVirtualEnvironment) {
  std::string venv = root_ + "/venv";
  FakeLib(venv + "/lib/python3.99/site-packages/nvidia/fake/lib", "libgrt_fake.so.3");
  setenv("VIRTUAL_ENV", venv.c_str(), 1);
  const char* names[] = {"libgrt_fake.so.3", nullptr};
  MathApi api{};
  grt_lazy_lib l = Fake(names, &api);
  ASSERT_EQ(Open(&l, "a test"), "");
  EXPECT_EQ(Origin((void*)api.cos_),
            venv + "/lib/python3.99/site-packages/nvidia/fake/lib/libgrt_fake.so.3");
}

TEST_F(LazyLibSearch, ASiblingOfTheAnchorsPackage) {
  // As cudart from a wheel: site/nvidia/cuda_runtime/lib/libcudart.so.13
  // beside site/nvidia/cublas/lib, in no Python root this search knows.
  std::string site = root_ + "/somewhere/site";
  FakeLib(site + "/nvidia/runtime/lib", "libgrt_anchor.so.1");
  FakeLib(site + "/nvidia/fake/lib", "libgrt_fake.so.3");
  void* anchor_lib =
      dlopen((site + "/nvidia/runtime/lib/libgrt_anchor.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(anchor_lib, nullptr) << dlerror();
  const char* names[] = {"libgrt_fake.so.3", nullptr};
  MathApi api{};
  grt_lazy_lib l = Fake(names, &api);
  l.anchor = reinterpret_cast<void (*)(void)>(dlsym(anchor_lib, "cos"));
  ASSERT_NE(l.anchor, nullptr);
  ASSERT_EQ(Open(&l, "a test"), "");
  EXPECT_EQ(Origin((void*)api.cos_), site + "/nvidia/fake/lib/libgrt_fake.so.3");
}

TEST_F(LazyLibSearch, CompanionsInTheFolderAreOpenedFirst) {
  FakeLib(root_ + "/lib", "libgrt_fake.so.3");
  FakeLib(root_ + "/lib", "libgrt_fakeLt.so.3");
  setenv("GRT_TEST_LIBRARY_PATH", (root_ + "/lib").c_str(), 1);
  const char* names[] = {"libgrt_fake.so.3", nullptr};
  const char* companions[] = {"libgrt_fakeLt.so.3", "libgrt_not_there.so.1", nullptr};
  MathApi api{};
  grt_lazy_lib l = Fake(names, &api);
  l.companions = companions;
  ASSERT_EQ(Open(&l, "a test"), "");
  std::string lt = root_ + "/lib/libgrt_fakeLt.so.3";
  void* h = dlopen(lt.c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr) << "the companion was not opened";
  if (h) dlclose(h);
}

TEST_F(LazyLibSearch, AFailureNamesEveryFolderTriedAndTheVariable) {
  MakeDirs(root_ + "/empty");
  std::string venv = root_ + "/venv";
  MakeDirs(venv + "/lib/python3.99/site-packages/nvidia/fake/lib");
  setenv("GRT_TEST_LIBRARY_PATH", (root_ + "/empty").c_str(), 1);
  setenv("VIRTUAL_ENV", venv.c_str(), 1);
  const char* names[] = {"libgrt_fake_absent.so.3", nullptr};
  MathApi api{};
  grt_lazy_lib l = Fake(names, &api);
  std::string m = Open(&l, "Conv2D");
  EXPECT_NE(m.find("Conv2D needs the fake library"), std::string::npos) << m;
  EXPECT_NE(m.find("libgrt_fake_absent.so.3 on the loader's path"), std::string::npos) << m;
  EXPECT_NE(m.find(root_ + "/empty"), std::string::npos) << m;
  EXPECT_NE(m.find(venv + "/lib/python3.99/site-packages/nvidia/fake/lib"), std::string::npos) << m;
  EXPECT_NE(m.find("set GRT_TEST_LIBRARY_PATH to the folder that holds it"), std::string::npos)
      << m;
}

}  // namespace
