// The CUDA plugin's tables of library calls (GRT_CUDNN_CALLS in
// cudnn_handle.h, GRT_CUBLAS_CALLS in cuda_internal.h) against the cuDNN
// and cuBLAS installed with the toolkit on this machine, through the same
// loader the plugin uses: every call the plugin names must be exported by
// the version it was compiled against, or the first convolution (or the
// first GPU device) fails on the GPU machine. Opening them needs no GPU.
// The toolkit's library folders come in GRT_TEST_CUDA_LIB_DIRS (BUILD).
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "backends/cuda/cudnn_handle.h"  // C headers with their own extern "C"

#define GRT_STR_(x) #x
#define GRT_STR(x) GRT_STR_(x)

namespace {

grt_cudnn_api g_cudnn_api;
grt_cublas_api g_cublas_api;

#define CUDNN_ROW(field, symbol) GRT_LAZY_ROW(grt_cudnn_api, field, symbol)
#define CUBLAS_ROW(field, symbol) GRT_LAZY_ROW(grt_cublas_api, field, symbol)
const grt_lazy_symbol kCudnn[] = {GRT_CUDNN_CALLS(CUDNN_ROW)};
const grt_lazy_symbol kCublas[] = {GRT_CUBLAS_CALLS(CUBLAS_ROW)};

// The library, or "" when this machine's toolkit has none (a skip).
std::string Open(grt_lazy_lib* l, const char* soname) {
  std::string dirs = getenv("GRT_TEST_CUDA_LIB_DIRS") ? getenv("GRT_TEST_CUDA_LIB_DIRS") : "";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string path = dirs.substr(at, end - at) + "/" + soname;
    if (!dirs.empty() && access(path.c_str(), F_OK) == 0) {
      grt_status* st = grt_lazy_lib_open(l, "the table test");
      std::string m = st ? grt_status_message(st) : "ok";
      grt_status_free(st);
      return m;
    }
    at = end + 1;
  }
  return "";
}

grt_lazy_lib Lib(const char* what, const char* const* names, const grt_lazy_symbol* rows, size_t n,
                 void* table) {
  grt_lazy_lib l{};
  l.what = what;
  l.sonames = names;
  l.symbols = rows;
  l.n_symbols = n;
  l.table = table;
  l.path_env = "GRT_TEST_CUDA_LIB_DIRS";
  pthread_mutex_init(&l.mu, nullptr);
  return l;
}

TEST(CudaLibTables, EveryCudnnCallThePluginNamesIsExported) {
  const char* names[] = {"libcudnn.so." GRT_STR(CUDNN_MAJOR), nullptr};
  grt_lazy_lib l = Lib("cuDNN", names, kCudnn, sizeof kCudnn / sizeof kCudnn[0], &g_cudnn_api);
  std::string m = Open(&l, names[0]);
  if (m.empty()) GTEST_SKIP() << names[0] << " is not installed with this toolkit";
  EXPECT_EQ(m, "ok");
  // A call that needs no GPU: the table points into the library.
  if (m == "ok") {
    EXPECT_NE(std::string(g_cudnn_api.GetErrorString(CUDNN_STATUS_NOT_SUPPORTED)), "");
  }
}

TEST(CudaLibTables, EveryCublasCallThePluginNamesIsExported) {
  const char* names[] = {"libcublas.so." GRT_STR(CUBLAS_VER_MAJOR), nullptr};
  grt_lazy_lib l = Lib("cuBLAS", names, kCublas, sizeof kCublas / sizeof kCublas[0], &g_cublas_api);
  std::string m = Open(&l, names[0]);
  if (m.empty()) GTEST_SKIP() << names[0] << " is not installed with this toolkit";
  EXPECT_EQ(m, "ok");
}

}  // namespace
