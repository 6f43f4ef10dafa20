// NcclAllReduce on logical CPUs: gang-scheduled groups (one backend call per
// group once every member is ready). Math against references computed here,
// bad groups refused when the run is built (naming the group and nodes),
// failures and cancellation that leave the session usable, and concurrent
// runs that must finish (each waited on with a bound, so a hang fails).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "base/dtype.h"
#include "grt/grt.h"

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

std::string Dev(int k) { return "/device:CPU:" + std::to_string(k); }

struct Member {
  std::string name, reduction, shared_name;
  grt_dtype t;
  int device;
  int64_t num_devices;
  std::string input = "";  // "": its own Placeholder x_<name>
};

// x_k (Placeholder on the member's device) -> r_k (NcclAllReduce).
grt_graph* Graph(const std::vector<Member>& ms, grt_graph* g = nullptr) {
  if (!g) grt_status_free(grt_graph_new(&g));
  for (size_t k = 0; k < ms.size(); k++) {
    const Member& m = ms[k];
    int32_t x = -1, r = -1;
    std::string xn = "x_" + m.name;
    grt_status_free(grt_graph_add_node(g, xn.c_str(), "Placeholder", &x));
    grt_status_free(grt_graph_set_attr_type(g, x, "dtype", m.t));
    grt_status_free(grt_graph_set_device(g, x, Dev(m.device).c_str()));
    grt_status_free(grt_graph_add_node(g, m.name.c_str(), "NcclAllReduce", &r));
    grt_status_free(grt_graph_add_input(g, r, m.input.empty() ? xn.c_str() : m.input.c_str()));
    grt_status_free(grt_graph_set_attr_type(g, r, "T", m.t));
    grt_status_free(grt_graph_set_attr_string(g, r, "reduction", m.reduction.c_str()));
    grt_status_free(grt_graph_set_attr_int(g, r, "num_devices", m.num_devices));
    // "-": no shared_name attr at all.
    if (m.shared_name != "-")
      grt_status_free(grt_graph_set_attr_string(g, r, "shared_name", m.shared_name.c_str()));
    grt_status_free(grt_graph_set_device(g, r, Dev(m.device).c_str()));
  }
  return g;
}

grt_session* Session(grt_graph* g, int devices, const char* inter_op = "0",
                     grt_status** err = nullptr) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "cpu.devices", std::to_string(devices).c_str()));
  grt_status_free(grt_session_options_set(o, "inter_op_threads", inter_op));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  grt_session_options_free(o);
  if (err)
    *err = st;
  else {
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
  }
  return s;
}

// Deterministic pseudo-random values, small enough that products of four
// stay exact in every dtype.
double Value(int member, int64_t i, unsigned salt) {
  unsigned h = ((unsigned)member * 7919u + (unsigned)i * 104729u) ^ (salt * 2654435761u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)((int)(h % 7) - 3) * 0.5 + (double)((h >> 8) % 3) * 0.25;
}

grt_tensor* Input(grt_dtype t, const std::vector<int64_t>& dims, int member, unsigned salt) {
  grt_tensor* x = nullptr;
  grt_status_free(grt_tensor_new(t, (int32_t)dims.size(), dims.data(), &x));
  int64_t n = grt_tensor_num_elements(x);
  void* d = grt_tensor_data(x);
  for (int64_t i = 0; i < n; i++) {
    double v = Value(member, i, salt);
    switch (t) {
      case GRT_FLOAT32:
        ((float*)d)[i] = (float)v;
        break;
      case GRT_FLOAT64:
        ((double*)d)[i] = v;
        break;
      case GRT_FLOAT16:
        ((uint16_t*)d)[i] = grt_float_to_half((float)v);
        break;
      case GRT_INT32:
        ((int32_t*)d)[i] = (int32_t)std::lround(v * 4);
        break;
      case GRT_INT64:
        ((int64_t*)d)[i] = (int64_t)std::lround(v * 4) * 1000000007LL;
        break;
      default:
        break;
    }
  }
  return x;
}

double Get(const grt_tensor* x, int64_t i) {
  const void* d = grt_tensor_data(x);
  switch (grt_tensor_dtype(x)) {
    case GRT_FLOAT32:
      return ((const float*)d)[i];
    case GRT_FLOAT64:
      return ((const double*)d)[i];
    case GRT_FLOAT16:
      return grt_half_to_float(((const uint16_t*)d)[i]);
    case GRT_INT32:
      return ((const int32_t*)d)[i];
    case GRT_INT64:
      return (double)((const int64_t*)d)[i];
    default:
      return NAN;
  }
}

int64_t GetInt(const grt_tensor* x, int64_t i) {
  const void* d = grt_tensor_data(x);
  return grt_tensor_dtype(x) == GRT_INT32 ? ((const int32_t*)d)[i] : ((const int64_t*)d)[i];
}

// The integer reduction in wrapping 64-bit arithmetic, cut to the dtype.
int64_t ReferenceInt(const std::vector<grt_tensor*>& in, const std::string& red, int64_t i) {
  grt_dtype t = grt_tensor_dtype(in[0]);
  uint64_t acc = (uint64_t)GetInt(in[0], i);
  for (size_t k = 1; k < in.size(); k++) {
    int64_t x = GetInt(in[k], i);
    if (red == "sum")
      acc += (uint64_t)x;
    else if (red == "prod")
      acc *= (uint64_t)x;
    else if (red == "min")
      acc = (uint64_t)std::min((int64_t)acc, x);
    else
      acc = (uint64_t)std::max((int64_t)acc, x);
  }
  return t == GRT_INT32 ? (int64_t)(int32_t)(uint32_t)acc : (int64_t)acc;
}

// The reduction in float64 (integers in wrapping 64-bit arithmetic).
double Reference(const std::vector<grt_tensor*>& in, const std::string& red, int64_t i) {
  grt_dtype t = grt_tensor_dtype(in[0]);
  if (t == GRT_INT32 || t == GRT_INT64) {
    uint64_t acc = (uint64_t)GetInt(in[0], i);
    for (size_t k = 1; k < in.size(); k++) {
      int64_t x = GetInt(in[k], i);
      if (red == "sum")
        acc += (uint64_t)x;
      else if (red == "prod")
        acc *= (uint64_t)x;
      else if (red == "min")
        acc = (uint64_t)std::min((int64_t)acc, x);
      else
        acc = (uint64_t)std::max((int64_t)acc, x);
    }
    return t == GRT_INT32 ? (double)(int32_t)(uint32_t)acc : (double)(int64_t)acc;
  }
  double acc = Get(in[0], i);
  for (size_t k = 1; k < in.size(); k++) {
    double x = Get(in[k], i);
    if (red == "sum")
      acc += x;
    else if (red == "prod")
      acc *= x;
    else if (red == "min")
      acc = std::min(acc, x);
    else
      acc = std::max(acc, x);
  }
  return acc;
}

std::vector<Member> Group(int n, const std::string& red, grt_dtype t,
                          const std::string& name = "g") {
  std::vector<Member> ms;
  for (int k = 0; k < n; k++) ms.push_back({"r" + std::to_string(k), red, name, t, k, n});
  return ms;
}

// Feeds every x_k and fetches every r_k; checks each output against the
// reference and that all members' bytes are identical.
void RunAndCheck(grt_session* s, const std::vector<Member>& ms, const std::vector<int64_t>& dims,
                 unsigned salt) {
  std::vector<grt_tensor*> in;
  std::vector<std::string> xnames, rnames;
  std::vector<grt_feed> feeds;
  std::vector<const char*> fetches;
  for (size_t k = 0; k < ms.size(); k++) {
    in.push_back(Input(ms[k].t, dims, (int)k, salt));
    xnames.push_back("x_" + ms[k].name);
    rnames.push_back(ms[k].name);
  }
  for (size_t k = 0; k < ms.size(); k++) {
    feeds.push_back({xnames[k].c_str(), in[k]});
    fetches.push_back(rnames[k].c_str());
  }
  std::vector<grt_tensor*> out(ms.size(), nullptr);
  grt_status* st = grt_session_run(s, feeds.data(), (int32_t)feeds.size(), fetches.data(),
                                   (int32_t)fetches.size(), nullptr, 0, out.data(), nullptr);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  if (!st) {
    int64_t n = grt_tensor_num_elements(in[0]);
    for (size_t k = 0; k < ms.size(); k++) {
      ASSERT_EQ(grt_tensor_dtype(out[k]), ms[k].t);
      ASSERT_EQ(grt_tensor_rank(out[k]), (int32_t)dims.size());
      for (size_t d = 0; d < dims.size(); d++)
        ASSERT_EQ(grt_tensor_dim(out[k], (int32_t)d), dims[d]);
      ASSERT_EQ(grt_tensor_byte_size(out[k]), grt_tensor_byte_size(out[0]));
      EXPECT_EQ(
          memcmp(grt_tensor_data(out[k]), grt_tensor_data(out[0]), grt_tensor_byte_size(out[0])), 0)
          << "member " << k << " differs from member 0";
    }
    for (int64_t i = 0; i < n; i++) {
      double want = Reference(in, ms[0].reduction, i), got = Get(out[0], i);
      double tol = ms[0].t == GRT_FLOAT16   ? 1e-2 * (1 + std::fabs(want))
                   : ms[0].t == GRT_FLOAT32 ? 1e-5 * (1 + std::fabs(want))
                                            : 0;
      if (ms[0].t == GRT_INT64 || ms[0].t == GRT_INT32) {
        // Compare the exact wrapped integers, not their doubles.
        ASSERT_EQ(GetInt(out[0], i), ReferenceInt(in, ms[0].reduction, i)) << "element " << i;
      } else {
        ASSERT_NEAR(got, want, tol) << "element " << i << " " << ms[0].reduction;
      }
    }
  }
  for (auto* t : in) grt_tensor_free(t);
  for (auto* t : out) grt_tensor_free(t);
}

class Math : public ::testing::TestWithParam<std::tuple<int, const char*, grt_dtype>> {};

TEST_P(Math, MatchesTheReferenceOnEveryDevice) {
  int n = std::get<0>(GetParam());
  std::string red = std::get<1>(GetParam());
  grt_dtype t = std::get<2>(GetParam());
  auto ms = Group(n, red, t);
  grt_graph* g = Graph(ms);
  grt_session* s = Session(g, n);
  ASSERT_NE(s, nullptr);
  RunAndCheck(s, ms, {2, 3}, 1);
  RunAndCheck(s, ms, {}, 2);        // scalar
  RunAndCheck(s, ms, {0, 4}, 3);    // empty
  RunAndCheck(s, ms, {100001}, 4);  // large enough to shard
  grt_session_free(s);
  grt_graph_free(g);
}

INSTANTIATE_TEST_SUITE_P(AllReduce, Math,
                         ::testing::Combine(::testing::Values(2, 3, 4),
                                            ::testing::Values("sum", "prod", "min", "max"),
                                            ::testing::Values(GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16,
                                                              GRT_INT32, GRT_INT64)));

// A run's error, with the session kept usable: a good group in the same
// session still runs afterwards.
std::string RunError(grt_session* s, const std::vector<Member>& ms) {
  std::vector<grt_tensor*> in;
  std::vector<std::string> xn, rn;
  for (size_t k = 0; k < ms.size(); k++) {
    in.push_back(Input(ms[k].t, {3}, (int)k, 9));
    xn.push_back("x_" + ms[k].name);
    rn.push_back(ms[k].name);
  }
  std::vector<grt_feed> feeds;
  std::vector<const char*> fetches;
  for (size_t k = 0; k < ms.size(); k++) {
    feeds.push_back({xn[k].c_str(), in[k]});
    fetches.push_back(rn[k].c_str());
  }
  std::vector<grt_tensor*> out(ms.size(), nullptr);
  grt_status* st = grt_session_run(s, feeds.data(), (int32_t)feeds.size(), fetches.data(),
                                   (int32_t)fetches.size(), nullptr, 0, out.data(), nullptr);
  std::string msg = st ? grt_status_message(st) : "";
  grt_status_free(st);
  for (auto* t : in) grt_tensor_free(t);
  for (auto* t : out) grt_tensor_free(t);
  return msg;
}

struct BadCase {
  const char* what;
  std::vector<Member> members;
  std::vector<const char*> expect;
};

TEST(BadGroups, AreRefusedWhenTheRunIsBuiltNamingTheGroupAndNodes) {
  const grt_dtype F = GRT_FLOAT32;
  std::vector<BadCase> cases = {
      {"too few",
       {{"a", "sum", "g", F, 0, 3}, {"b", "sum", "g", F, 1, 3}},
       {"NcclAllReduce group 'g'", "'a' on", "'b' on",
        "num_devices is 3 but this run has 2 members"}},
      {"too many",
       {{"a", "sum", "g", F, 0, 2}, {"b", "sum", "g", F, 1, 2}, {"c", "sum", "g", F, 2, 2}},
       {"group 'g'", "num_devices is 2 but this run has 3 members"}},
      {"num_devices differ",
       {{"a", "sum", "g", F, 0, 2}, {"b", "sum", "g", F, 1, 3}},
       {"group 'g'", "'b' has num_devices 3 but 'a' has 2"}},
      {"reductions differ",
       {{"a", "sum", "g", F, 0, 2}, {"b", "max", "g", F, 1, 2}},
       {"group 'g'", "'b' has reduction 'max' but 'a' has 'sum'"}},
      {"dtypes differ",
       {{"a", "sum", "g", F, 0, 2}, {"b", "sum", "g", GRT_FLOAT64, 1, 2}},
       {"group 'g'", "'b' has T float64 but 'a' has float32"}},
      {"one device twice",
       {{"a", "sum", "g", F, 1, 2}, {"b", "sum", "g", F, 1, 2}},
       {"group 'g'", "'a' and 'b' are both on", "CPU:1", "each member needs its own device"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    grt_graph* g = Graph(c.members);
    grt_session* s = Session(g, 4);
    ASSERT_NE(s, nullptr);
    std::string msg = RunError(s, c.members);
    ASSERT_FALSE(msg.empty()) << "the run succeeded";
    for (const char* e : c.expect) EXPECT_NE(msg.find(e), std::string::npos) << msg;
    grt_session_free(s);
    grt_graph_free(g);
  }
}

TEST(BadGroups, RuntimeShapesThatDifferFailTheRun) {
  // Placeholders of unknown shape: the shapes only meet at run time.
  auto ms = Group(2, "sum", GRT_FLOAT32);
  grt_graph* g = Graph(ms);
  grt_session* s = Session(g, 2);
  grt_tensor* a = Input(GRT_FLOAT32, {3}, 0, 1);
  grt_tensor* b = Input(GRT_FLOAT32, {4}, 1, 1);
  grt_feed feeds[] = {{"x_r0", a}, {"x_r1", b}};
  const char* fetches[] = {"r0", "r1"};
  grt_tensor* out[2] = {nullptr, nullptr};
  grt_status* st = grt_session_run(s, feeds, 2, fetches, 2, nullptr, 0, out, nullptr);
  ASSERT_NE(st, nullptr);
  std::string msg = grt_status_message(st);
  grt_status_free(st);
  EXPECT_NE(msg.find("NcclAllReduce group 'g'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("shape [4]"), std::string::npos) << msg;
  EXPECT_EQ(out[0], nullptr);
  grt_tensor_free(a);
  grt_tensor_free(b);
  RunAndCheck(s, ms, {5}, 2);  // still usable
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(BadGroups, StaticShapesThatDifferAreRefused) {
  auto ms = Group(2, "sum", GRT_FLOAT32);
  grt_graph* g = Graph(ms);
  int64_t d3[] = {3}, d4[] = {4};
  grt_status_free(grt_graph_set_attr_shape(g, 0, "shape", 1, d3));
  grt_status_free(grt_graph_set_attr_shape(g, 2, "shape", 1, d4));
  grt_session* s = Session(g, 2);
  ASSERT_NE(s, nullptr);
  grt_tensor* a = Input(GRT_FLOAT32, {3}, 0, 1);
  grt_tensor* b = Input(GRT_FLOAT32, {4}, 1, 1);
  grt_feed feeds[] = {{"x_r0", a}, {"x_r1", b}};
  const char* fetches[] = {"r0", "r1"};
  grt_tensor* out[2] = {nullptr, nullptr};
  grt_status* st = grt_session_run(s, feeds, 2, fetches, 2, nullptr, 0, out, nullptr);
  ASSERT_NE(st, nullptr);
  std::string msg = grt_status_message(st);
  grt_status_free(st);
  grt_tensor_free(a);
  grt_tensor_free(b);
  EXPECT_NE(msg.find("group 'g'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'r1' has shape [4] but 'r0' has [3]"), std::string::npos) << msg;
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(BadGroups, AMissingSharedNameOrReductionFailsValidation) {
  struct {
    const char* which;
    const char* expect;
  } cases[] = {{"missing", "missing attr 'shared_name'"},
               {"empty", "shared_name is empty"},
               {"reduction", "reduction 'mean' is not one of"}};
  for (const auto& c : cases) {
    const char* which = c.which;
    std::vector<Member> ms = {{"a", "sum", "g", GRT_FLOAT32, 0, 2},
                              {"b", "sum", "g", GRT_FLOAT32, 1, 2}};
    if (!strcmp(which, "missing"))
      ms[1].shared_name = "-";
    else if (!strcmp(which, "empty"))
      ms[1].shared_name = "";
    else
      ms[1].reduction = "mean";
    grt_graph* g = Graph(ms);
    grt_status* err = nullptr;
    grt_session* s = Session(g, 2, "0", &err);
    ASSERT_NE(err, nullptr) << which;
    std::string msg = grt_status_message(err);
    grt_status_free(err);
    EXPECT_NE(msg.find("'b'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
    grt_session_free(s);
    grt_graph_free(g);
  }
}

TEST(BadGroups, AMemberDependingOnItsGroupIsRefused) {
  // r1's input is r0's output: the group would wait for itself.
  std::vector<Member> ms = Group(2, "sum", GRT_FLOAT32);
  grt_graph* g = Graph({ms[0]});
  int32_t r = -1;
  grt_status_free(grt_graph_add_node(g, "r1", "NcclAllReduce", &r));
  grt_status_free(grt_graph_add_input(g, r, "r0"));
  grt_status_free(grt_graph_set_attr_type(g, r, "T", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_string(g, r, "reduction", "sum"));
  grt_status_free(grt_graph_set_attr_int(g, r, "num_devices", 2));
  grt_status_free(grt_graph_set_attr_string(g, r, "shared_name", "g"));
  grt_status_free(grt_graph_set_device(g, r, Dev(1).c_str()));
  grt_session* s = Session(g, 2);
  grt_tensor* a = Input(GRT_FLOAT32, {3}, 0, 1);
  grt_feed feeds[] = {{"x_r0", a}};
  const char* fetches[] = {"r1"};
  grt_tensor* out[1] = {nullptr};
  grt_status* st = grt_session_run(s, feeds, 1, fetches, 1, nullptr, 0, out, nullptr);
  ASSERT_NE(st, nullptr);
  std::string msg = grt_status_message(st);
  grt_status_free(st);
  EXPECT_NE(msg.find("'r1' depends on 'r0' of the same group"), std::string::npos) << msg;
  grt_tensor_free(a);
  grt_session_free(s);
  grt_graph_free(g);
}

// Member 1's input comes from a variable: uninitialised it fails the run
// (its producer's error), the session stays usable, and once assigned the
// group runs.
TEST(Failures, AProducersErrorFailsTheRunAndTheNextRunWorks) {
  auto ms = Group(2, "sum", GRT_FLOAT32);
  ms[1].input = "read";  // r1 reads the variable
  grt_graph* g = nullptr;
  grt_status_free(grt_graph_new(&g));
  int32_t v = -1, rd = -1, c = -1, as = -1;
  int64_t d3[] = {3};
  grt_status_free(grt_graph_add_node(g, "v", "VariableV2", &v));
  grt_status_free(grt_graph_set_attr_type(g, v, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_shape(g, v, "shape", 1, d3));
  grt_status_free(grt_graph_set_device(g, v, Dev(1).c_str()));
  grt_status_free(grt_graph_add_node(g, "read", "Identity", &rd));
  grt_status_free(grt_graph_add_input(g, rd, "v"));
  grt_status_free(grt_graph_set_attr_type(g, rd, "T", GRT_FLOAT32));
  grt_status_free(grt_graph_set_device(g, rd, Dev(1).c_str()));
  grt_tensor* init = Input(GRT_FLOAT32, {3}, 5, 5);
  grt_status_free(grt_graph_add_node(g, "v0", "Const", &c));
  grt_status_free(grt_graph_set_attr_type(g, c, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_tensor(g, c, "value", init));
  grt_status_free(grt_graph_add_node(g, "assign", "Assign", &as));
  grt_status_free(grt_graph_add_input(g, as, "v"));
  grt_status_free(grt_graph_add_input(g, as, "v0"));
  grt_status_free(grt_graph_set_attr_type(g, as, "T", GRT_FLOAT32));
  Graph(ms, g);
  grt_session* s = Session(g, 2, "1");
  ASSERT_NE(s, nullptr);
  grt_tensor* a = Input(GRT_FLOAT32, {3}, 0, 1);
  grt_feed feeds[] = {{"x_r0", a}};
  const char* fetches[] = {"r0", "r1"};
  grt_tensor* out[2] = {nullptr, nullptr};
  grt_status* st = grt_session_run(s, feeds, 1, fetches, 2, nullptr, 0, out, nullptr);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("uninitialized value v"), std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  const char* targets[] = {"assign"};
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, targets, 1, nullptr, nullptr));
  ASSERT_OK(grt_session_run(s, feeds, 1, fetches, 2, nullptr, 0, out, nullptr));
  for (int i = 0; i < 3; i++) {
    float want = ((float*)grt_tensor_data(a))[i] + ((float*)grt_tensor_data(init))[i];
    EXPECT_FLOAT_EQ(((float*)grt_tensor_data(out[0]))[i], want);
    EXPECT_FLOAT_EQ(((float*)grt_tensor_data(out[1]))[i], want);
  }
  for (auto* t : out) grt_tensor_free(t);
  grt_tensor_free(a);
  grt_tensor_free(init);
  grt_session_free(s);
  grt_graph_free(g);
}

// A deadline that passes while member 0's producer (a large MatMul) runs:
// the run fails with DEADLINE_EXCEEDED, and the next run without one works.
TEST(Failures, ADeadlineStopsTheRunAndTheNextRunWorks) {
  auto ms = Group(2, "sum", GRT_FLOAT32);
  grt_graph* g = nullptr;
  grt_status_free(grt_graph_new(&g));
  int32_t x0 = -1, mm = -1;
  grt_status_free(grt_graph_add_node(g, "x_r0", "Placeholder", &x0));
  grt_status_free(grt_graph_set_attr_type(g, x0, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_device(g, x0, Dev(0).c_str()));
  grt_status_free(grt_graph_add_node(g, "mm", "MatMul", &mm));
  grt_status_free(grt_graph_add_input(g, mm, "x_r0"));
  grt_status_free(grt_graph_add_input(g, mm, "x_r0"));
  grt_status_free(grt_graph_set_attr_type(g, mm, "T", GRT_FLOAT32));
  grt_status_free(grt_graph_set_device(g, mm, Dev(0).c_str()));
  // Member 1 as usual; member 0 reads mm instead of its placeholder.
  Graph({ms[1]}, g);
  {
    int32_t r = -1;
    grt_status_free(grt_graph_add_node(g, "r0", "NcclAllReduce", &r));
    grt_status_free(grt_graph_add_input(g, r, "mm"));
    grt_status_free(grt_graph_set_attr_type(g, r, "T", GRT_FLOAT32));
    grt_status_free(grt_graph_set_attr_string(g, r, "reduction", "sum"));
    grt_status_free(grt_graph_set_attr_int(g, r, "num_devices", 2));
    grt_status_free(grt_graph_set_attr_string(g, r, "shared_name", "g"));
    grt_status_free(grt_graph_set_device(g, r, Dev(0).c_str()));
  }
  grt_session* s = Session(g, 2);
  ASSERT_NE(s, nullptr);
  grt_tensor* a = Input(GRT_FLOAT32, {768, 768}, 0, 1);
  grt_tensor* b = Input(GRT_FLOAT32, {768, 768}, 1, 1);
  grt_feed feeds[] = {{"x_r0", a}, {"x_r1", b}};
  const char* fetches[] = {"r0", "r1"};
  grt_tensor* out[2] = {nullptr, nullptr};
  grt_run_options* ro = nullptr;
  ASSERT_OK(grt_run_options_new(&ro));
  ASSERT_OK(grt_run_options_set_timeout_ms(ro, 1));
  grt_status* st =
      grt_session_run_with_options(s, ro, feeds, 2, fetches, 2, nullptr, 0, out, nullptr);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_DEADLINE_EXCEEDED) << grt_status_message(st);
  grt_status_free(st);
  EXPECT_EQ(out[0], nullptr);
  grt_run_options_free(ro);
  grt_tensor* small_a = Input(GRT_FLOAT32, {2, 2}, 0, 3);
  grt_tensor* small_b = Input(GRT_FLOAT32, {2, 2}, 1, 3);
  grt_feed small[] = {{"x_r0", small_a}, {"x_r1", small_b}};
  ASSERT_OK(grt_session_run(s, small, 2, fetches, 2, nullptr, 0, out, nullptr));
  const float* x = (const float*)grt_tensor_data(small_a);
  const float* y = (const float*)grt_tensor_data(small_b);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double want = (double)x[i * 2] * x[j] + (double)x[i * 2 + 1] * x[2 + j] + y[i * 2 + j];
      EXPECT_NEAR(((float*)grt_tensor_data(out[1]))[i * 2 + j], want, 1e-5);
    }
  for (auto* t : out) grt_tensor_free(t);
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_tensor_free(small_a);
  grt_tensor_free(small_b);
  grt_session_free(s);
  grt_graph_free(g);
}

// Several threads run two groups at once on one session whose inter-op pool
// has one thread (fewer than the four devices): every run finishes with the
// right values. Each thread is waited on with a bound, so a deadlock fails
// the test instead of hanging it.
TEST(Concurrency, ManyRunsOnOneSessionFinishWithRightResults) {
  auto ms = Group(4, "sum", GRT_FLOAT32, "g1");
  auto more = Group(4, "max", GRT_FLOAT32, "g2");
  for (int k = 0; k < 4; k++) {
    more[k].name = "m" + std::to_string(k);
    more[k].device = 3 - k;
  }
  std::vector<Member> all = ms;
  all.insert(all.end(), more.begin(), more.end());
  grt_graph* g = Graph(all);
  grt_session* s = Session(g, 4, "1");
  ASSERT_NE(s, nullptr);
  const int kThreads = 6, kRuns = 25;
  std::vector<std::future<void>> done;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    auto p = std::make_shared<std::promise<void>>();
    done.push_back(p->get_future());
    threads.emplace_back([s, &ms, &more, t, p] {
      for (int i = 0; i < kRuns; i++) {
        RunAndCheck(s, (i + t) % 2 ? ms : more, {17}, (unsigned)(t * 100 + i));
      }
      p->set_value();
    });
  }
  for (int t = 0; t < kThreads; t++) {
    if (done[t].wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
      ADD_FAILURE() << "thread " << t << " did not finish: a deadlock";
      fflush(stdout);
      std::_Exit(1);
    }
  }
  for (auto& th : threads) th.join();
  grt_session_free(s);
  grt_graph_free(g);
}

// Gradients: the gradient of a sum all-reduce is a sum all-reduce of the
// incoming gradients ("<shared_name>_grad"); d(sum_k r_k)/dx_j = N.
TEST(Gradient, OfASumIsASumAllReduceOfTheGradients) {
  auto ms = Group(3, "sum", GRT_FLOAT32);
  grt_graph* g = Graph(ms);
  ASSERT_OK(grt_graph_validate(g));
  grt_output ys[3], xs[3], dx[3];
  for (int k = 0; k < 3; k++) {
    ys[k] = {grt_graph_find_node(g, ms[k].name.c_str()), 0};
    xs[k] = {grt_graph_find_node(g, ("x_" + ms[k].name).c_str()), 0};
  }
  ASSERT_OK(grt_graph_add_gradients(g, "grad", ys, 3, xs, 3, nullptr, true, dx));
  int grads = 0;
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++) {
    const char* name = "";
    if (strcmp(grt_graph_node_op(g, i), "NcclAllReduce")) continue;
    ASSERT_OK(grt_graph_node_attr_string(g, i, "shared_name", &name));
    if (!strcmp(name, "g_grad")) {
      grads++;
      int64_t nd = 0;
      ASSERT_OK(grt_graph_node_attr_int(g, i, "num_devices", &nd));
      EXPECT_EQ(nd, 3);
    }
  }
  EXPECT_EQ(grads, 3);
  grt_session* s = Session(g, 3);
  ASSERT_NE(s, nullptr);
  std::vector<grt_tensor*> in;
  std::vector<std::string> names;
  for (int k = 0; k < 3; k++) {
    in.push_back(Input(GRT_FLOAT32, {4}, k, 1));
    names.push_back("x_" + ms[k].name);
  }
  grt_feed feeds[3];
  for (int k = 0; k < 3; k++) feeds[k] = {names[k].c_str(), in[k]};
  std::vector<std::string> fn;
  for (int k = 0; k < 3; k++) fn.push_back(grt_graph_node_name(g, dx[k].node));
  const char* fetches[] = {fn[0].c_str(), fn[1].c_str(), fn[2].c_str()};
  grt_tensor* out[3] = {nullptr, nullptr, nullptr};
  ASSERT_OK(grt_session_run(s, feeds, 3, fetches, 3, nullptr, 0, out, nullptr));
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 4; i++) EXPECT_EQ(((float*)grt_tensor_data(out[k]))[i], 3.0f);
  for (auto* t : out) grt_tensor_free(t);
  for (auto* t : in) grt_tensor_free(t);
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
