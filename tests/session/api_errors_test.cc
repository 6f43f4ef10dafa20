// The session API's argument checks that the coverage run found untested
// (docs/testing.md, "Uncovered error paths"): runs and callables with
// inconsistent arguments, tensor names that are not names or name no
// output, node indices past the graph, option values of the wrong kind,
// each by its message; and backends that cannot be loaded or registered.
// Callables are made with the optimizer on (it rewrites the graph, so they
// go by the user's graph's indices) and off.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "grt/backend.h"
#include "grt/grt.h"

namespace {

std::string Take(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "OK";
  grt_status_free(s);
  return m;
}

#define EXPECT_SAYS(call, says)                                          \
  do {                                                                   \
    std::string m_ = Take(call);                                         \
    EXPECT_NE(m_.find(says), std::string::npos) << "got '" << m_ << "'"; \
  } while (0)

// x * 1 is rewritten away by the optimizer (arithmetic), so a session with
// it on serves a graph other than the user's.
const char kGraph[] = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}},
  {"name":"one","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[1]}}},
  {"name":"m","op":"Mul","inputs":["x","one"],"attrs":{"T":"float32"}},
  {"name":"y","op":"Neg","inputs":["m"],"attrs":{"T":"float32"}}]})";

grt_session* NewSession(grt_graph* g, const char* rewrite) {
  grt_session_options* o = nullptr;
  EXPECT_EQ(Take(grt_session_options_new(&o)), "OK");
  EXPECT_EQ(Take(grt_session_options_set(o, "rewrite", rewrite)), "OK");
  grt_session* s = nullptr;
  EXPECT_EQ(Take(grt_session_new(g, o, &s)), "OK");
  grt_session_options_free(o);
  return s;
}

TEST(SessionRunErrors, ArgumentsAndNames) {
  grt_graph* g = nullptr;
  ASSERT_EQ(Take(grt_graph_from_json(kGraph, strlen(kGraph), &g)), "OK");
  grt_session* s = NewSession(g, "false");
  ASSERT_NE(s, nullptr);
  const char* y = "y";
  grt_tensor* out = nullptr;
  EXPECT_SAYS(grt_session_run(s, nullptr, 1, &y, 1, nullptr, 0, &out, nullptr),
              "inconsistent feed/fetch/target arguments");
  EXPECT_SAYS(grt_session_run(s, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, nullptr),
              "a run needs at least one fetch or target");
  grt_feed unnamed = {nullptr, nullptr};
  EXPECT_SAYS(grt_session_run(s, &unnamed, 1, &y, 1, nullptr, 0, &out, nullptr),
              "feed with a NULL name or value");
  const char* control = "^y";
  EXPECT_SAYS(grt_session_run(s, nullptr, 0, &control, 1, nullptr, 0, &out, nullptr),
              "'^y' is not a tensor name (\"node\" or \"node:k\")");
  const char* second = "y:1";
  EXPECT_SAYS(grt_session_run(s, nullptr, 0, &second, 1, nullptr, 0, &out, nullptr),
              "'y:1': node 'y' (Neg) has 1 output");
  EXPECT_EQ(out, nullptr);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(CallableErrors, ArgumentsIndicesAndNames) {
  grt_graph* g = nullptr;
  ASSERT_EQ(Take(grt_graph_from_json(kGraph, strlen(kGraph), &g)), "OK");
  grt_output o;
  EXPECT_SAYS(grt_graph_output(g, "^y", &o), "'^y' is not a tensor name");
  EXPECT_SAYS(grt_graph_output(g, "y:3", &o), "'y:3': node 'y' (Neg) has 1 output");
  EXPECT_SAYS(grt_graph_output(g, "z", &o), "the graph has no node named 'z'");
  for (const char* rewrite : {"true", "false"}) {
    SCOPED_TRACE(std::string("rewrite=") + rewrite);
    grt_session* s = NewSession(g, rewrite);
    ASSERT_NE(s, nullptr);
    grt_callable* c = nullptr;
    grt_output x = {0, 0}, y = {3, 0}, past = {99, 0}, port = {3, 2};
    int32_t target = 7;
    EXPECT_SAYS(grt_session_make_callable(s, nullptr, 1, &y, 1, nullptr, 0, &c),
                "inconsistent feed/fetch/target arguments");
    EXPECT_SAYS(grt_session_make_callable(s, &x, 1, nullptr, 0, nullptr, 0, &c),
                "a callable needs at least one fetch or target");
    EXPECT_SAYS(grt_session_make_callable(s, nullptr, 0, &past, 1, nullptr, 0, &c),
                "fetch: node index 99 is out of range (the graph has 4 nodes)");
    EXPECT_SAYS(grt_session_make_callable(s, &port, 1, &y, 1, nullptr, 0, &c),
                "feed: node 'y' (Neg) has no output 2");
    EXPECT_SAYS(grt_session_make_callable(s, nullptr, 0, nullptr, 0, &target, 1, &c),
                "target: node index 7 is out of range (the graph has 4 nodes)");
    EXPECT_EQ(c, nullptr);
    ASSERT_EQ(Take(grt_session_make_callable(s, &x, 1, &y, 1, nullptr, 0, &c)), "OK");
    grt_tensor* result = nullptr;
    EXPECT_SAYS(grt_callable_run(c, nullptr, &result, nullptr),
                "NULL feeds or out_values for a callable that has them");
    EXPECT_SAYS(grt_callable_run_with_options(nullptr, nullptr, nullptr, &result, nullptr),
                "NULL callable");
    grt_callable_free(c);
    grt_session_free(s);
  }
  grt_graph_free(g);
}

TEST(SessionOptionErrors, ValuesOfTheWrongKind) {
  grt_session_options* o = nullptr;
  ASSERT_EQ(Take(grt_session_options_new(&o)), "OK");
  EXPECT_SAYS(grt_session_options_set(o, "log_device_placement", "maybe"),
              "option log_device_placement: 'maybe' is not a bool (true/false)");
  EXPECT_SAYS(grt_session_options_set(o, "ps.strategy", "random"),
              "option ps.strategy: 'random' is not greedy or round_robin");
  EXPECT_EQ(Take(grt_session_options_set(o, "ps.strategy", "round_robin")), "OK");
  // 64 names are the most a session binds; the 65th is refused.
  std::string dims;
  for (int i = 0; i < 64; i++) dims += (i ? ",d" : "d") + std::to_string(i) + "=1";
  EXPECT_EQ(Take(grt_session_options_set(o, "dims", dims.c_str())), "OK");
  dims += ",d64=1";
  EXPECT_SAYS(grt_session_options_set(o, "dims", dims.c_str()), "option dims: more than 64 names");
  grt_session_options_free(o);
}

// A Placeholder naming fewer dimensions than its shape has: the session's
// dims option cannot bind it.
TEST(SessionOptionErrors, DimNamesThatDoNotMatchTheShape) {
  const char* kJson = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,3],"dim_names":["N"]}},
    {"name":"y","op":"Neg","inputs":["x"],"attrs":{"T":"float32"}}]})";
  grt_graph* g = nullptr;
  ASSERT_EQ(Take(grt_graph_from_json(kJson, strlen(kJson), &g)), "OK");
  grt_session_options* o = nullptr;
  ASSERT_EQ(Take(grt_session_options_new(&o)), "OK");
  ASSERT_EQ(Take(grt_session_options_set(o, "dims", "N=2")), "OK");
  grt_session* s = nullptr;
  EXPECT_SAYS(grt_session_new(g, o, &s),
              "node 'x' (Placeholder): dim_names has 1 names for a shape of rank 2");
  EXPECT_EQ(s, nullptr);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// Never called: registration fails before it looks at the functions.
void NotCalled() {}

TEST(BackendErrors, LoadAndRegisterNameTheReason) {
  std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_SAYS(grt_backend_load(dir.c_str()), "plugin " + dir + ": not a regular file");
  // A shared library found on the loader's path that is not a plugin.
  EXPECT_SAYS(grt_backend_load("libm.so.6"),
              "plugin libm.so.6: no grt_backend_entry() entry point");
  grt_backend b{};
  b.api_version = GRT_BACKEND_API_VERSION;
  EXPECT_SAYS(grt_backend_register(&b), "the backend names no device type");
  b.type = "SEVENTEEN_LETTERS";
  EXPECT_SAYS(grt_backend_register(&b), "the backend names no device type");
  b.type = "NOFUNCS";
  EXPECT_SAYS(grt_backend_register(&b), "backend 'NOFUNCS' lacks probe, device_new or kernel");
  b.type = "cpu";
  b.probe = reinterpret_cast<decltype(b.probe)>(&NotCalled);
  b.device_new = reinterpret_cast<decltype(b.device_new)>(&NotCalled);
  b.kernel = reinterpret_cast<decltype(b.kernel)>(&NotCalled);
  EXPECT_SAYS(grt_backend_register(&b), "a backend for device type cpu is already registered");
}

}  // namespace
