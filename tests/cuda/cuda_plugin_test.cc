// The CUDA backend plugin on a machine without a GPU (CI): it loads, says
// how many GPUs it found and, with none, why; its CUDA kernels and the GPU
// support rows the placer plans with agree (every row's op has a kernel or
// is on the plugin's own pending list, never both, and every kernel has a
// row; every dtype a row promises is one its kernel's dispatch declares it
// takes); and GPU-pinned graphs run on the CPU under soft placement with the
// plugin present. Nothing here runs GPU code.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"

extern "C" {
#include "kernels/kernel_registry.h"
#include "runtime/device/device.h"
}

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

std::string PluginPath() {
  const char* rel = "backends/cuda/libgrt_backend_cuda.so";
  char buf[PATH_MAX];
  return realpath(rel, buf) ? std::string(buf) : std::string(rel);
}

const grt_backend* LoadCuda() {
  grt_status* s = grt_backend_load(PluginPath().c_str());
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return grt_registry_find("GPU");
}

std::string Report() {
  std::string r(grt_backends_report(nullptr, 0) + 1, '\0');
  grt_backends_report(&r[0], r.size());
  r.resize(strlen(r.c_str()));
  return r;
}

TEST(CudaPlugin, LoadsAndSaysWhyItHasNoGpu) {
  const grt_backend* b = LoadCuda();
  ASSERT_NE(b, nullptr);
  EXPECT_STREQ(b->type, "GPU");
  std::string r = Report();
  size_t at = r.find("GPU: ");
  ASSERT_NE(at, std::string::npos) << r;
  std::string line = r.substr(at, r.find('\n', at) - at);
  EXPECT_NE(line.find("(plugin)"), std::string::npos) << line;
  if (grt_registry_device_count("GPU") == 0) {
    // One line, with the reason: on CI "no usable CUDA driver: ..." (no
    // driver) or "the CUDA driver found no GPU".
    EXPECT_NE(line.find("GPU: 0 devices (plugin) ("), std::string::npos) << line;
    EXPECT_TRUE(line.find("CUDA driver") != std::string::npos) << line;
  }
}

// The objects mapped in this process whose file name contains `part`.
std::vector<std::string> Mapped(const char* part) {
  struct Ctx {
    const char* part;
    std::vector<std::string> found;
  } ctx{part, {}};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* arg) {
        Ctx* c = static_cast<Ctx*>(arg);
        if (info->dlpi_name && strstr(info->dlpi_name, c->part))
          c->found.push_back(info->dlpi_name);
        return 0;
      },
      &ctx);
  return ctx.found;
}

// Loading the plugin and probing (what every process with the plugin
// installed does) maps the CUDA runtime only: cuBLAS, cuDNN and NCCL are
// opened when a device or kernel first needs them.
TEST(CudaPlugin, LoadingAndProbingMapNoCublasCudnnOrNccl) {
  ASSERT_NE(LoadCuda(), nullptr);
  (void)grt_registry_device_count("GPU");
  EXPECT_FALSE(Mapped("libcudart").empty()) << "the plugin links the CUDA runtime";
  for (const char* heavy : {"libcublas", "libcudnn", "libnccl"})
    EXPECT_TRUE(Mapped(heavy).empty()) << heavy << " was mapped: " << Mapped(heavy)[0];
}

// Every call of the tables exists in the cuBLAS, cuDNN and NCCL installed
// with the toolkit the plugin was built with (opening needs no GPU), and
// opening them is what maps them. In a child process, so this process keeps
// them unmapped for the test above.
TEST(CudaPluginDeathTest, OpensCublasCudnnAndNcclOnFirstUse) {
  ASSERT_NE(LoadCuda(), nullptr);
  void* h = dlopen(PluginPath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr);
  int (*open_libraries)(char*, size_t);
  *reinterpret_cast<void**>(&open_libraries) = dlsym(h, "grt_cuda_open_libraries");
  ASSERT_NE(open_libraries, nullptr);
  EXPECT_EXIT(
      {
        char why[1024];
        if (open_libraries(why, sizeof why) != 0) {
          fprintf(stderr, "%s\n", why);
          _exit(1);
        }
        _exit(Mapped("libcublas").empty() || Mapped("libcudnn").empty() ? 2 : 0);
      },
      ::testing::ExitedWithCode(0), "");
  dlclose(h);
}

std::set<std::string> RowOps() {
  std::set<std::string> ops;
  for (int32_t i = 0; i < grt_kernels_gpu.n; i++) ops.insert(grt_kernels_gpu.rows[i].op);
  return ops;
}

TEST(CudaPlugin, KernelsAndSupportRowsAgree) {
  const grt_backend* b = LoadCuda();
  ASSERT_NE(b, nullptr);
  void* h = dlopen(PluginPath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr) << "the plugin should be loaded already";
  auto pending = reinterpret_cast<const char* const*>(dlsym(h, "grt_cuda_pending_ops"));
  auto kernel_ops = reinterpret_cast<int (*)(const char**, int)>(dlsym(h, "grt_cuda_kernel_ops"));
  ASSERT_NE(pending, nullptr);
  ASSERT_NE(kernel_ops, nullptr);
  std::set<std::string> rows = RowOps(), waiting;
  for (const char* const* p = pending; *p; p++) {
    EXPECT_TRUE(waiting.insert(*p).second) << *p << " listed twice";
    EXPECT_TRUE(rows.count(*p)) << *p << " is pending but no GPU row declares it";
  }
  for (const std::string& op : rows) {
    bool has = b->kernel(op.c_str()) != nullptr;
    if (waiting.count(op))
      EXPECT_FALSE(has) << op << " has a kernel now: take it off the pending list";
    else
      EXPECT_TRUE(has) << "GPU row " << op << " has no CUDA kernel and is not pending";
  }
  const char* ops[512];
  int n = kernel_ops(ops, 512);
  ASSERT_LE(n, 512);
  EXPECT_GT(n, 0);
  std::set<std::string> seen;
  for (int i = 0; i < n; i++) {
    EXPECT_TRUE(rows.count(ops[i])) << "CUDA kernel " << ops[i] << " has no GPU support row";
    EXPECT_TRUE(seen.insert(ops[i]).second) << ops[i] << " registered twice";
    EXPECT_EQ(b->kernel(ops[i])->op, std::string(ops[i]));
  }
  EXPECT_EQ(b->kernel("NoSuchOp"), nullptr);
  dlclose(h);
  // How far the kernels are: printed for the log, not asserted.
  printf("CUDA kernels: %d of %zu GPU row ops (%zu pending)\n", n, rows.size(), waiting.size());
}

// ---- each GPU row's dtypes against what its kernel's dispatch takes ----------

// What a kernel declares for one type attr (backends/cuda/dtype_list.cuh):
// the mask of the dtype list its dispatch is instantiated with.
struct Declared {
  std::string op, attr;
  uint32_t mask;
};

std::vector<Declared> DeclaredDtypes() {
  void* h = dlopen(PluginPath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr) << "the plugin should be loaded already";
  if (!h) return {};
  auto declared = reinterpret_cast<int (*)(const char**, const char**, uint32_t*, int)>(
      dlsym(h, "grt_cuda_declared_dtypes"));
  EXPECT_NE(declared, nullptr);
  std::vector<Declared> out;
  if (declared) {
    const char *ops[256], *attrs[256];
    uint32_t masks[256];
    int n = declared(ops, attrs, masks, 256);
    EXPECT_LE(n, 256);
    for (int i = 0; i < n && i < 256; i++) out.push_back({ops[i], attrs[i], masks[i]});
  }
  dlclose(h);
  return out;
}

std::string DtypeList(uint32_t mask) {
  std::string s;
  for (int t = 1; t < GRT_NUM_DTYPES; t++)
    if (mask & (1u << t)) s += std::string(s.empty() ? "" : ", ") + grt_dtype_name((grt_dtype)t);
  return "{" + s + "}";
}

// Why `row` promises more than `decls` (its op's declarations) take: one
// line per constrained attr with a dtype missing, or a row constraining no
// declared attr; "" when the row is honest.
std::string Overpromises(const grt_kernel_def& row, const std::vector<Declared>& decls) {
  std::string why;
  bool any = false;
  for (int32_t c = 0; c < row.n_constraints; c++) {
    const grt_kernel_constraint& k = row.constraints[c];
    for (const Declared& d : decls) {
      if (d.op != row.op || d.attr != k.attr) continue;
      any = true;
      if (uint32_t missing = k.allowed & ~d.mask)
        why += "GPU row " + std::to_string(row.index) + ": " + row.op + "'s " + k.attr +
               " allows " + DtypeList(missing) +
               ", which its CUDA kernel's dispatch refuses (it takes " + DtypeList(d.mask) + ")\n";
    }
  }
  if (row.n_constraints > 0 && !any)
    why += "GPU row " + std::to_string(row.index) + ": " + row.op +
           " constrains no type attr its CUDA kernel declares\n";
  return why;
}

// The row ops whose kernels do not declare their dtypes yet: their rows
// are not checked here (the GPU suite runs them). The list only shrinks:
// a kernel that declares its dtypes comes off it, and an op with a new GPU
// row must declare or be listed.
const std::set<std::string> kUndeclared = {
    // array ops: byte moves (any dtype by element size) and shape ops
    "Placeholder", "Const", "Identity", "StopGradient", "NoOp", "ZerosLike", "OnesLike", "Reshape",
    "Squeeze", "ExpandDims", "Pack", "Unpack", "ConcatV2", "Split", "Slice", "StridedSlice", "Tile",
    "Transpose", "Fill", "Shape", "Size", "Rank", "OneHot", "BroadcastGradientArgs", "Select",
    "Cast", "Where",
    // the comparisons and LogicalNot (every dtype through one load switch)
    "Less", "Greater", "GreaterEqual", "Equal", "LogicalNot",
    // reductions, convolutions, pooling, LRN, the fused ops
    "Sum", "Mean", "Prod", "Max", "Min", "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
    "DepthwiseConv2dNative", "MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "LRN", "LRNGrad",
    "_FusedMatMul", "_FusedConv2D",
    // indexing ops
    "Range", "GatherV2", "GatherNd", "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterMax",
    "TensorScatterMin", "Cumsum", "TopKV2", "Pad", "PadV2", "MirrorPad", "ReverseSequence",
    "MatrixDeterminant",
    // variables and collectives
    "VariableV2", "Variable", "Assign", "NcclAllReduce"};

TEST(CudaPlugin, RowDtypesAreOnesTheKernelsTake) {
  const grt_backend* b = LoadCuda();
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(grt_kernel_registry_status(), nullptr);
  std::vector<Declared> decls = DeclaredDtypes();
  ASSERT_FALSE(decls.empty());
  std::set<std::string> rows = RowOps(), declared;
  std::set<std::pair<std::string, std::string>> constrained;  // (op, attr) some row constrains
  for (int32_t i = 0; i < grt_kernel_count(); i++) {
    const grt_kernel_def* k = grt_kernel_at(i);
    if (k->device != GRT_DEVICE_GPU) continue;
    for (int32_t c = 0; c < k->n_constraints; c++)
      constrained.insert({k->op, k->constraints[c].attr});
  }
  for (const Declared& d : decls) {
    declared.insert(d.op);
    EXPECT_TRUE(rows.count(d.op)) << d.op << " declares dtypes but has no GPU row";
    EXPECT_NE(b->kernel(d.op.c_str()), nullptr) << d.op << " declares dtypes but has no kernel";
    EXPECT_TRUE(constrained.count({d.op, d.attr}))
        << d.op << " declares attr " << d.attr << ", which none of its GPU rows constrains";
    EXPECT_NE(d.mask, 0u) << d.op << "'s " << d.attr << " declares no dtype";
  }
  for (const std::string& op : kUndeclared) {
    EXPECT_TRUE(rows.count(op)) << op << " is listed as undeclared but has no GPU row";
    EXPECT_FALSE(declared.count(op)) << op << " declares its dtypes now: take it off kUndeclared";
  }
  for (const std::string& op : rows)
    EXPECT_TRUE(declared.count(op) || kUndeclared.count(op))
        << "GPU row " << op << ": its CUDA kernel declares no dtypes (dtype_list.cuh)";
  int checked = 0;
  for (int32_t i = 0; i < grt_kernel_count(); i++) {
    const grt_kernel_def* k = grt_kernel_at(i);
    if (k->device != GRT_DEVICE_GPU || !declared.count(k->op)) continue;
    checked++;
    EXPECT_EQ(Overpromises(*k, decls), "");
  }
  printf("GPU rows checked against their kernels' dtypes: %d (%zu ops declare)\n", checked,
         declared.size());
}

// The check above fails a row that promises a dtype the declaration lacks,
// and one that constrains no declared attr.
TEST(CudaPlugin, OverpromisingRowsAreCaught) {
  grt_kernel_def row = {};
  row.op = "MatMul";
  row.index = 7;
  row.n_constraints = 1;
  row.constraints[0] = {"T", (1u << GRT_FLOAT16) | (1u << GRT_FLOAT32)};
  std::vector<Declared> decls = {{"MatMul", "T", 1u << GRT_FLOAT32}};
  EXPECT_EQ(Overpromises(row, decls),
            "GPU row 7: MatMul's T allows {float16}, which its CUDA kernel's dispatch refuses (it "
            "takes {float32})\n");
  decls[0].mask |= 1u << GRT_FLOAT16;
  EXPECT_EQ(Overpromises(row, decls), "");
  decls[0].attr = "U";
  EXPECT_EQ(Overpromises(row, decls),
            "GPU row 7: MatMul constrains no type attr its CUDA kernel declares\n");
}

// Three products pinned to three GPUs, as the seeds' multi-GPU example;
// the sum on the CPU.
const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"a","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2,3],"values":[1,2,3,4,5,6]}}},
  {"name":"b","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3,2],"values":[7,8,9,10,11,12]}}},
  {"name":"m0","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:0","attrs":{"T":"float32"}},
  {"name":"m1","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:1","attrs":{"T":"float32"}},
  {"name":"m2","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:2","attrs":{"T":"float32"}},
  {"name":"s","op":"AddN","inputs":["m0","m1","m2"],"device":"/cpu:0","attrs":{"T":"float32","N":3}}
]})";

TEST(CudaPlugin, GpuPinnedGraphRunsOnCpuUnderSoftPlacement) {
  ASSERT_NE(LoadCuda(), nullptr);
  if (grt_registry_device_count("GPU") > 0) GTEST_SKIP() << "this machine has GPUs";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "allow_soft_placement", "true"));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  const grt_plan* p = grt_session_plan(s);
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++)
    EXPECT_NE(std::string(grt_plan_node_device_name(p, i)).find("CPU:0"), std::string::npos)
        << grt_graph_node_name(g, i);
  const char* fetch = "s";
  grt_tensor* out = nullptr;
  ASSERT_OK(grt_session_run(s, nullptr, 0, &fetch, 1, nullptr, 0, &out, nullptr));
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
  const float* v = static_cast<const float*>(grt_tensor_data(out));
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double acc = 0;
      for (int k = 0; k < 3; k++) acc += a[i * 3 + k] * b[k * 2 + j];
      EXPECT_EQ(v[i * 2 + j], static_cast<float>(3 * acc)) << i << "," << j;
    }
  grt_tensor_free(out);
  grt_session_free(s);

  // Without soft placement the pin to a GPU this machine lacks is an error
  // naming the device.
  grt_session_options* hard = nullptr;
  ASSERT_OK(grt_session_options_new(&hard));
  ASSERT_OK(grt_session_options_set(hard, "allow_soft_placement", "false"));
  grt_status* st = grt_session_new(g, hard, &s);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("GPU"), std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  grt_session_options_free(hard);
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace
