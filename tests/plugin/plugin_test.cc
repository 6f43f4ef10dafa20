// Backend plugins: a test backend ("TEST", asynchronous streams) built as its
// own shared library is loaded, planned for, and runs a graph across TEST and
// CPU devices with copies on streams ordered by events; a plugin built for
// another API version is refused with a clear message.
#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"
#include "tests/plugin/plugin_test_util.h"

namespace {

void LoadTestBackend() {
  ASSERT_OK(grt_backend_load(PluginPath("libgrt_backend_test.so").c_str()));
}

// m = x @ b on TEST:0, s = m + c on TEST:1, y = s * s on the CPU, z = s on
// TEST:1: host-to-device, device-to-device and device-to-host copies, and a
// fetch from a TEST device.
const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,3]}},
  {"name":"b","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3,2],"values":[1,2,3,4,5,6]}}},
  {"name":"m","op":"MatMul","inputs":["x","b"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"c","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2,2],"values":[10,20,30,40]}}},
  {"name":"s","op":"Add","inputs":["m","c"],"device":"/device:TEST:1","attrs":{"T":"float32"}},
  {"name":"y","op":"Mul","inputs":["s","s"],"device":"/cpu:0","attrs":{"T":"float32"}},
  {"name":"z","op":"Identity","inputs":["s"],"device":"/device:TEST:1","attrs":{"T":"float32"}}
]})";

TEST(Plugin, RunsAcrossTestDevicesAndCpuWithCopiesOnStreams) {
  LoadTestBackend();
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  // A wait that is skipped shows only when the work it should have waited
  // for takes longer than the work that skipped it: the default delays (a
  // copy 300 us, a kernel 200 us) catch a consumer that does not wait for
  // its copy; kernels of 10 ms and copies of none catch a copy that does not
  // wait for the kernel producing its source, in every run (with the
  // defaults, skipping that wait was caught in about half the reruns;
  // planted by hand in the executor and caught in 20 of 20 reruns here).
  const struct {
    const char* copy_us;
    const char* kernel_us;
  } delays[] = {{"300", "200"}, {"0", "10000"}};
  for (const auto& d : delays) {
    SCOPED_TRACE(std::string("test.copy_delay_us=") + d.copy_us +
                 ", test.kernel_delay_us=" + d.kernel_us);
    grt_session_options* o = nullptr;
    ASSERT_OK(grt_session_options_new(&o));
    ASSERT_OK(grt_session_options_set(o, "test.copy_delay_us", d.copy_us));
    ASSERT_OK(grt_session_options_set(o, "test.kernel_delay_us", d.kernel_us));
    grt_session* s = nullptr;
    grt_status* made = grt_session_new(g, o, &s);
    grt_session_options_free(o);
    ASSERT_OK(made);
    const grt_plan* p = grt_session_plan(s);
    auto device_of = [&](const char* name) {
      for (int32_t i = 0; i < grt_graph_num_nodes(g); i++)
        if (std::string(grt_graph_node_name(g, i)) == name)
          return std::string(grt_plan_node_device_name(p, i));
      return std::string();
    };
    EXPECT_EQ(device_of("m"), "/job:localhost/replica:0/task:0/device:TEST:0");
    EXPECT_EQ(device_of("s"), "/job:localhost/replica:0/task:0/device:TEST:1");
    EXPECT_EQ(device_of("y"), "/job:localhost/replica:0/task:0/device:CPU:0");
    EXPECT_EQ(device_of("x"), "/job:localhost/replica:0/task:0/device:CPU:0");  // no TEST kernel
    EXPECT_GE(grt_plan_num_copies(p), 3);

    // Every run feeds new values, so a consumer that read a buffer before its
    // copy or kernel finished would see the previous run's values or garbage.
    for (int run = 0; run < 25; run++) {
      grt_tensor* x = nullptr;
      int64_t dims[2] = {2, 3};
      ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 2, dims, &x));
      float* xv = static_cast<float*>(grt_tensor_data(x));
      for (int i = 0; i < 6; i++) xv[i] = static_cast<float>(run * 7 + i);
      const float bv[6] = {1, 2, 3, 4, 5, 6}, cv[4] = {10, 20, 30, 40};
      std::vector<float> want_s(4), want_y(4);
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          float acc = 0;
          for (int k = 0; k < 3; k++) acc += xv[i * 3 + k] * bv[k * 2 + j];
          want_s[i * 2 + j] = acc + cv[i * 2 + j];
          want_y[i * 2 + j] = want_s[i * 2 + j] * want_s[i * 2 + j];
        }
      grt_feed feed = {"x", x};
      const char* fetches[] = {"y", "s", "z"};
      grt_tensor* out[3] = {nullptr, nullptr, nullptr};
      ASSERT_OK(grt_session_run(s, &feed, 1, fetches, 3, nullptr, 0, out, nullptr));
      EXPECT_EQ(Floats(out[0]), want_y) << "run " << run;
      EXPECT_EQ(Floats(out[1]), want_s) << "run " << run;
      EXPECT_EQ(Floats(out[2]), want_s) << "run " << run;
      for (grt_tensor* t : out) grt_tensor_free(t);
      grt_tensor_free(x);
    }
    grt_session_free(s);
  }
  grt_graph_free(g);
}

// The session option memory_limit reaches a plugin's devices
// (grt_device_config.memory_limit); the test backend's allocator honours it
// and reports its bytes in use, as a GPU backend would.
int Threads() {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

// A session makes only the devices its plan uses (the TEST backend starts a
// thread per stream when it makes a device), and its thread pools start no
// worker until work needs one: a graph pinned to the CPU, in a process with
// two TEST devices, creates and runs with no new thread.
TEST(Plugin, ASessionStartsNoThreadForDevicesOrWorkItDoesNotHave) {
  LoadTestBackend();
  const char* cpu_only = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","device":"/cpu:0","attrs":{"dtype":"float32","shape":[2]}},
    {"name":"y","op":"Add","inputs":["x","x"],"device":"/cpu:0","attrs":{"T":"float32"}}
  ]})";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(cpu_only, strlen(cpu_only), &g));
  int before = Threads();
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, nullptr, &s));
  float xv[2] = {1, 2};
  int64_t dims[1] = {2};
  grt_tensor* x = nullptr;
  ASSERT_OK(grt_tensor_wrap(xv, GRT_FLOAT32, 1, dims, nullptr, nullptr, &x));
  grt_feed feed = {"x", x};
  const char* fetch[] = {"y"};
  grt_tensor* y = nullptr;
  ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 1, nullptr, 0, &y, nullptr));
  EXPECT_EQ(Floats(y), (std::vector<float>{2, 4}));
  EXPECT_EQ(Threads(), before);
  grt_tensor_free(y);
  grt_session_free(s);
  grt_graph_free(g);

  // The same process, a graph with a node on TEST:0: that device is made.
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  ASSERT_OK(grt_session_new(g, nullptr, &s));
  EXPECT_GT(Threads(), before);
  grt_session_free(s);
  grt_graph_free(g);
  grt_tensor_free(x);
}

TEST(Plugin, MemoryLimitReachesThePluginsAllocator) {
  LoadTestBackend();
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "memory_limit", "16"));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  auto run = [&](grt_session* s, int64_t rows) {
    grt_tensor* x = nullptr;
    int64_t dims[2] = {rows, 3};
    grt_status_free(grt_tensor_new(GRT_FLOAT32, 2, dims, &x));
    grt_feed feed = {"x", x};
    const char* fetch = "z";
    grt_tensor* out = nullptr;
    grt_status* st = grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr);
    grt_tensor_free(out);
    grt_tensor_free(x);
    return st;
  };
  // x, 2 x 3 floats (24 bytes), cannot be copied to TEST:0 under 16 bytes;
  // the same again on the same session (nothing was kept of the first).
  for (int attempt = 0; attempt < 2; attempt++) {
    grt_status* st = run(s, 2);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED);
    std::string m = grt_status_message(st);
    grt_status_free(st);
    EXPECT_NE(m.find("send of '"), std::string::npos) << m;  // x or b, both 2 x 3
    EXPECT_NE(m.find("24 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("memory limit of 16 bytes on /job:localhost/replica:0/task:0/device:TEST:0"
                     " reached"),
              std::string::npos)
        << m;
    // The allocator's own reason (grt_allocator_fail_reason), with its state.
    EXPECT_NE(m.find("(the allocator: asked for "), std::string::npos) << m;
    EXPECT_NE(m.find(" bytes, in use 0 of limit 16"), std::string::npos) << m;
  }
  grt_session_free(s);
  // With room for the run's tensors it works.
  ASSERT_OK(grt_session_options_set(o, "memory_limit", "4K"));
  ASSERT_OK(grt_session_new(g, o, &s));
  ASSERT_OK(run(s, 2));
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// One device, two memories: an int64 Const on TEST:0 gives its output in
// device memory, and Reshape's row on TEST:0 wants its shape in host memory.
// With test.separate_host_memory the TEST device's host memory comes from
// an allocator of its own and its Reshape checks where its shape argument
// lies, so a run that hands the kernel device memory fails (as a GPU's
// kernel reading a shape on the host would crash); the run must copy the
// value between the device's memories.
const char* kMemoryTypes = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,3]}},
  {"name":"shape","op":"Const","device":"/device:TEST:0",
   "attrs":{"dtype":"int64","value":{"dtype":"int64","shape":[2],"values":[3,2]}}},
  {"name":"r","op":"Reshape","inputs":["x","shape"],"device":"/device:TEST:0",
   "attrs":{"T":"float32","Tshape":"int64"}},
  {"name":"y","op":"Add","inputs":["r","r"],"device":"/device:TEST:0","attrs":{"T":"float32"}}
]})";

TEST(Plugin, SameDeviceEdgesBetweenMemoriesAreCopied) {
  LoadTestBackend();
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kMemoryTypes, strlen(kMemoryTypes), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "test.separate_host_memory", "true"));
  ASSERT_OK(grt_session_options_set(o, "rewrite", "false"));  // keep the Consts as written
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  grt_tensor* x = nullptr;
  int64_t dims[2] = {2, 3};
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 2, dims, &x));
  for (int i = 0; i < 6; i++) static_cast<float*>(grt_tensor_data(x))[i] = 0.5f * i;
  grt_feed feed = {"x", x};
  const char* fetch = "y";
  for (int run = 0; run < 2; run++) {
    grt_tensor* out = nullptr;
    ASSERT_OK(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr));
    ASSERT_EQ(grt_tensor_rank(out), 2);
    EXPECT_EQ(grt_tensor_dim(out, 0), 3);
    EXPECT_EQ(grt_tensor_dim(out, 1), 2);
    EXPECT_EQ(Floats(out), (std::vector<float>{0, 1, 2, 3, 4, 5}));
    grt_tensor_free(out);
  }
  grt_tensor_free(x);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// A plugin's variable kernels through the public API (grt_var_*): the
// variable lives on TEST:0, Assign swaps in a fresh copy of the value,
// AssignAdd updates it in place on the device's stream; uninitialised reads
// and mismatched shapes fail as on the CPU. Squeeze reads its list attr.
const char* kVarGraph = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"v","op":"VariableV2","device":"/device:TEST:0","attrs":{"dtype":"float32","shape":[2,3]}},
  {"name":"c","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32",
   "value":{"dtype":"float32","shape":[2,3],"values":[1,2,3,4,5,6]}}},
  {"name":"d","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32",
   "value":{"dtype":"float32","shape":[2,3],"values":[0.5,0.5,0.5,0.5,0.5,0.5]}}},
  {"name":"bad","op":"Placeholder","attrs":{"dtype":"float32"}},
  {"name":"init","op":"Assign","inputs":["v","c"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"step","op":"AssignAdd","inputs":["v","d"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"wrong","op":"Assign","inputs":["v","bad"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[1,2,1,3]}},
  {"name":"sq","op":"Squeeze","inputs":["x"],"device":"/device:TEST:0",
   "attrs":{"T":"float32","squeeze_dims":[0,-2]}}
]})";

TEST(Plugin, VariablesAndListAttrsThroughThePublicApi) {
  LoadTestBackend();
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kVarGraph, strlen(kVarGraph), &g));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, nullptr, &s));
  auto fetch = [&](const char* name, std::vector<float>* out) {
    grt_tensor* t = nullptr;
    grt_status* st = grt_session_run(s, nullptr, 0, &name, 1, nullptr, 0, &t, nullptr);
    if (t) *out = Floats(t);
    grt_tensor_free(t);
    return st;
  };
  std::vector<float> v;
  grt_status* st = fetch("step", &v);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_FAILED_PRECONDITION);
  EXPECT_NE(std::string(grt_status_message(st)).find("uninitialized value v"), std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  ASSERT_OK(fetch("init", &v));
  EXPECT_EQ(v, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ASSERT_OK(fetch("step", &v));
  ASSERT_OK(fetch("step", &v));
  EXPECT_EQ(v, (std::vector<float>{2, 3, 4, 5, 6, 7}));
  grt_tensor* bad = nullptr;
  int64_t three = 3;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, &three, &bad));
  grt_feed bad_feed = {"bad", bad};
  const char* wrong = "wrong";
  grt_tensor* ignored = nullptr;
  st = grt_session_run(s, &bad_feed, 1, &wrong, 1, nullptr, 0, &ignored, nullptr);
  grt_tensor_free(ignored);
  grt_tensor_free(bad);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(grt_status_message(st)).find("lhs shape= [2,3] rhs shape= [3]"),
            std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  ASSERT_OK(fetch("v", &v));  // the failed Assign left the value alone
  EXPECT_EQ(v, (std::vector<float>{2, 3, 4, 5, 6, 7}));

  grt_tensor* x = nullptr;
  int64_t dims[4] = {1, 2, 1, 3};
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 4, dims, &x));
  for (int i = 0; i < 6; i++) static_cast<float*>(grt_tensor_data(x))[i] = (float)(i * i);
  grt_feed feed = {"x", x};
  const char* name = "sq";
  grt_tensor* y = nullptr;
  ASSERT_OK(grt_session_run(s, &feed, 1, &name, 1, nullptr, 0, &y, nullptr));
  ASSERT_EQ(grt_tensor_rank(y), 2);
  EXPECT_EQ(grt_tensor_dim(y, 0), 2);
  EXPECT_EQ(grt_tensor_dim(y, 1), 3);
  EXPECT_EQ(Floats(y), (std::vector<float>{0, 1, 4, 9, 16, 25}));
  grt_tensor_free(y);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(Plugin, MachineDevicesAndReport) {
  LoadTestBackend();
  grt_device_set* ds = nullptr;
  ASSERT_OK(grt_device_set_from_machine(1, &ds));
  EXPECT_EQ(grt_device_set_count_type(ds, "TEST"), 2);
  EXPECT_GE(grt_device_set_find(ds, "/device:TEST:1"), 0);
  grt_device_set_free(ds);
  ASSERT_OK(grt_device_set_from_spec("cpu:1,test:4", &ds));
  int32_t present = 0;
  for (int32_t i = 0; i < grt_device_set_count(ds); i++) present += grt_device_set_present(ds, i);
  EXPECT_EQ(present, 3);  // one CPU, two of the four TEST devices asked for
  grt_device_set_free(ds);
  char buf[1024];
  grt_backends_report(buf, sizeof buf);
  EXPECT_NE(std::string(buf).find("TEST: 2 devices (plugin)"), std::string::npos) << buf;
  EXPECT_NE(std::string(buf).find("CPU: 1 device"), std::string::npos) << buf;
}

// What a second registration would duplicate: the TEST devices a machine
// set holds, the backend's line in the report, and the TEST kernel rows the
// placer lists for an op (Add on int32 pinned to TEST:0 has none, so the
// error lists the registered ones: Add's TEST row is float32 only).
struct Registered {
  int32_t devices = -1;
  size_t report_lines = 0, add_rows = 0;
  bool operator==(const Registered& o) const {
    return devices == o.devices && report_lines == o.report_lines && add_rows == o.add_rows;
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

Registered Census() {
  Registered r;
  grt_device_set* ds = nullptr;
  grt_status* st = grt_device_set_from_machine(1, &ds);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  if (ds) r.devices = grt_device_set_count_type(ds, "TEST");
  grt_device_set_free(ds);
  char buf[4096];
  EXPECT_LT(grt_backends_report(buf, sizeof buf), sizeof buf);
  r.report_lines = Count(buf, "TEST: ");
  const char* json = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"int32","shape":[2]}},
    {"name":"add","op":"Add","inputs":["a","a"],"device":"/device:TEST:0","attrs":{"T":"int32"}}
  ]})";
  grt_graph* g = nullptr;
  st = grt_graph_from_json(json, strlen(json), &g);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session* s = nullptr;
  st = grt_session_new(g, nullptr, &s);
  EXPECT_NE(st, nullptr) << "Add on int32 was placed on TEST:0";
  std::string msg = st ? grt_status_message(st) : "";
  EXPECT_NE(msg.find("Registered kernels:"), std::string::npos) << msg;
  r.add_rows = Count(msg, "device='TEST'");
  grt_status_free(st);
  grt_session_free(s);
  grt_graph_free(g);
  return r;
}

// A second load of the same file succeeds and registers nothing again
// (registering the backend or its kernel rows twice was planted by hand and
// caught here).
TEST(Plugin, LoadingTheSamePluginTwiceIsHarmless) {
  LoadTestBackend();
  Registered once = Census();
  EXPECT_EQ(once.devices, 2);
  EXPECT_EQ(once.report_lines, 1u);
  EXPECT_EQ(once.add_rows, 1u);
  LoadTestBackend();
  Registered twice = Census();
  EXPECT_TRUE(twice == once) << "devices " << twice.devices << ", report lines "
                             << twice.report_lines << ", Add rows " << twice.add_rows;
}

TEST(Plugin, WrongApiVersionIsRefused) {
  std::string path = PluginPath("libgrt_backend_badabi.so");
  grt_status* st = grt_backend_load(path.c_str());
  ASSERT_NE(st, nullptr);
  std::string m = grt_status_message(st);
  grt_status_free(st);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("refused"), std::string::npos) << m;
  // The bad plugin says it was built for one version past the library's.
  std::string versions = "API version " + std::to_string(GRT_BACKEND_API_VERSION + 1) +
                         ", this library has version " + std::to_string(GRT_BACKEND_API_VERSION);
  EXPECT_NE(m.find(versions), std::string::npos) << m;
  grt_device_set* ds = nullptr;
  st = grt_device_set_from_spec("badabi:1", &ds);
  EXPECT_NE(st, nullptr);  // its type was never registered
  grt_status_free(st);
}

// A plugin built for API 4 (before grt_backend.options) is refused with the
// versions named, as grt_backends_report then says too.
TEST(Plugin, ApiVersion4PluginIsRefused) {
  std::string path = PluginPath("libgrt_backend_oldabi.so");
  grt_status* st = grt_backend_load(path.c_str());
  ASSERT_NE(st, nullptr);
  std::string m = grt_status_message(st);
  grt_status_free(st);
  EXPECT_EQ(m, "plugin " + path +
                   " refused: built for backend API version 4, this library has version 5");
  EXPECT_EQ(GRT_BACKEND_API_VERSION, 5u);
}

// The test backend's own session option, test.copy_delay_us, declared by
// the plugin alone: the session checks it with the plugin's check, lists
// it, refuses a test.* key the plugin lacks, and the backend gets the value
// (every copy waits that long).
TEST(Plugin, BackendOwnOptionIsCheckedAndReachesTheBackend) {
  LoadTestBackend();
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  auto message = [](grt_status* st) {
    std::string m = st ? grt_status_message(st) : "OK";
    grt_status_free(st);
    return m;
  };
  EXPECT_EQ(message(grt_session_options_set(o, "test.copy_delay_us", "-5")),
            "option test.copy_delay_us: '-5' is not a number of microseconds in [0, 1000000]");
  EXPECT_EQ(message(grt_session_options_set(o, "test.copy_delay_us", "1e3")),
            "option test.copy_delay_us: '1e3' is not a number of microseconds in [0, 1000000]");
  EXPECT_EQ(message(grt_session_options_set(o, "test.copy_delay", "5")),
            "unknown session option 'test.copy_delay' (device type TEST has: test.copy_delay_us, "
            "test.kernel_delay_us, test.separate_host_memory)");
  char doc[8192];
  ASSERT_LT(grt_session_options_describe(doc, sizeof doc), sizeof doc);
  EXPECT_NE(std::string(doc).find("\ntest.copy_delay_us\tinteger 0 to 1000000\t300\t"),
            std::string::npos)
      << doc;

  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  // One run's time: x to TEST:0, m to TEST:1 and s back to the CPU are three
  // copies one after another.
  auto run_ms = [&](grt_session_options* opts) {
    grt_session* s = nullptr;
    grt_status* st = grt_session_new(g, opts, &s);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    if (st) {
      grt_status_free(st);
      return -1.0;
    }
    grt_tensor* x = nullptr;
    int64_t dims[2] = {2, 3};
    grt_status_free(grt_tensor_new(GRT_FLOAT32, 2, dims, &x));
    memset(grt_tensor_data(x), 0, 6 * sizeof(float));
    grt_feed feed = {"x", x};
    const char* fetch = "y";
    grt_tensor* out = nullptr;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    if (out) {
      EXPECT_EQ(Floats(out), std::vector<float>({100, 400, 900, 1600}));
    }
    grt_tensor_free(out);
    grt_tensor_free(x);
    grt_session_free(s);
    return (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
  };
  double fast = run_ms(o);  // the default, 300 us a copy
  ASSERT_OK(grt_session_options_set(o, "test.copy_delay_us", "200000"));
  double slow = run_ms(o);
  EXPECT_GE(slow, 600.0);
  EXPECT_LT(fast, 600.0);
  // Setting it again replaces the value.
  ASSERT_OK(grt_session_options_set(o, "test.copy_delay_us", "0"));
  EXPECT_LT(run_ms(o), 600.0);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(Plugin, MissingFileAndNoEntryPoint) {
  grt_status* st = grt_backend_load("/nonexistent/libgrt_backend_x.so");
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("cannot load"), std::string::npos);
  grt_status_free(st);
}

}  // namespace
