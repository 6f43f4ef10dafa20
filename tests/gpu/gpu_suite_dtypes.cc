// The GPU suite, by dtype: for the kernels that declare their dtypes
// (backends/cuda/dtype_list.cuh) and whose rows promise float16 and
// bfloat16 — MatMul, BatchMatMulV2, Softmax, the softmax cross-entropies,
// BiasAdd(+Grad), AddN, Pow, ArgMax, FusedBatchNorm(Grad)V3 and the random
// ops — a case for every dtype each op's GPU rows allow (RowDtypes), so a
// GPU run proves every promise a row makes. The variables and optimizers
// get theirs in gpu_suite_ops.cc (VariablesAndOptimizers).
//
// Tolerances are CheckAgainstCpu's, relative to the reference's norm:
// float16 1e-3 (two of its ulps at 2^-11: cuBLAS's and the CPU's float32
// sums round differently before the final rounding), bfloat16 8e-3 (two
// ulps at 2^-8), float32 1e-5, float64 1e-12; integers exact.
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs the graphs and comparisons
// on the CPU only).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuDtypes : public GpuSuite {};

bool Narrow(grt_dtype dt) { return dt == GRT_FLOAT16 || dt == GRT_BFLOAT16; }

std::string Attr(const char* name, grt_dtype dt) {
  return std::string("\"") + name + "\":\"" + DtypeName(dt) + "\"";
}

// A narrow product's elements may each differ by one ulp of the narrow type
// (cuBLAS's float32 sum and the CPU's round apart), and an ulp is up to
// 2^-10 (float16) or 2^-7 (bfloat16) of a value just above a power of two:
// the fourth GPU run saw 1.2e-3 for a float16 MatMul, past the default 1e-3.
double ProductTol(grt_dtype dt) {
  return dt == GRT_FLOAT16 ? 2e-3 : dt == GRT_BFLOAT16 ? 1.6e-2 : 0;
}

TEST_F(GpuDtypes, MatMulAndBatchMatMul) {
  for (grt_dtype dt : RowDtypes("MatMul", "T")) {
    CheckAgainstCpu({"MatMul", Attr("T", dt), {{dt, {37, 53}}, {dt, {53, 29}}}, 1, ProductTol(dt)});
    CheckAgainstCpu({"MatMul",
                     Attr("T", dt) + ",\"transpose_a\":true,\"transpose_b\":true",
                     {{dt, {53, 37}}, {dt, {29, 53}}},
                     1,
                     ProductTol(dt)});
  }
  for (grt_dtype dt : RowDtypes("BatchMatMulV2", "T")) {
    CheckAgainstCpu({"BatchMatMulV2",
                     Attr("T", dt),
                     {{dt, {2, 3, 4, 5}}, {dt, {2, 3, 5, 6}}},
                     1,
                     ProductTol(dt)});
    CheckAgainstCpu(
        {"BatchMatMulV2", Attr("T", dt), {{dt, {2, 3, 4, 5}}, {dt, {3, 5, 6}}}, 1, ProductTol(dt)});
  }
}

TEST_F(GpuDtypes, SoftmaxAndCrossEntropy) {
  for (grt_dtype dt : RowDtypes("Softmax", "T")) {
    CheckAgainstCpu({"Softmax", Attr("T", dt), {{dt, {7, 10}}}});
    CheckAgainstCpu({"Softmax", Attr("T", dt), {{dt, {2, 3, 300}}}});
  }
  // Dense labels: rows summing to 1 where the suite's fill makes them
  // (float32, float64), any positive labels otherwise (the op does not
  // need them to sum to 1).
  for (grt_dtype dt : RowDtypes("SoftmaxCrossEntropyWithLogits", "T"))
    CheckAgainstCpu({"SoftmaxCrossEntropyWithLogits",
                     Attr("T", dt),
                     {{dt, {9, 10}}, {dt, {9, 10}, Narrow(dt) ? kPositive : kOneHotRows}},
                     2});
  for (grt_dtype dt : RowDtypes("SparseSoftmaxCrossEntropyWithLogits", "T"))
    for (grt_dtype lt : RowDtypes("SparseSoftmaxCrossEntropyWithLogits", "Tlabels"))
      CheckAgainstCpu({"SparseSoftmaxCrossEntropyWithLogits",
                       Attr("T", dt) + "," + Attr("Tlabels", lt),
                       {{dt, {9, 10}}, {lt, {9}, kLabels, {10}}},
                       2});
}

TEST_F(GpuDtypes, BiasAddAndGrad) {
  for (grt_dtype dt : RowDtypes("BiasAdd", "T")) {
    CheckAgainstCpu({"BiasAdd", Attr("T", dt), {{dt, {2, 3, 4, 5}}, {dt, {5}}}});
    CheckAgainstCpu(
        {"BiasAdd", Attr("T", dt) + ",\"data_format\":\"NCHW\"", {{dt, {2, 5, 3, 4}}, {dt, {5}}}});
  }
  for (grt_dtype dt : RowDtypes("BiasAddGrad", "T")) {
    CheckAgainstCpu({"BiasAddGrad", Attr("T", dt), {{dt, {2, 3, 4, 5}}}});
    CheckAgainstCpu(
        {"BiasAddGrad", Attr("T", dt) + ",\"data_format\":\"NCHW\"", {{dt, {2, 5, 3, 4}}}});
  }
}

TEST_F(GpuDtypes, AddNPowArgMax) {
  for (grt_dtype dt : RowDtypes("AddN", "T"))  // int32: the host-memory row
    for (int n : {1, 3, 11}) {                 // 11: more than one chunk of inputs
      Case c{"AddN", "\"N\":" + std::to_string(n) + "," + Attr("T", dt), {}};
      for (int k = 0; k < n; k++) c.in.push_back({dt, {5, 7}});
      CheckAgainstCpu(c);
    }
  for (grt_dtype dt : RowDtypes("Pow", "T")) {
    if (dt == GRT_INT64) {  // exponents in [0, 3]
      CheckAgainstCpu({"Pow", Attr("T", dt), {{dt, {6, 5}}, {dt, {6, 5}, kLabels, {4}}}});
      continue;
    }
    CheckAgainstCpu({"Pow", Attr("T", dt), {{dt, {6, 5}, kPositive}, {dt, {6, 5}}}});
    CheckAgainstCpu({"Pow", Attr("T", dt), {{dt, {6, 5}, kPositive}, {dt, {5}}}});
  }
  for (grt_dtype dt : RowDtypes("ArgMax", "T"))
    for (grt_dtype out : RowDtypes("ArgMax", "output_type"))
      for (int64_t axis : {0, -1})
        CheckAgainstCpu({"ArgMax",
                         Attr("T", dt) + "," + Attr("output_type", out),
                         {{dt, {6, 7, 8}}, {GRT_INT32, {}, kConst, {axis}}}});
}

// The CPU's FusedBatchNorm takes float32 x only: a float16/bfloat16 case is
// held to the float32 CPU kernel on the same values widened, with the
// narrow type's tolerance for y and dx (the statistics are float32 on both).
// Dry, the CPU has no narrow kernel to stand in for the GPU's: only the
// reference runs.
void CheckAgainstFloat32Cpu(const Case& c, const std::string& attrs32) {
  SCOPED_TRACE(c.op + " {" + c.attrs + "}");
  std::vector<grt_tensor*> feeds, wide;
  Case ref = c;
  ref.attrs = attrs32;
  for (Input& in : ref.in) {
    grt_tensor* t = Random(in);
    feeds.push_back(t);
    if (!Narrow(in.dt)) {
      wide.push_back(t);
      continue;
    }
    grt_tensor* w = nullptr;
    ASSERT_OK(grt_tensor_new(GRT_FLOAT32, (int32_t)in.shape.size(), in.shape.data(), &w));
    for (int64_t i = 0; i < grt_tensor_num_elements(t); i++)
      static_cast<float*>(grt_tensor_data(w))[i] = (float)At(t, i);
    wide.push_back(w);
    in.dt = GRT_FLOAT32;
  }
  std::vector<grt_tensor*> gpu, cpu;
  RunOn(ref, "/cpu:0", wide, &cpu);
  if (Dry()) ExpectGpuRow(c);
  if (!Dry()) {
    RunOn(c, "/device:GPU:0", feeds, &gpu);
    for (int k = 0; k < c.outputs; k++) {
      ASSERT_NE(gpu[k], nullptr);
      ASSERT_NE(cpu[k], nullptr);
      ASSERT_EQ(grt_tensor_num_elements(gpu[k]), grt_tensor_num_elements(cpu[k])) << k;
      grt_dtype dt = grt_tensor_dtype(gpu[k]);
      double tol = dt == GRT_FLOAT16 ? 1e-3 : dt == GRT_BFLOAT16 ? 8e-3 : 1e-5;
      double err = 0, norm = 0;
      for (int64_t i = 0; i < grt_tensor_num_elements(cpu[k]); i++) {
        double a = At(gpu[k], i), b = At(cpu[k], i);
        ASSERT_FALSE(std::isnan(a) != std::isnan(b)) << "output " << k << " element " << i;
        if (std::isnan(b) || a == b) continue;
        err += (a - b) * (a - b);
        norm += b * b;
      }
      EXPECT_LE(std::sqrt(err), tol * std::sqrt(norm) + 1e-30) << "output " << k;
    }
  }
  for (size_t i = 0; i < feeds.size(); i++) {
    if (wide[i] != feeds[i]) grt_tensor_free(wide[i]);
    grt_tensor_free(feeds[i]);
  }
  for (auto* t : gpu) grt_tensor_free(t);
  for (auto* t : cpu) grt_tensor_free(t);
}

TEST_F(GpuDtypes, FusedBatchNorm) {
  const grt_dtype f = GRT_FLOAT32;
  for (const char* op : {"FusedBatchNormV3", "FusedBatchNormGradV3"})
    for (grt_dtype dt : RowDtypes(op, "T"))
      for (bool training : {true, false}) {
        std::string common =
            ",\"U\":\"float32\",\"epsilon\":0.001,\"data_format\":\"NHWC\","
            "\"is_training\":" +
            std::string(training ? "true" : "false");
        std::string attrs = Attr("T", dt) + common, attrs32 = Attr("T", f) + common;
        std::vector<int64_t> x = {2, 5, 4, 3};
        Case c =
            std::string(op) == "FusedBatchNormV3"
                ? Case{op, attrs, {{dt, x}, {f, {3}}, {f, {3}}, {f, {3}}, {f, {3}, kPositive}}, 6}
                : Case{op,
                       attrs,
                       {{dt, x}, {dt, x}, {f, {3}}, {f, {3}}, {f, {3}, kPositive}, {f, {}}},
                       5};
        if (Narrow(dt))
          CheckAgainstFloat32Cpu(c, attrs32);
        else
          CheckAgainstCpu(c);
      }
}

// Seeded, every dtype draws the CPU's Philox stream: uniform samples equal
// (float16/bfloat16 from 10/7 random mantissa bits), normal ones within
// rounding of the device's logf/sinf/cosf.
TEST_F(GpuDtypes, RandomOps) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
    for (grt_dtype dt : RowDtypes(op, "dtype"))
      for (int64_t n : {1, 7, 4096})
        CheckAgainstCpu({op,
                         Attr("dtype", dt) + ",\"seed\":7,\"seed2\":" + std::to_string(n),
                         {{GRT_INT32, {2}, kConst, {n, 3}}}});
}

}  // namespace
