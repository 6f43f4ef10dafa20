// The GPU suite, real models: tests/models' architectures (PyTorch exports
// at reduced size, with PyTorch's outputs) placed as the placer chooses on
// a machine with a GPU, with and without the session's graph rewrite. Each
// must put its convolutions, products and element-wise work on the GPU and
// match PyTorch as tests/models does on the CPU; the line printed per model
// says how many nodes ran where and the median time of a batch-2 run.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>

#include "tests/gpu/gpu_suite_util.h"
#include "tests/models/compare.h"

namespace {

using grt_models::Message;

class GpuModels : public GpuSuite {};

const char kDir[] = "tests/models/data/";

// Tensors the plugin's kernels have kept across runs so far (a Const's
// device copy, a Const filter in cuDNN's layout: backends/cuda/
// kept_tensor.h), or -1 without the plugin (a dry run).
int64_t KeptUploads() {
  const char* env = getenv("GRT_CUDA_PLUGIN");
  void* h = dlopen(env ? env : "backends/cuda/libgrt_backend_cuda.so", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return -1;
  auto fn = reinterpret_cast<int64_t (*)(void)>(dlsym(h, "grt_cuda_kept_uploads"));
  int64_t n = fn ? fn() : -1;
  dlclose(h);
  return n;
}

// Nodes of the session's plan on a GPU, and in all.
std::pair<int, int> GpuNodes(const grt_session* s) {
  const grt_plan* p = grt_session_plan(s);
  int gpu = 0, n = grt_plan_num_nodes(p);
  for (int i = 0; i < n; i++)
    if (strstr(grt_plan_node_device_name(p, i), "GPU")) gpu++;
  return {gpu, n};
}

void CheckModel(const char* name, bool rewrite) {
  SCOPED_TRACE(std::string(name) + (rewrite ? "" : ", rewrite=false"));
  std::string base = std::string(kDir) + name;
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_load((base + ".onnx").c_str(), &g)), "");
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "rewrite", rewrite ? "true" : "false"));
  ASSERT_OK(grt_session_options_set(o, "gpu.allow_growth", "true"));
  if (Dry()) {
    ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", "true"));
  }
  grt_session* s = nullptr;
  std::string err = Message(grt_session_new(g, o, &s));
  grt_session_options_free(o);
  ASSERT_EQ(err, "");
  auto [gpu, all] = GpuNodes(s);
  // The recurrent ops (_LSTM: ops/defs_rnn.c) have CPU kernels only, and
  // lstm_tiny is little else: it runs on the CPU beside the GPU.
  if (!Dry() && std::string(name) != "lstm_tiny") {
    EXPECT_GT(gpu, all / 2) << "most of the model should run on the GPU";
  }
  double ms = 0;
  for (int batch : {1, 2}) {
    std::string prefix = base + ".b" + std::to_string(batch);
    grt_tensor *in = nullptr, *ref = nullptr;
    ASSERT_EQ(Message(grt_npy_read((prefix + ".in.npy").c_str(), &in)), "");
    ASSERT_EQ(Message(grt_npy_read((prefix + ".torch.npy").c_str(), &ref)), "");
    grt_feed feed = {"input", in};
    const char* fetch = "output";
    std::vector<double> times;
    int64_t uploads_after_first = -1;
    for (int rep = 0; rep < (batch == 2 ? 7 : 1); rep++) {
      if (rep == 1) uploads_after_first = KeptUploads();
      grt_tensor* out = nullptr;
      auto t0 = std::chrono::steady_clock::now();
      err = Message(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr));
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      EXPECT_EQ(err, "") << "batch " << batch;
      if (out) {
        std::string mismatch = grt_models::Compare(out, ref);
        EXPECT_EQ(mismatch, "") << "batch " << batch;
      }
      grt_tensor_free(out);
      if (!err.empty()) break;
    }
    // Constants and Const filters go to the device on the first run only:
    // the later runs of the same batch upload nothing.
    if (!Dry() && uploads_after_first >= 0) {
      EXPECT_EQ(KeptUploads(), uploads_after_first) << "batch " << batch << ": runs after the "
                                                    << "first uploaded constants again";
    }
    // The first run of a batch size pays for first-use set-up: left out.
    if (times.size() > 1) times.erase(times.begin());
    std::sort(times.begin(), times.end());
    ms = times[times.size() / 2];
    grt_tensor_free(in);
    grt_tensor_free(ref);
  }
  printf("model %-18s rewrite=%-5s %4d of %4d nodes on a GPU, batch 2: %.2f ms (median)\n", name,
         rewrite ? "true" : "false", gpu, all, ms);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST_F(GpuModels, TestsModelsOnTheGpuMatchPyTorch) {
  for (const char* name : {"resnet18_tiny", "mobilenet_v2", "efficientnet_b0", "vit_tiny",
                           "transformer_tiny", "lstm_tiny"})
    for (bool rewrite : {true, false}) CheckModel(name, rewrite);
}

}  // namespace
