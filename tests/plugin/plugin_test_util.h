// What the plugin tests share: the status check, where Bazel puts the
// plugins, and a float32 tensor's elements.
#ifndef GRT_TESTS_PLUGIN_PLUGIN_TEST_UTIL_H_
#define GRT_TESTS_PLUGIN_PLUGIN_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

// The absolute path of a file Bazel built in tests/plugin (dlopen wants a
// path, not a name to search).
inline std::string PluginPath(const char* name) {
  std::string rel = std::string("tests/plugin/") + name;
  char buf[PATH_MAX];
  return realpath(rel.c_str(), buf) ? std::string(buf) : rel;
}

inline std::vector<float> Floats(const grt_tensor* t) {
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  return std::vector<float>(p, p + grt_tensor_num_elements(t));
}

#endif  // GRT_TESTS_PLUGIN_PLUGIN_TEST_UTIL_H_
