// The GPU suite, continued: the indexing ops added for ONNX import (Range,
// GatherV2 with batch_dims, GatherNd, TensorScatter*, Cumsum, Pad, PadV2,
// MirrorPad, Where, ReverseSequence, TopKV2, MatrixDeterminant), each
// against the CPU kernel, with empty tensors and the out-of-range indices
// that both devices refuse with INVALID_ARGUMENT (grt's GPU kernels check
// indices on the device and fail as the CPU does, where TensorFlow's GPU
// kernels would write zeros).
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs
// the graphs and comparisons on the CPU only).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuIndexOnnx : public GpuSuite {};

std::string T(const char* attr, grt_dtype dt) {
  return "\"" + std::string(attr) + "\":\"" + DtypeName(dt) + "\"";
}

TEST_F(GpuIndexOnnx, Range) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32}) {
    CheckAgainstCpu({"Range",
                     T("Tidx", dt),
                     {{dt, {}, kConst, {-3}}, {dt, {}, kConst, {17}}, {dt, {}, kConst, {2}}}});
    CheckAgainstCpu({"Range",
                     T("Tidx", dt),
                     {{dt, {}, kConst, {10}}, {dt, {}, kConst, {-5}}, {dt, {}, kConst, {-3}}}});
    CheckAgainstCpu(
        {"Range",
         T("Tidx", dt),
         {{dt, {}, kConst, {4}}, {dt, {}, kConst, {4}}, {dt, {}, kConst, {1}}}});  // empty
    ExpectSameError({"Range",
                     T("Tidx", dt),
                     {{dt, {}, kConst, {0}}, {dt, {}, kConst, {5}}, {dt, {}, kConst, {0}}}},
                    GRT_INVALID_ARGUMENT, "Requires delta != 0");
  }
}

TEST_F(GpuIndexOnnx, GatherV2) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_BOOL})
    for (grt_dtype it : {GRT_INT32, GRT_INT64}) {
      for (int64_t axis : {0, 1, 2, -1})
        CheckAgainstCpu({"GatherV2",
                         "",
                         {{dt, {5, 6, 7}},
                          {it,
                           {3, 4},
                           kLabels,
                           {axis == 0   ? 5
                            : axis == 1 ? 6
                                        : 7}},
                          {GRT_INT32, {}, kConst, {axis}}}});
      CheckAgainstCpu(
          {"GatherV2",
           "\"batch_dims\":1",
           {{dt, {4, 5, 6}}, {it, {4, 3}, kLabels, {5}}, {GRT_INT32, {}, kConst, {1}}}});
      CheckAgainstCpu(
          {"GatherV2",
           "\"batch_dims\":-1",
           {{dt, {4, 5, 6}}, {it, {4, 3}, kLabels, {5}}, {GRT_INT64, {}, kConst, {2}}}});
      CheckAgainstCpu({"GatherV2",
                       "",
                       {{dt, {5, 6}}, {it, {0, 2}, kLabels, {5}}, {GRT_INT32, {}, kConst, {0}}}});
    }
  ExpectSameError({"GatherV2",
                   "",
                   {{GRT_FLOAT32, {4}, kConst, {1, 2, 3, 4}},
                    {GRT_INT32, {3}, kConst, {1, 7, 2}},
                    {GRT_INT32, {}, kConst, {0}}}},
                  GRT_INVALID_ARGUMENT, "indices[1] = 7 is not in [0, 4)");
  ExpectSameError({"GatherV2",
                   "",
                   {{GRT_FLOAT32, {4}, kConst, {1, 2, 3, 4}},
                    {GRT_INT64, {2}, kConst, {-1, 0}},
                    {GRT_INT32, {}, kConst, {0}}}},
                  GRT_INVALID_ARGUMENT, "indices[0] = -1 is not in [0, 4)");
}

TEST_F(GpuIndexOnnx, GatherNd) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32})
    for (grt_dtype it : {GRT_INT32, GRT_INT64}) {
      CheckAgainstCpu({"GatherNd", "", {{dt, {5, 4, 3}}, {it, {2, 3, 2}, kLabels, {4}}}});
      CheckAgainstCpu({"GatherNd", "", {{dt, {5, 4, 3}}, {it, {6, 3}, kLabels, {3}}}});
      CheckAgainstCpu({"GatherNd", "", {{dt, {5, 4}}, {it, {0, 1}, kLabels, {4}}}});
    }
  ExpectSameError(
      {"GatherNd",
       "",
       {{GRT_FLOAT32, {2, 2}, kConst, {1, 2, 3, 4}}, {GRT_INT32, {2, 2}, kConst, {0, 1, 1, 2}}}},
      GRT_INVALID_ARGUMENT, "indices[1][1] = 2 does not index into param dimension 1");
}

TEST_F(GpuIndexOnnx, TensorScatter) {
  for (const char* op :
       {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterMax", "TensorScatterMin"})
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32})
      for (grt_dtype it : {GRT_INT32, GRT_INT64}) {
        // Duplicate indices are likely: Update's last wins, Add sums in order.
        CheckAgainstCpu({op, "", {{dt, {6, 4}}, {it, {9, 1}, kLabels, {6}}, {dt, {9, 4}}}});
        CheckAgainstCpu({op, "", {{dt, {4, 4, 3}}, {it, {3, 2}, kLabels, {4}}, {dt, {3, 3}}}});
        CheckAgainstCpu({op, "", {{dt, {4, 3}}, {it, {0, 1}, kLabels, {4}}, {dt, {0, 3}}}});
      }
  CheckAgainstCpu({"TensorScatterUpdate",
                   "",
                   {{GRT_BOOL, {6, 4}}, {GRT_INT32, {3, 1}, kLabels, {6}}, {GRT_BOOL, {3, 4}}}});
  ExpectSameError({"TensorScatterAdd",
                   "",
                   {{GRT_FLOAT32, {3}, kConst, {1, 2, 3}},
                    {GRT_INT32, {2, 1}, kConst, {0, 3}},
                    {GRT_FLOAT32, {2}, kConst, {5, 6}}}},
                  GRT_INVALID_ARGUMENT,
                  "indices[1] = [3] does not index into dimension 0 of size 3");
}

TEST_F(GpuIndexOnnx, Cumsum) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32})
    for (int64_t axis : {0, 1, -1})
      for (const char* flags :
           {"\"exclusive\":false,\"reverse\":false", "\"exclusive\":true,\"reverse\":false",
            "\"exclusive\":false,\"reverse\":true", "\"exclusive\":true,\"reverse\":true"})
        CheckAgainstCpu({"Cumsum", flags, {{dt, {4, 5, 6}}, {GRT_INT32, {}, kConst, {axis}}}});
  CheckAgainstCpu({"Cumsum", "", {{GRT_FLOAT32, {0, 5}}, {GRT_INT32, {}, kConst, {1}}}});
  ExpectSameError(
      {"Cumsum", "", {{GRT_FLOAT32, {2}, kConst, {1, 2}}, {GRT_INT32, {}, kConst, {1}}}},
      GRT_INVALID_ARGUMENT, "axis must be in the range");
}

TEST_F(GpuIndexOnnx, Pads) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32, GRT_BOOL}) {
    CheckAgainstCpu({"Pad", "", {{dt, {3, 4}}, {GRT_INT32, {2, 2}, kConst, {1, 2, 0, 3}}}});
    CheckAgainstCpu({"Pad",
                     "\"Tpaddings\":\"int64\"",
                     {{dt, {0, 2}}, {GRT_INT64, {2, 2}, kConst, {1, 0, 2, 1}}}});
    CheckAgainstCpu({"PadV2",
                     "",
                     {{dt, {2, 3, 2}}, {GRT_INT32, {3, 2}, kConst, {0, 1, 2, 0, 1, 1}}, {dt, {}}}});
  }
  for (grt_dtype dt : kFloats)
    for (const char* mode : {"\"mode\":\"REFLECT\"", "\"mode\":\"SYMMETRIC\""}) {
      CheckAgainstCpu(
          {"MirrorPad", mode, {{dt, {4, 5}}, {GRT_INT32, {2, 2}, kConst, {3, 1, 0, 2}}}});
      CheckAgainstCpu({"MirrorPad",
                       std::string(mode) + ",\"Tpaddings\":\"int64\"",
                       {{dt, {2, 3, 4}}, {GRT_INT64, {3, 2}, kConst, {1, 1, 2, 0, 0, 3}}}});
    }
  ExpectSameError({"MirrorPad",
                   "\"mode\":\"REFLECT\"",
                   {{GRT_FLOAT32, {3}, kConst, {1, 2, 3}}, {GRT_INT32, {1, 2}, kConst, {3, 0}}}},
                  GRT_INVALID_ARGUMENT,
                  "paddings must be no greater than the dimension size minus 1");
}

TEST_F(GpuIndexOnnx, Where) {
  for (grt_dtype dt : {GRT_BOOL, GRT_INT8, GRT_INT64, GRT_UINT8})
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{37}, {5, 7}, {3, 4, 5}, {0, 3}, {}})
      CheckAgainstCpu({"Where", T("T", dt), {{dt, shape}}});
  for (grt_dtype dt : kFloats)
    CheckAgainstCpu({"Where", T("T", dt), {{dt, {9, 8}, kEdges}}});  // -0, NaN
  CheckAgainstCpu(
      {"Where", T("T", GRT_BOOL), {{GRT_BOOL, {3000}}}});  // more than one element per thread
}

TEST_F(GpuIndexOnnx, ReverseSequence) {
  for (grt_dtype dt : kFloats)
    for (grt_dtype lt : {GRT_INT32, GRT_INT64}) {
      CheckAgainstCpu({"ReverseSequence",
                       "\"seq_dim\":1,\"batch_dim\":0," + T("Tlen", lt),
                       {{dt, {4, 6, 3}}, {lt, {4}, kConst, {0, 6, 3, 1}}}});
      CheckAgainstCpu({"ReverseSequence",
                       "\"seq_dim\":0,\"batch_dim\":2," + T("Tlen", lt),
                       {{dt, {5, 2, 3}}, {lt, {3}, kConst, {5, 2, 4}}}});
    }
  ExpectSameError(
      {"ReverseSequence",
       "\"seq_dim\":1,\"batch_dim\":0",
       {{GRT_FLOAT32, {2, 3}, kConst, {1, 2, 3, 4, 5, 6}}, {GRT_INT64, {2}, kConst, {1, 4}}}},
      GRT_INVALID_ARGUMENT, "seq_lens(1) > input.dims(1) or negative: 4");
}

TEST_F(GpuIndexOnnx, TopKV2) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32})
    for (int64_t k : {0, 1, 5, 30}) {
      CheckAgainstCpu(
          {"TopKV2", "", {{dt, {4, 30}}, {GRT_INT32, {}, kConst, {k}}}, 2});  // integer ties
      CheckAgainstCpu({"TopKV2",
                       "\"index_type\":\"int64\"",
                       {{dt, {2, 3, 30}}, {GRT_INT32, {}, kConst, {k}}},
                       2});
    }
  for (grt_dtype dt : kFloats)
    CheckAgainstCpu({"TopKV2",
                     "",
                     {{dt, {5, 48}, kEdges}, {GRT_INT32, {}, kConst, {10}}},
                     2});  // NaN, inf, ties
  CheckAgainstCpu({"TopKV2", "", {{GRT_FLOAT32, {0, 6}}, {GRT_INT32, {}, kConst, {2}}}, 2});
  ExpectSameError(
      {"TopKV2", "", {{GRT_FLOAT32, {3}, kConst, {1, 2, 3}}, {GRT_INT32, {}, kConst, {4}}}},
      GRT_INVALID_ARGUMENT, "input must have at least k columns");
}

TEST_F(GpuIndexOnnx, MatrixDeterminant) {
  for (grt_dtype dt : kFloats) {
    CheckAgainstCpu({"MatrixDeterminant", "", {{dt, {3, 4, 4}}}});
    CheckAgainstCpu({"MatrixDeterminant", "", {{dt, {2, 2, 1, 1}}}});
    CheckAgainstCpu({"MatrixDeterminant", "", {{dt, {2, 0, 0}}}});  // empty matrices: 1
    CheckAgainstCpu({"MatrixDeterminant", "", {{dt, {0, 3, 3}}}});  // no matrices
  }
  // Singular (two equal rows): 0.
  CheckAgainstCpu(
      {"MatrixDeterminant", "", {{GRT_FLOAT64, {3, 3}, kConst, {1, 2, 3, 1, 2, 3, 4, 5, 7}}}});
}

}  // namespace
