// The GPU suite, continued: NcclAllReduce groups on GPUs against the same
// group on logical CPUs: over distinct physical GPUs (NCCL), over logical
// GPUs of one card (the copy path: NCCL refuses two ranks on one card),
// and over physical GPUs with GRT_CUDA_ALL_REDUCE=copies. Every member's
// output is checked, for each reduction and each dtype the GPU row allows.
//
// The logical-GPU case ran on an H200 (tests/gpu/runs); the physical-GPU
// cases need two cards and have not run yet (GRT_GPU_SUITE_DRY=1 runs
// both sides on logical CPUs).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuCollective : public GpuSuite {};

std::string GroupJson(int n, grt_dtype dt, const char* reduction, bool gpu) {
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (int k = 0; k < n; k++) {
    std::string dev =
        gpu && !Dry() ? "/device:GPU:" + std::to_string(k) : "/cpu:" + std::to_string(k);
    std::string x = "x" + std::to_string(k), r = "r" + std::to_string(k);
    j += std::string(k ? "," : "") + R"({"name":")" + x + R"(","op":"Placeholder","device":")" +
         dev + R"(","attrs":{"dtype":")" + DtypeName(dt) + R"("}},)" + R"({"name":")" + r +
         R"(","op":"NcclAllReduce","inputs":[")" + x + R"("],"device":")" + dev +
         R"(","attrs":{"T":")" + DtypeName(dt) + R"(","reduction":")" + reduction +
         R"(","num_devices":)" + std::to_string(n) + R"(,"shared_name":"g"}})";
  }
  return j + "]}";
}

// Every member's output of the group, run `runs` times (reusing memory).
std::vector<grt_tensor*> RunGroup(int n, grt_dtype dt, const char* reduction, bool gpu,
                                  const char* virtual_devices, const std::vector<grt_tensor*>& in) {
  std::string j = GroupJson(n, dt, reduction, gpu);
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(j.c_str(), j.size(), &g);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "cpu.devices", std::to_string(n).c_str()));
  grt_status_free(grt_session_options_set(o, "gpu.allow_growth", "true"));
  if (gpu && virtual_devices && !Dry())
    grt_status_free(grt_session_options_set(o, "gpu.virtual_devices", virtual_devices));
  grt_session* s = nullptr;
  st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  std::vector<std::string> xn, rn;
  for (int k = 0; k < n; k++) {
    xn.push_back("x" + std::to_string(k));
    rn.push_back("r" + std::to_string(k));
  }
  std::vector<grt_feed> feeds;
  std::vector<const char*> fetches;
  for (int k = 0; k < n; k++) {
    feeds.push_back({xn[k].c_str(), in[k]});
    fetches.push_back(rn[k].c_str());
  }
  std::vector<grt_tensor*> out(n, nullptr);
  for (int run = 0; s && run < 3; run++) {
    for (auto*& t : out) {
      grt_tensor_free(t);
      t = nullptr;
    }
    st = grt_session_run(s, feeds.data(), n, fetches.data(), n, nullptr, 0, out.data(), nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
  }
  for (auto*& t : out) t = Detach(t);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  return out;
}

void Compare(int n, const char* virtual_devices, const char* what) {
  GpuSuiteRanOps().insert("NcclAllReduce");
  for (grt_dtype dt : RowDtypes("NcclAllReduce", "T"))
    for (const char* red : {"sum", "prod", "min", "max"}) {
      SCOPED_TRACE(std::string(what) + " " + DtypeName(dt) + " " + red + " on " +
                   std::to_string(n));
      std::vector<grt_tensor*> in;
      for (int k = 0; k < n; k++) in.push_back(Random({dt, {1000, 33}}));
      auto gpu = RunGroup(n, dt, red, true, virtual_devices, in);
      auto cpu = RunGroup(n, dt, red, false, nullptr, in);
      for (int k = 0; k < n; k++) {
        ASSERT_NE(gpu[k], nullptr);
        ASSERT_NE(cpu[k], nullptr);
        double err = 0, norm = 0;
        for (int64_t i = 0; i < grt_tensor_num_elements(cpu[0]); i++) {
          double a = At(gpu[k], i), b = At(cpu[k], i);
          err += (a - b) * (a - b);
          norm += b * b;
        }
        // float16: each member's partial results rounded to float16 in an
        // order the CPU's group need not share (an ulp, 2^-10, per step).
        double tol = dt == GRT_FLOAT32    ? 1e-6
                     : dt == GRT_FLOAT64  ? 1e-14
                     : dt == GRT_FLOAT16  ? 2e-3
                     : dt == GRT_BFLOAT16 ? 1.6e-2
                                          : 0;
        EXPECT_LE(std::sqrt(err), tol * std::sqrt(norm)) << "member " << k;
        // Every member holds the same bits.
        EXPECT_EQ(
            memcmp(grt_tensor_data(gpu[k]), grt_tensor_data(gpu[0]), grt_tensor_byte_size(gpu[0])),
            0)
            << "member " << k;
      }
      for (auto* t : in) grt_tensor_free(t);
      for (auto* t : gpu) grt_tensor_free(t);
      for (auto* t : cpu) grt_tensor_free(t);
    }
}

TEST_F(GpuCollective, OverPhysicalGpusWithNccl) {
  int n = Dry() ? 2 : std::min(Gpus(), 4);
  if (n < 2) GTEST_SKIP() << "one GPU: see OverLogicalGpusOfOneCard";
  Compare(n, nullptr, "nccl");
}

TEST_F(GpuCollective, OverPhysicalGpusByCopies) {
  int n = Dry() ? 2 : std::min(Gpus(), 4);
  if (n < 2) GTEST_SKIP() << "one GPU: see OverLogicalGpusOfOneCard";
  setenv("GRT_CUDA_ALL_REDUCE", "copies", 1);
  Compare(n, nullptr, "copies");
  unsetenv("GRT_CUDA_ALL_REDUCE");
}

TEST_F(GpuCollective, OverLogicalGpusOfOneCard) { Compare(3, "1024,1024,1024", "virtual"); }

}  // namespace
