// Helpers the memory-limit and cancellation tests share: a graph whose work
// and memory grow with a fed shape, and the bytes a session's devices hold.
#ifndef GRT_TESTS_SESSION_LIMITS_COMMON_H_
#define GRT_TESTS_SESSION_LIMITS_COMMON_H_

#include <gtest/gtest.h>

#include <string>

#include "grt/grt.h"
#include "runtime/session/session_internal.h"

namespace limits_test {

#define LT_ASSERT_OK(expr)                            \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

// s = Sum(RandomUniform(shape)) over a fed shape: shape [r, c] allocates
// r*c floats and takes time in proportion; c2 = s * 2 + 1 runs after it.
inline const char* kGraph = R"({"format": "grt.graph", "version": 1, "nodes": [
  {"name": "shape", "op": "Placeholder", "attrs": {"dtype": "int32", "shape": [2]}},
  {"name": "r", "op": "RandomUniform", "inputs": ["shape"], "attrs": {"dtype": "float32", "T": "int32", "seed": 1}},
  {"name": "axes", "op": "Const", "attrs": {"dtype": "int32", "value": {"dtype": "int32", "shape": [2], "values": [0, 1]}}},
  {"name": "s", "op": "Sum", "inputs": ["r", "axes"], "attrs": {"keep_dims": false}},
  {"name": "two", "op": "Const", "attrs": {"dtype": "float32", "value": {"dtype": "float32", "shape": [], "values": [2]}}},
  {"name": "s2", "op": "Mul", "inputs": ["s", "two"]}
]})";

inline grt_graph* ParseGraph() {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(kGraph, strlen(kGraph), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

inline grt_tensor* Shape(int32_t rows, int32_t cols) {
  grt_tensor* t = nullptr;
  int64_t dims[] = {2};
  grt_status_free(grt_tensor_new(GRT_INT32, 1, dims, &t));
  int32_t* p = static_cast<int32_t*>(grt_tensor_data(t));
  p[0] = rows;
  p[1] = cols;
  return t;
}

// Runs s2 for a [rows, cols] draw; returns the status, frees the fetch.
inline grt_status* RunOnce(grt_session* s, const grt_run_options* ro, int32_t rows, int32_t cols,
                           float* out = nullptr) {
  grt_tensor* shape = Shape(rows, cols);
  grt_feed feed = {"shape", shape};
  const char* fetch = "s2";
  grt_tensor* value = nullptr;
  grt_status* st =
      grt_session_run_with_options(s, ro, &feed, 1, &fetch, 1, nullptr, 0, &value, nullptr);
  if (!st && out) *out = *static_cast<const float*>(grt_tensor_data(value));
  grt_tensor_free(value);
  grt_tensor_free(shape);
  return st;
}

// Bytes in use on every device of the session (tensors alive).
inline size_t DeviceBytesInUse(const grt_session* s) {
  size_t total = 0;
  for (int32_t i = 0; i < s->n_devices; i++) {
    grt_device* d = s->device[i];
    if (!d || !d->ops->memory_stats) continue;
    size_t in_use = 0, peak = 0;
    d->ops->memory_stats(d, GRT_MEMORY_DEVICE, &in_use, &peak);
    total += in_use;
  }
  return total;
}

}  // namespace limits_test

#endif  // GRT_TESTS_SESSION_LIMITS_COMMON_H_
