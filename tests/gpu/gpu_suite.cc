// The GPU suite: run on a machine with an NVIDIA GPU by
// tests/gpu/run_gpu_suite.sh (never by CI, which has none). Every CUDA
// kernel against the CPU kernel on fresh random inputs; the seeds' three
// matrix products on three GPUs with the placement log; a graph across four
// logical GPUs of one card; allocator stress; out of memory and recovery in
// one session.
//
// Run on an H200 (tests/gpu/runs has each run's logs).
#include "tests/gpu/gpu_suite_util.h"

#include <chrono>
#include <thread>

namespace {

TEST_F(GpuSuite, ElementwiseBinaryWithBroadcasting) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{4, 5}, {4, 5}}, {{4, 5}, {5}}, {{3, 1, 5}, {4, 1}}, {{}, {6, 7}}, {{1000, 33}, {1000, 1}}};
  for (const char* op :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference"})
    for (grt_dtype dt : kFloats)
      for (auto& s : shapes) CheckAgainstCpu({op, "", {{dt, s.first}, {dt, s.second}}});
  for (const char* op : {"Add", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"})
    for (grt_dtype dt : {GRT_INT64, GRT_INT32})
      CheckAgainstCpu({op, "", {{dt, {4, 5}}, {dt, {5}}}});
  for (const char* op : {"TanhGrad", "SigmoidGrad", "ReluGrad"})
    for (grt_dtype dt : kFloats) CheckAgainstCpu({op, "", {{dt, {17, 9}}, {dt, {17, 9}}}});
  // float16 and bfloat16: float32 arithmetic on widened values, rounded back.
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum",
                         "SquaredDifference", "TanhGrad", "SigmoidGrad", "ReluGrad"})
    for (grt_dtype dt : {GRT_FLOAT16, GRT_BFLOAT16})
      for (bool grad : {std::string(op).find("Grad") != std::string::npos})
        CheckAgainstCpu(
            {op,
             "",
             {{dt, {3, 4, 5}},
              {dt, grad ? std::vector<int64_t>{3, 4, 5} : std::vector<int64_t>{4, 1}}}});
}

TEST_F(GpuSuite, ElementwiseUnary) {
  for (const char* op : {"Neg", "Abs", "Square", "Exp", "Tanh", "Sigmoid", "Relu"})
    for (grt_dtype dt : kFloats) CheckAgainstCpu({op, "", {{dt, {33, 65}}}});
  for (const char* op : {"Sqrt", "Rsqrt", "Log"})
    for (grt_dtype dt : kFloats) CheckAgainstCpu({op, "", {{dt, {33, 65}, kPositive}}});
  for (const char* op : {"Neg", "Abs", "Square"}) CheckAgainstCpu({op, "", {{GRT_INT64, {40}}}});
}

TEST_F(GpuSuite, MatMulAndBatchMatMul) {
  for (grt_dtype dt : kFloats)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++) {
        std::vector<int64_t> a = ta ? std::vector<int64_t>{53, 37} : std::vector<int64_t>{37, 53};
        std::vector<int64_t> b = tb ? std::vector<int64_t>{29, 53} : std::vector<int64_t>{53, 29};
        std::string attrs = std::string("\"transpose_a\":") + (ta ? "true" : "false") +
                            ",\"transpose_b\":" + (tb ? "true" : "false");
        CheckAgainstCpu({"MatMul", attrs, {{dt, a}, {dt, b}}});
      }
  for (grt_dtype dt : kFloats) {
    CheckAgainstCpu({"BatchMatMulV2", "", {{dt, {2, 3, 4, 5}}, {dt, {2, 3, 5, 6}}}});
    CheckAgainstCpu({"BatchMatMulV2", "", {{dt, {2, 3, 4, 5}}, {dt, {3, 5, 6}}}});  // broadcast
    CheckAgainstCpu(
        {"BatchMatMulV2", "\"adj_x\":true,\"adj_y\":true", {{dt, {3, 5, 4}}, {dt, {1, 6, 5}}}});
  }
}

// Every reduction op x dtype x kind of shape against the CPU (the passes of
// backends/cuda/reduce_plan.h: rows, columns, chunked long ones, several
// reduced groups, the identity of an empty reduction). Tolerances, relative
// L2 over each output: float32 1e-5 and float64 1e-12 where at most 1000
// values meet in a result, 1e-4 and 1e-11 for the long ones (70000 or 2^20
// values summed in another order than the CPU's); float16 1e-3 and
// bfloat16 8e-3 (both sides sum in float32 and round once, so a result
// differs by at most one ulp of the narrow type); integers exactly. Prod
// takes positive inputs (random signs and sizes underflow into subnormals,
// where the order of the products decides the digits), and so do float32
// and float64 Sum and Mean: a sum of random signs can cancel to near zero,
// where two summation orders differ by more than a relative bound (float16
// and bfloat16 keep random signs: their one-ulp bound holds at any size, and
// positive sums of 2^20 would overflow float16).
TEST_F(GpuSuite, Reductions) {
  struct Geometry {
    std::vector<int64_t> dims, axes;
    bool long_sums;  // the looser float32/float64 tolerance
    bool both_keep;  // also with keep_dims
  };
  const Geometry shapes[] = {
      {{6, 7, 8}, {2}, false, true},               // inner axis: a warp per row
      {{6, 7, 8}, {0}, false, true},               // outer axis: columns
      {{6, 7, 8}, {1}, false, true},               // middle axis
      {{6, 7, 8}, {0, 2}, false, true},            // two reduced groups: two passes
      {{6, 7, 8}, {-1}, false, false},             // a negative axis
      {{6, 7, 8}, {0, 1, 2}, false, true},         // all axes
      {{2, 3, 4, 5, 6}, {0, 2, 4}, false, false},  // three reduced groups
      {{3, 0, 4}, {1}, false, true},               // empty reduced axis: the identity (Mean: NaN)
      {{5, 1, 3}, {1}, false, false},              // only a size-1 axis: a copy
      {{40, 1}, {1}, false, false},                // rows of 1
      {{2048, 600}, {1}, false, false},            // rows longer than a warp's: a block per row
      {{3, 70000}, {1}, true, false},              // long rows cut into chunks
      {{300, 1000}, {0}, false, false},            // columns across tiles
      {{70000, 3}, {0}, true, false},              // tall narrow columns cut into chunks
      {{1 << 20}, {0}, true, false},               // a full reduction of 2^20: two passes
  };
  auto axes_input = [](const std::vector<int64_t>& ax) {
    return Input{GRT_INT32, {(int64_t)ax.size()}, kConst, ax};
  };
  auto keep_attr = [](bool keep) {
    return std::string("\"keep_dims\":") + (keep ? "true" : "false");
  };
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"})
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16})
      for (const Geometry& g : shapes)
        for (bool keep : {false, true}) {
          if (keep && !g.both_keep) continue;
          std::string o = op;
          bool wide = dt == GRT_FLOAT32 || dt == GRT_FLOAT64;
          Fill fill = o == "Prod" || (wide && (o == "Sum" || o == "Mean")) ? kPositive : kRandom;
          Case c = {op, keep_attr(keep), {{dt, g.dims, fill}, axes_input(g.axes)}};
          if (g.long_sums) c.tol = dt == GRT_FLOAT32 ? 1e-4 : dt == GRT_FLOAT64 ? 1e-11 : 0;
          CheckAgainstCpu(c);
        }
  // NaN, infinities and signed zeros: NaN wins Max and Min, as on the CPU.
  for (const char* op : {"Sum", "Max", "Min"})
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT16})
      for (auto ax : {std::vector<int64_t>{1}, std::vector<int64_t>{0}})
        CheckAgainstCpu({op, keep_attr(false), {{dt, {64, 40}, kEdges}, axes_input(ax)}});
  // Integers: int64 in device memory (Sum and Prod wrap), int32 on the host.
  for (const char* op : {"Sum", "Max", "Min", "Prod"})
    for (grt_dtype dt : {GRT_INT64, GRT_INT32})
      for (auto ax : {std::vector<int64_t>{1}, std::vector<int64_t>{0}, std::vector<int64_t>{0, 1}})
        CheckAgainstCpu({op, keep_attr(false), {{dt, {300, 700}}, axes_input(ax)}});
  CheckAgainstCpu({"Sum", keep_attr(false), {{GRT_INT64, {3, 0}}, axes_input({1})}});
}

// The same reduction twice gives the same bits: no atomics, a fixed order
// (what a replayed CUDA Graph is compared against).
TEST_F(GpuSuite, ReductionsAreBitIdenticalBetweenRuns) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 70000}, {1}}, {{70000, 3}, {0}}, {{1 << 20}, {0}}, {{64, 300, 50}, {0, 2}}};
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT16})
    for (auto& s : shapes) {
      Case c = {"Sum",
                "\"keep_dims\":false",
                {{dt, s.first}, {GRT_INT32, {(int64_t)s.second.size()}, kConst, s.second}}};
      SCOPED_TRACE(ShapeJson(s.first) + " over " + ShapeJson(s.second));
      grt_tensor* x = Random(c.in[0]);
      std::vector<grt_tensor*> a, b;
      RunOn(c, Dry() ? "/cpu:0" : "/device:GPU:0", {x}, &a);
      RunOn(c, Dry() ? "/cpu:0" : "/device:GPU:0", {x}, &b);
      ASSERT_NE(a[0], nullptr);
      ASSERT_NE(b[0], nullptr);
      ASSERT_EQ(grt_tensor_byte_size(a[0]), grt_tensor_byte_size(b[0]));
      EXPECT_EQ(memcmp(grt_tensor_data(a[0]), grt_tensor_data(b[0]), grt_tensor_byte_size(a[0])),
                0);
      grt_tensor_free(x);
      grt_tensor_free(a[0]);
      grt_tensor_free(b[0]);
    }
}

// The sparse cross-entropy runs for the dtypes its GPU row allows (float16,
// bfloat16, float32: no float64) in gpu_suite_dtypes.cc.
TEST_F(GpuSuite, SoftmaxAndCrossEntropy) {
  for (grt_dtype dt : kFloats) {
    CheckAgainstCpu({"Softmax", "", {{dt, {7, 10}}}});
    CheckAgainstCpu({"Softmax", "", {{dt, {2, 3, 1000}}}});
    CheckAgainstCpu(
        {"SoftmaxCrossEntropyWithLogits", "", {{dt, {9, 10}}, {dt, {9, 10}, kOneHotRows}}, 2});
  }
}

TEST_F(GpuSuite, BiasAddAndGrad) {
  for (grt_dtype dt : kFloats) {
    CheckAgainstCpu({"BiasAdd", "", {{dt, {2, 3, 4, 5}}, {dt, {5}}}});
    CheckAgainstCpu({"BiasAdd", "\"data_format\":\"NCHW\"", {{dt, {2, 5, 3, 4}}, {dt, {5}}}});
    CheckAgainstCpu({"BiasAddGrad", "", {{dt, {2, 3, 4, 5}}}});
    CheckAgainstCpu({"BiasAddGrad", "\"data_format\":\"NCHW\"", {{dt, {2, 5, 3, 4}}}});
  }
}

TEST_F(GpuSuite, ArrayKernels) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_INT64}) {
    CheckAgainstCpu({"Identity", "", {{dt, {3, 4}}}});
    CheckAgainstCpu({"ZerosLike", "", {{dt, {3, 4}}}});
    CheckAgainstCpu({"Reshape", "", {{dt, {3, 4}}, {GRT_INT32, {2}, kConst, {2, -1}}}});
    CheckAgainstCpu({"ExpandDims", "", {{dt, {3, 4}}, {GRT_INT32, {}, kConst, {-1}}}});
  }
  CheckAgainstCpu(
      {"Const",
       R"("dtype":"float32","value":{"dtype":"float32","shape":[2,3],"values":[1,-2,3,4.5,5,6]})",
       {}});
  CheckAgainstCpu(
      {"Const", R"("dtype":"int64","value":{"dtype":"int64","shape":[3],"values":[7,8,-9]})", {}});
}

// Seeded random ops draw the CPU's Philox streams: uniform samples equal,
// normal ones within rounding (the device's logf/sinf/cosf).
TEST_F(GpuSuite, RandomOpsMatchTheCpuStreams) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
    for (const char* dt : {"float32", "float64"})
      for (int64_t n : {1, 7, 4096})
        CheckAgainstCpu(
            {op,
             std::string("\"dtype\":\"") + dt + "\",\"seed\":7,\"seed2\":" + std::to_string(n),
             {{GRT_INT32, {2}, kConst, {n, 3}}}});
}

// ---- the seeds' multi-GPU graphs -------------------------------------------

std::vector<std::string> g_log;
void Capture(void* arg, grt_log_level level, const char* msg) { g_log.push_back(msg); }

// Three products on three GPUs (logical GPUs of one card when the machine
// has fewer than three), summed on the CPU; the placement log names them.
TEST_F(GpuSuite, ThreeMatMulsOnThreeGpusWithThePlacementLog) {
  const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[64,48]}},
    {"name":"b","op":"Placeholder","attrs":{"dtype":"float32","shape":[48,32]}},
    {"name":"m0","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:0"},
    {"name":"m1","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:1"},
    {"name":"m2","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:2"},
    {"name":"s","op":"AddN","inputs":["m0","m1","m2"],"device":"/cpu:0","attrs":{"N":3}}
  ]})";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "log_device_placement", "true"));
  if (Dry()) {
    ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", "true"));
  }
  if (Gpus() < 3) {
    ASSERT_OK(grt_session_options_set(o, "gpu.virtual_devices", "1024,1024,1024"));
  }
  g_log.clear();
  grt_set_log_sink(Capture, nullptr);
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  grt_set_log_sink(nullptr, nullptr);
  std::string log;
  for (auto& l : g_log) log += l + "\n";
  printf("%s", log.c_str());
  for (const char* want : {"m0: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0",
                           "m1: (MatMul): /job:localhost/replica:0/task:0/device:GPU:1",
                           "m2: (MatMul): /job:localhost/replica:0/task:0/device:GPU:2"})
    if (!Dry()) {
      EXPECT_NE(log.find(want), std::string::npos) << want << "\n" << log;
    }
  // The device mapping names each card as TensorFlow's log does.
  if (!Dry()) {
    EXPECT_NE(log.find("device:GPU:2 -> device: "), std::string::npos) << log;
    EXPECT_NE(log.find("pci bus id: "), std::string::npos) << log;
    EXPECT_NE(log.find("compute capability: "), std::string::npos) << log;
    if (Gpus() < 3) {
      EXPECT_NE(log.find("shares physical GPU 0 (logical 2 of 3)"), std::string::npos) << log;
    }
  }
  Input ai{GRT_FLOAT32, {64, 48}}, bi{GRT_FLOAT32, {48, 32}};
  grt_tensor* a = Random(ai);
  grt_tensor* b = Random(bi);
  grt_feed feeds[2] = {{"a", a}, {"b", b}};
  const char* fetch = "s";
  grt_tensor* out = nullptr;
  ASSERT_OK(grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, &out, nullptr));
  const float* av = static_cast<const float*>(grt_tensor_data(a));
  const float* bv = static_cast<const float*>(grt_tensor_data(b));
  const float* ov = static_cast<const float*>(grt_tensor_data(out));
  double err = 0, norm = 0;
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 32; j++) {
      double acc = 0;
      for (int k = 0; k < 48; k++) acc += (double)av[i * 48 + k] * bv[k * 32 + j];
      err += (ov[i * 32 + j] - 3 * acc) * (ov[i * 32 + j] - 3 * acc);
      norm += 9 * acc * acc;
    }
  EXPECT_LE(std::sqrt(err), 1e-5 * std::sqrt(norm));
  grt_tensor_free(out);
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// A chain across four logical GPUs of card 0, each 1 GiB, as the seeds
// carve them; the same graph on the CPU is the reference.
TEST_F(GpuSuite, ChainAcrossFourLogicalGpusOfOneCard) {
  auto graph = [](bool gpu) {
    auto dev = [&](int k) {
      return gpu ? "/device:GPU:" + std::to_string(k) : std::string("/cpu:0");
    };
    return std::string(R"({"format":"grt.graph","version":1,"nodes":[
      {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[32,64]}},
      {"name":"w","op":"Placeholder","attrs":{"dtype":"float32","shape":[64,10]}},
      {"name":"m","op":"MatMul","inputs":["x","w"],"device":")") +
           dev(0) + R"("},
      {"name":"r","op":"Relu","inputs":["m"],"device":")" +
           dev(1) + R"("},
      {"name":"t","op":"Tanh","inputs":["r"],"device":")" +
           dev(2) + R"("},
      {"name":"y","op":"Softmax","inputs":["t"],"device":")" +
           dev(3) + R"("}
    ]})";
  };
  Input xi{GRT_FLOAT32, {32, 64}}, wi{GRT_FLOAT32, {64, 10}};
  grt_tensor* x = Random(xi);
  grt_tensor* w = Random(wi);
  grt_feed feeds[2] = {{"x", x}, {"w", w}};
  std::vector<grt_tensor*> outs;
  for (bool gpu : {true, false}) {
    std::string j = graph(gpu);
    grt_graph* g = nullptr;
    ASSERT_OK(grt_graph_from_json(j.c_str(), j.size(), &g));
    grt_session_options* o = nullptr;
    ASSERT_OK(grt_session_options_new(&o));
    ASSERT_OK(grt_session_options_set(o, "gpu.virtual_devices", "1024,1024,1024,1024"));
    if (Dry()) {
      ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", "true"));
    }
    grt_session* s = nullptr;
    ASSERT_OK(grt_session_new(g, o, &s));
    const char* fetch = "y";
    grt_tensor* out = nullptr;
    for (int run = 0; run < 10; run++) {  // repeated runs reuse freed device memory
      grt_tensor_free(out);
      out = nullptr;
      ASSERT_OK(grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, &out, nullptr));
    }
    outs.push_back(Detach(out));
    grt_session_free(s);
    grt_session_options_free(o);
    grt_graph_free(g);
  }
  for (int64_t i = 0; i < 320; i++)
    EXPECT_NEAR(static_cast<float*>(grt_tensor_data(outs[0]))[i],
                static_cast<float*>(grt_tensor_data(outs[1]))[i], 1e-5)
        << i;
  for (auto* t : outs) grt_tensor_free(t);
  grt_tensor_free(x);
  grt_tensor_free(w);
}

// Many runs of products of random sizes on a 256 MiB logical GPU: the
// allocator splits and merges throughout; every answer checked.
TEST_F(GpuSuite, AllocatorStressThroughASession) {
  const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,-1]}},
    {"name":"b","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,-1]}},
    {"name":"m","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:0"},
    {"name":"y","op":"Sum","inputs":["m","axes"],"device":"/device:GPU:0","attrs":{"keep_dims":false}},
    {"name":"axes","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}}
  ]})";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "gpu.virtual_devices", "256"));
  if (Dry()) {
    ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", "true"));
  }
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  std::uniform_int_distribution<int64_t> dim(1, 700);
  for (int run = 0; run < 200; run++) {
    int64_t m = dim(g_rng), k = dim(g_rng), n = dim(g_rng);
    Input ai{GRT_FLOAT32, {m, k}}, bi{GRT_FLOAT32, {k, n}};
    grt_tensor* a = Random(ai);
    grt_tensor* b = Random(bi);
    grt_feed feeds[2] = {{"a", a}, {"b", b}};
    const char* fetch = "y";
    grt_tensor* out = nullptr;
    ASSERT_OK(grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, &out, nullptr));
    // sum(A B) = (column sums of A) . (row sums of B)
    const float* av = static_cast<const float*>(grt_tensor_data(a));
    const float* bv = static_cast<const float*>(grt_tensor_data(b));
    double want = 0, scale = 0;
    for (int64_t p = 0; p < k; p++) {
      double ca = 0, rb = 0;
      for (int64_t i = 0; i < m; i++) ca += av[i * k + p];
      for (int64_t j = 0; j < n; j++) rb += bv[p * n + j];
      want += ca * rb;
      scale += std::fabs(ca * rb);
    }
    EXPECT_NEAR(*static_cast<float*>(grt_tensor_data(out)), want, 1e-4 * scale + 1e-3) << run;
    grt_tensor_free(out);
    grt_tensor_free(a);
    grt_tensor_free(b);
  }
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// A product too large for a 1 GiB logical GPU fails with RESOURCE_EXHAUSTED
// naming the bytes; the same session then runs a small one.
TEST_F(GpuSuite, OutOfMemoryThenRecovery) {
  if (Dry()) GTEST_SKIP() << "the CPU has no 1 GiB limit";
  const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,1]}},
    {"name":"b","op":"Placeholder","attrs":{"dtype":"float32","shape":[1,-1]}},
    {"name":"m","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:0"},
    {"name":"y","op":"Max","inputs":["m","axes"],"device":"/device:GPU:0"},
    {"name":"axes","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}}
  ]})";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "gpu.virtual_devices", "1024"));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  auto run = [&](int64_t n, grt_tensor** out) {
    Input ai{GRT_FLOAT32, {n, 1}}, bi{GRT_FLOAT32, {1, n}};
    grt_tensor* a = Random(ai);
    grt_tensor* b = Random(bi);
    grt_feed feeds[2] = {{"a", a}, {"b", b}};
    const char* fetch = "y";
    grt_status* st = grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, out, nullptr);
    grt_tensor_free(a);
    grt_tensor_free(b);
    return st;
  };
  grt_tensor* out = nullptr;
  grt_status* st = run(20000, &out);  // 1.6 GB of output
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED) << grt_status_message(st);
  EXPECT_NE(std::string(grt_status_message(st)).find("1600000000 bytes"), std::string::npos)
      << grt_status_message(st);
  // The BFC's state, left by the plugin's allocator (grt_allocator_fail_reason).
  EXPECT_NE(std::string(grt_status_message(st)).find("largest free chunk"), std::string::npos)
      << grt_status_message(st);
  printf("OOM message: %s\n", grt_status_message(st));
  grt_status_free(st);
  st = run(2000, &out);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_tensor_free(out);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// For the script's nvidia-smi reading: a session with the options in
// $GRT_GPU_HOLD ("gpu.allow_growth=true" or "gpu.memory_fraction=0.5"),
// one small run, then a second session with the same options and a run,
// then 3 s holding both. The script runs this once per value, each in a
// process of its own (the first session of a process makes GPU:0's
// allocator with its options): memory.used shows one reservation (the
// fraction of the card, or what growth took) however many sessions share it.
TEST_F(GpuSuite, HoldMemoryForNvidiaSmi) {
  const char* hold = getenv("GRT_GPU_HOLD");
  if (!hold) GTEST_SKIP() << "GRT_GPU_HOLD not set";
  std::string kv = hold;
  size_t eq = kv.find('=');
  ASSERT_NE(eq, std::string::npos);
  const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[256,256]}},
    {"name":"m","op":"MatMul","inputs":["a","a"],"device":"/device:GPU:0"}
  ]})";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str()));
  Input ai{GRT_FLOAT32, {256, 256}};
  grt_tensor* a = Random(ai);
  grt_feed feed = {"a", a};
  const char* fetch = "m";
  grt_session* s[2] = {nullptr, nullptr};
  grt_tensor* out[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; i++) {
    ASSERT_OK(grt_session_new(g, o, &s[i]));
    ASSERT_OK(grt_session_run(s[i], &feed, 1, &fetch, 1, nullptr, 0, &out[i], nullptr));
  }
  printf("HOLDING %s (2 sessions)\n", hold);
  fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  for (int i = 0; i < 2; i++) {
    grt_tensor_free(out[i]);
    grt_session_free(s[i]);
  }
  grt_tensor_free(a);
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace
