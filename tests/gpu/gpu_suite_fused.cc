// The GPU suite, continued: the remapper's fused ops _FusedMatMul (cuBLAS)
// and _FusedConv2D (cuDNN), each followed by the bias + activation kernel,
// against the CPU kernels: every fused_ops list the CPU accepts ([BiasAdd]
// and [BiasAdd, Relu|Relu6|Elu]), transposes, NHWC and NCHW, VALID, SAME
// and strides, a product over nothing (act(bias)), empty outputs, and the
// errors both give (an activation neither fuses, a bias of the wrong size).
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs
// the graphs and comparisons on the CPU only).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuFused : public GpuSuite {};

const char* const kFusedOps[] = {"[\"BiasAdd\"]", "[\"BiasAdd\",\"Relu\"]",
                                 "[\"BiasAdd\",\"Relu6\"]", "[\"BiasAdd\",\"Elu\"]"};

std::string MatMulAttrs(const char* ops, bool ta, bool tb) {
  return std::string("\"num_args\":1,\"fused_ops\":") + ops +
         ",\"transpose_a\":" + (ta ? "true" : "false") +
         ",\"transpose_b\":" + (tb ? "true" : "false");
}

TEST_F(GpuFused, FusedMatMul) {
  const grt_dtype f = GRT_FLOAT32;
  for (const char* ops : kFusedOps)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        int64_t m = 7, k = 9, n = 5;
        CheckAgainstCpu({"_FusedMatMul",
                         MatMulAttrs(ops, ta, tb),
                         {{f, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}},
                          {f, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}},
                          {f, {n}}}});
      }
  for (const char* ops : kFusedOps) {
    CheckAgainstCpu({"_FusedMatMul",
                     MatMulAttrs(ops, false, false),
                     {{f, {4, 0}}, {f, {0, 3}}, {f, {3}}}});  // act(bias)
    CheckAgainstCpu({"_FusedMatMul",
                     MatMulAttrs(ops, false, false),
                     {{f, {0, 6}}, {f, {6, 3}}, {f, {3}}}});  // empty
  }
  ExpectSameError(
      {"_FusedMatMul",
       MatMulAttrs("[\"BiasAdd\",\"LeakyRelu\"]", false, false),
       {{f, {1, 2}, kConst, {1, 2}}, {f, {2, 1}, kConst, {3, 4}}, {f, {1}, kConst, {5}}}},
      GRT_UNIMPLEMENTED, "fused activation 'LeakyRelu'");
  ExpectSameError(
      {"_FusedMatMul",
       MatMulAttrs("[\"BiasAdd\"]", false, false),
       {{f, {1, 2}, kConst, {1, 2}}, {f, {2, 1}, kConst, {3, 4}}, {f, {2}, kConst, {5, 6}}}},
      GRT_INVALID_ARGUMENT, "bias must be a vector of 1 elements");
}

TEST_F(GpuFused, FusedConv2D) {
  const grt_dtype f = GRT_FLOAT32;
  for (const char* ops : kFusedOps)
    for (bool nchw : {false, true})
      for (const char* pad : {"VALID", "SAME"})
        for (int64_t stride : {1, 2}) {
          std::string s = std::to_string(stride);
          std::string a = std::string("\"num_args\":1,\"fused_ops\":") + ops + ",\"padding\":\"" +
                          pad + "\",\"data_format\":\"" + (nchw ? "NCHW" : "NHWC") +
                          "\",\"strides\":" +
                          (nchw ? "[1,1," + s + "," + s + "]" : "[1," + s + "," + s + ",1]");
          CheckAgainstCpu(
              {"_FusedConv2D",
               a,
               {{f, nchw ? std::vector<int64_t>{2, 4, 9, 8} : std::vector<int64_t>{2, 9, 8, 4}},
                {f, {3, 3, 4, 5}},
                {f, {5}}}});
        }
  for (const char* ops : kFusedOps)  // an empty batch: an empty output
    CheckAgainstCpu({"_FusedConv2D",
                     std::string("\"num_args\":1,\"fused_ops\":") + ops +
                         ",\"padding\":\"SAME\",\"strides\":[1,1,1,1]",
                     {{f, {0, 5, 5, 3}}, {f, {3, 3, 3, 4}}, {f, {4}}}});
  ExpectSameError(
      {"_FusedConv2D",
       "\"num_args\":1,\"fused_ops\":[\"BiasAdd\",\"Softplus\"],\"padding\":\"VALID\",\"strides\":["
       "1,1,1,1]",
       {{f, {1, 1, 1, 1}, kConst, {1}}, {f, {1, 1, 1, 1}, kConst, {2}}, {f, {1}, kConst, {3}}}},
      GRT_UNIMPLEMENTED, "fused activation 'Softplus'");
}

}  // namespace
