// The array family's CPU kernels against references computed here with
// plain loops: sources, reshaping, joining and cutting, slicing, tiling,
// transposing, metadata, OneHot and BroadcastGradientArgs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"

namespace grt_test {
namespace {

std::vector<double> Iota(int64_t n, double start = 0) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<double> Values(const grt_tensor* t) {
  std::vector<double> v(grt_tensor_num_elements(t));
  for (size_t i = 0; i < v.size(); i++) v[i] = At(t, static_cast<int64_t>(i));
  return v;
}

const char* Data(const grt_tensor* t) { return static_cast<const char*>(grt_tensor_data(t)); }

// The status's message ("" for OK) and code; frees it.
std::string TakeMessage(grt_status* s, grt_code* code = nullptr) {
  if (code) *code = grt_status_code(s);
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

// ---- sources ---------------------------------------------------------------

TEST(ArrayKernels, ConstSharesItsValue) {
  grt_tensor* v = T_<float>({2, 2}, {1, 2, 3, 4});
  const char* data = Data(v);
  OpRun r("Const");
  r.AttrType("dtype", GRT_FLOAT32).AttrTensor("value", v);
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(Data(r.Output(0)), data);
}

TEST(ArrayKernels, PlaceholderFailsWithTensorFlowsMessage) {
  OpRun r("Placeholder");
  r.AttrType("dtype", GRT_FLOAT32).AttrShape("shape", {-1, 3});
  grt_code code;
  std::string m = TakeMessage(r.Run(), &code);
  EXPECT_EQ(code, GRT_INVALID_ARGUMENT);
  EXPECT_EQ(m,
            "You must feed a value for placeholder tensor 'op' with dtype float32 and shape [?,3]");
}

TEST(ArrayKernels, PlaceholderOfUnknownRankOmitsTheShape) {
  OpRun r("Placeholder");
  r.AttrType("dtype", GRT_INT64);
  std::string m = TakeMessage(r.Run());
  EXPECT_EQ(m, "You must feed a value for placeholder tensor 'op' with dtype int64");
}

TEST(ArrayKernels, IdentityAndStopGradientShareTheInput) {
  for (const char* op : {"Identity", "StopGradient"}) {
    grt_tensor* x = T_<int32_t>({3}, {4, 5, 6});
    const char* data = Data(x);
    OpRun r(op);
    r.AttrType("T", GRT_INT32).Input(x);
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {3}, {4, 5, 6});
    EXPECT_EQ(Data(r.Output(0)), data) << op;
  }
}

TEST(ArrayKernels, NoOpDoesNothing) {
  OpRun r("NoOp");
  ASSERT_OK(r.Run());
  EXPECT_EQ(r.NumOutputs(), 0);
}

TEST(ArrayKernels, ZerosLikeAndOnesLikeForEveryDtype) {
  for (grt_dtype t : {GRT_FLOAT16, GRT_BFLOAT16, GRT_FLOAT32, GRT_FLOAT64, GRT_INT8, GRT_INT16,
                      GRT_INT32, GRT_INT64, GRT_UINT8, GRT_BOOL}) {
    for (const char* op : {"ZerosLike", "OnesLike"}) {
      OpRun r(op);
      r.AttrType("T", t).Input(MakeTensor(t, {2, 3}, {1, 0, 1, 0, 1, 1}));
      ASSERT_OK(r.Run());
      double want = std::strcmp(op, "OnesLike") == 0 ? 1 : 0;
      ExpectNear(r.Output(0), {2, 3}, std::vector<double>(6, want));
      EXPECT_EQ(grt_tensor_dtype(r.Output(0)), t);
    }
  }
}

TEST(ArrayKernels, FillRepeatsTheScalar) {
  OpRun r("Fill");
  r.AttrType("T", GRT_FLOAT64).Input(T_<int32_t>({2}, {2, 3})).Input(T_<double>({}, {2.5}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {2, 3}, std::vector<double>(6, 2.5));
}

TEST(ArrayKernels, FillRejectsNegativeDims) {
  FeedRun r("Fill");
  r.AttrType("T", GRT_FLOAT32).Input(T_<int32_t>({2}, {2, -1})).Input(T_<float>({}, {1}));
  grt_code code;
  std::string m = TakeMessage(r.Run(), &code);
  EXPECT_EQ(code, GRT_INVALID_ARGUMENT);
  EXPECT_NE(m.find("Dimension -1 must be >= 0"), std::string::npos) << m;
}

// ---- reshaping ---------------------------------------------------------------

TEST(ArrayKernels, ReshapeSharesTheBufferAndInfersMinusOne) {
  grt_tensor* x = T_<float>({2, 3}, Iota(6));
  const char* data = Data(x);
  OpRun r("Reshape");
  r.AttrType("T", GRT_FLOAT32).Input(x).Input(T_<int32_t>({2}, {-1, 2}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {3, 2}, Iota(6));
  EXPECT_EQ(Data(r.Output(0)), data);
}

TEST(ArrayKernels, ReshapeElementCountMismatch) {
  auto run = [](grt_tensor* x, grt_tensor* shape, grt_code* code) {
    FeedRun r("Reshape");
    r.AttrType("T", GRT_FLOAT32).Input(x).Input(shape);
    return TakeMessage(r.Run(), code);
  };
  grt_code code;
  EXPECT_EQ(run(T_<float>({2, 3}, Iota(6)), T_<int32_t>({2}, {2, 2}), &code),
            "Input to reshape is a tensor with 6 values, but the requested shape has 4");
  EXPECT_EQ(code, GRT_INVALID_ARGUMENT);
  EXPECT_EQ(run(T_<float>({7}, Iota(7)), T_<int32_t>({2}, {-1, 2}), &code),
            "Input to reshape is a tensor with 7 values, but the requested shape requires a "
            "multiple of 2");
  EXPECT_EQ(run(T_<float>({4}, Iota(4)), T_<int32_t>({2}, {-1, -1}), &code),
            "Only one input size may be -1, not both 0 and 1");
}

TEST(ArrayKernels, ReshapeInfersNextToAZero) {
  FeedRun r("Reshape");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({0, 3}, {})).Input(T_<int32_t>({2}, {-1, 0}));
  ASSERT_OK(r.Run());
  EXPECT_EQ(Dims(r.Output(0)), (std::vector<int64_t>{3, 0}));
}

TEST(ArrayKernels, SqueezeAllOrChosenDims) {
  OpRun all("Squeeze");
  all.AttrType("T", GRT_INT32).Input(T_<int32_t>({1, 2, 1, 3}, Iota(6)));
  ASSERT_OK(all.Run());
  ExpectNear(all.Output(0), {2, 3}, Iota(6));
  OpRun some("Squeeze");
  some.AttrType("T", GRT_INT32)
      .AttrInts("squeeze_dims", {-2})
      .Input(T_<int32_t>({1, 2, 1, 3}, Iota(6)));
  ASSERT_OK(some.Run());
  ExpectNear(some.Output(0), {1, 2, 3}, Iota(6));
}

TEST(ArrayKernels, ExpandDimsAtEachPosition) {
  struct Case {
    int32_t dim;
    std::vector<int64_t> want;
  } cases[] = {{0, {1, 2, 3}}, {1, {2, 1, 3}}, {2, {2, 3, 1}}, {-1, {2, 3, 1}}, {-3, {1, 2, 3}}};
  for (const Case& c : cases) {
    grt_tensor* x = T_<float>({2, 3}, Iota(6));
    const char* data = Data(x);
    OpRun r("ExpandDims");
    r.AttrType("T", GRT_FLOAT32).Input(x).Input(T_<int32_t>({}, {static_cast<double>(c.dim)}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), c.want, Iota(6));
    EXPECT_EQ(Data(r.Output(0)), data);
  }
}

// ---- joining and cutting -------------------------------------------------------

// Concatenation of `parts` (each of dims `shape` but for `axis`) by index math.
std::vector<double> ConcatRef(const std::vector<std::vector<int64_t>>& shapes,
                              const std::vector<std::vector<double>>& parts, int axis) {
  int64_t outer = 1;
  for (int d = 0; d < axis; d++) outer *= shapes[0][d];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; o++)
    for (size_t i = 0; i < parts.size(); i++) {
      int64_t row = Count(shapes[i]) / outer;
      out.insert(out.end(), parts[i].begin() + o * row, parts[i].begin() + (o + 1) * row);
    }
  return out;
}

TEST(ArrayKernels, ConcatThenSplitRoundTripsOnEveryAxis) {
  for (int axis = 0; axis < 3; axis++) {
    std::vector<int64_t> s0 = {2, 3, 4}, s1 = s0, s2 = s0;
    s1[axis] = 1;
    s2[axis] = 3;
    std::vector<double> v0 = Iota(Count(s0)), v1 = Iota(Count(s1), 100), v2 = Iota(Count(s2), 200);
    OpRun c("ConcatV2");
    c.AttrType("T", GRT_FLOAT32).AttrInt("N", 3);
    c.Input(T_<float>(s0, v0)).Input(T_<float>(s1, v1)).Input(T_<float>(s2, v2));
    c.Input(T_<int32_t>({}, {static_cast<double>(axis - 3)}));  // negative axis
    ASSERT_OK(c.Run());
    std::vector<int64_t> out_dims = s0;
    out_dims[axis] = s0[axis] + 1 + 3;
    std::vector<double> want = ConcatRef({s0, s1, s2}, {v0, v1, v2}, axis);
    ExpectNear(c.Output(0), out_dims, want);

    // Split the concatenation back into equal pieces along the same axis.
    int64_t n = out_dims[axis];
    OpRun s("Split");
    s.AttrType("T", GRT_FLOAT32).AttrInt("num_split", n);
    s.Input(T_<int32_t>({}, {static_cast<double>(axis)})).Input(T_<float>(out_dims, want));
    ASSERT_OK(s.Run());
    std::vector<int64_t> piece = out_dims;
    piece[axis] = 1;
    std::vector<std::vector<int64_t>> shapes(n, piece);
    std::vector<std::vector<double>> parts;
    for (int64_t k = 0; k < n; k++) parts.push_back(Values(s.Output(k)));
    EXPECT_EQ(ConcatRef(shapes, parts, axis), want) << "axis " << axis;
    for (int64_t k = 0; k < n; k++) EXPECT_EQ(Dims(s.Output(k)), piece);
  }
}

TEST(ArrayKernels, SplitOnTheFirstAxisSharesAlignedPieces) {
  // 2 x 16 floats: each piece is one 64-byte row, aligned.
  grt_tensor* x = T_<float>({2, 16}, Iota(32));
  const char* data = Data(x);
  OpRun s("Split");
  s.AttrType("T", GRT_FLOAT32).AttrInt("num_split", 2);
  s.Input(T_<int32_t>({}, {0})).Input(x);
  ASSERT_OK(s.Run());
  EXPECT_EQ(Data(s.Output(0)), data);
  EXPECT_EQ(Data(s.Output(1)), data + 64);
  ExpectNear(s.Output(1), {1, 16}, Iota(16, 16));
}

TEST(ArrayKernels, SplitMustDivideTheDimension) {
  FeedRun r("Split");
  r.AttrType("T", GRT_FLOAT32).AttrInt("num_split", 2);
  r.Input(T_<int32_t>({}, {1})).Input(T_<float>({2, 3}, Iota(6)));
  std::string m = TakeMessage(r.Run());
  EXPECT_EQ(m,
            "Number of ways to split should evenly divide the split dimension, but got "
            "split_dim 1 (size = 3) and num_split 2");
}

TEST(ArrayKernels, ConcatRejectsMismatchedDims) {
  FeedRun r("ConcatV2");
  r.AttrType("T", GRT_FLOAT32).AttrInt("N", 2);
  r.Input(T_<float>({2, 3}, Iota(6))).Input(T_<float>({3, 3}, Iota(9))).Input(T_<int32_t>({}, {1}));
  grt_code code;
  std::string m = TakeMessage(r.Run(), &code);
  EXPECT_EQ(code, GRT_INVALID_ARGUMENT);
  EXPECT_EQ(m,
            "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,3] vs. "
            "shape[1] = [3,3]");
}

TEST(ArrayKernels, PackAndUnpackOnEveryAxis) {
  const std::vector<int64_t> s = {2, 3};
  std::vector<std::vector<double>> vals = {Iota(6), Iota(6, 10), Iota(6, 20), Iota(6, 30)};
  for (int axis = -3; axis < 3; axis++) {
    int a = axis < 0 ? axis + 3 : axis;
    OpRun p("Pack");
    p.AttrType("T", GRT_INT64).AttrInt("N", 4).AttrInt("axis", axis);
    for (auto& v : vals) p.Input(T_<int64_t>(s, v));
    ASSERT_OK(p.Run());
    // out[..., k, ...] = vals[k][...]: index math over the output.
    std::vector<int64_t> od = s;
    od.insert(od.begin() + a, 4);
    std::vector<double> want(24);
    for (int64_t i = 0; i < 24; i++) {
      int64_t idx[3] = {i / (od[1] * od[2]), (i / od[2]) % od[1], i % od[2]};
      int64_t k = idx[a], src[2], n = 0;
      for (int d = 0; d < 3; d++)
        if (d != a) src[n++] = idx[d];
      want[i] = vals[k][src[0] * 3 + src[1]];
    }
    ExpectNear(p.Output(0), od, want);

    OpRun u("Unpack");
    u.AttrType("T", GRT_INT64).AttrInt("num", 4).AttrInt("axis", axis);
    u.Input(T_<int64_t>(od, want));
    ASSERT_OK(u.Run());
    for (int k = 0; k < 4; k++) ExpectNear(u.Output(k), s, vals[k]);
  }
}

// ---- slicing --------------------------------------------------------------------

TEST(ArrayKernels, SliceMatchesIndexLoops) {
  std::vector<int64_t> dims = {3, 4, 5};
  OpRun r("Slice");
  r.AttrType("T", GRT_FLOAT32).AttrType("Index", GRT_INT64);
  r.Input(T_<float>(dims, Iota(60)))
      .Input(T_<int64_t>({3}, {1, 0, 2}))
      .Input(T_<int64_t>({3}, {2, -1, 2}));
  ASSERT_OK(r.Run());
  std::vector<double> want;
  for (int i = 1; i < 3; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 2; k < 4; k++) want.push_back(i * 20 + j * 5 + k);
  ExpectNear(r.Output(0), {2, 4, 2}, want);
}

TEST(ArrayKernels, SliceOutOfRange) {
  FeedRun r("Slice");
  r.AttrType("T", GRT_FLOAT32).AttrType("Index", GRT_INT32);
  r.Input(T_<float>({3}, Iota(3))).Input(T_<int32_t>({1}, {1})).Input(T_<int32_t>({1}, {3}));
  grt_code code;
  std::string m = TakeMessage(r.Run(), &code);
  EXPECT_EQ(code, GRT_INVALID_ARGUMENT);
  EXPECT_EQ(m, "Expected size[0] in [0, 2], but got 3");
}

struct SliceSpec {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
};

// Runs StridedSlice on x[2,3,4] = iota.
void RunStrided(const SliceSpec& s, OpRun* r, grt_tensor* x = nullptr) {
  int64_t n = static_cast<int64_t>(s.begin.size());
  auto vec = [](const std::vector<int64_t>& v) { return std::vector<double>(v.begin(), v.end()); };
  r->AttrType("T", GRT_FLOAT32).AttrType("Index", GRT_INT32);
  r->AttrInt("begin_mask", s.begin_mask).AttrInt("end_mask", s.end_mask);
  r->AttrInt("ellipsis_mask", s.ellipsis_mask).AttrInt("new_axis_mask", s.new_axis_mask);
  r->AttrInt("shrink_axis_mask", s.shrink_mask);
  r->Input(x ? x : T_<float>({2, 3, 4}, Iota(24)));
  r->Input(T_<int32_t>({n}, vec(s.begin))).Input(T_<int32_t>({n}, vec(s.end)));
  r->Input(T_<int32_t>({n}, vec(s.strides)));
}

double X(int i, int j, int k) { return i * 12 + j * 4 + k; }

TEST(ArrayKernels, StridedSliceBeginAndEndMasks) {
  // x[:, 1:, 0:2]
  SliceSpec s{{0, 1, 0}, {0, 0, 2}, {1, 1, 1}};
  s.begin_mask = 0b001;
  s.end_mask = 0b011;
  OpRun r("StridedSlice");
  RunStrided(s, &r);
  ASSERT_OK(r.Run());
  std::vector<double> want;
  for (int i = 0; i < 2; i++)
    for (int j = 1; j < 3; j++)
      for (int k = 0; k < 2; k++) want.push_back(X(i, j, k));
  ExpectNear(r.Output(0), {2, 2, 2}, want);
}

TEST(ArrayKernels, StridedSliceNegativeStrides) {
  // x[::-1, 2:0:-1, ::-2]
  SliceSpec s{{0, 2, 0}, {0, 0, 0}, {-1, -1, -2}};
  s.begin_mask = 0b101;
  s.end_mask = 0b101;
  OpRun r("StridedSlice");
  RunStrided(s, &r);
  ASSERT_OK(r.Run());
  std::vector<double> want;
  for (int i = 1; i >= 0; i--)
    for (int j = 2; j > 0; j--)
      for (int k = 3; k >= 0; k -= 2) want.push_back(X(i, j, k));
  ExpectNear(r.Output(0), {2, 2, 2}, want);
}

TEST(ArrayKernels, StridedSliceShrinkAxis) {
  // x[-1, :, 2]
  SliceSpec s{{-1, 0, 2}, {0, 0, 3}, {1, 1, 1}};
  s.begin_mask = s.end_mask = 0b010;
  s.shrink_mask = 0b101;
  OpRun r("StridedSlice");
  RunStrided(s, &r);
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {3}, {X(1, 0, 2), X(1, 1, 2), X(1, 2, 2)});
}

TEST(ArrayKernels, StridedSliceNewAxis) {
  // x[:, tf.newaxis, 1]
  SliceSpec s{{0, 0, 1}, {0, 0, 2}, {1, 1, 1}};
  s.begin_mask = s.end_mask = 0b001;
  s.new_axis_mask = 0b010;
  s.shrink_mask = 0b100;
  OpRun r("StridedSlice");
  RunStrided(s, &r);
  ASSERT_OK(r.Run());
  std::vector<double> want;
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 4; k++) want.push_back(X(i, 1, k));
  ExpectNear(r.Output(0), {2, 1, 4}, want);
}

TEST(ArrayKernels, StridedSliceEllipsis) {
  {  // x[..., 1]
    SliceSpec s{{0, 1}, {0, 2}, {1, 1}};
    s.ellipsis_mask = 0b01;
    s.shrink_mask = 0b10;
    OpRun r("StridedSlice");
    RunStrided(s, &r);
    ASSERT_OK(r.Run());
    std::vector<double> want;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++) want.push_back(X(i, j, 1));
    ExpectNear(r.Output(0), {2, 3}, want);
  }
  {  // x[1, ..., ::-2]
    SliceSpec s{{1, 0, 0}, {2, 0, 0}, {1, 1, -2}};
    s.ellipsis_mask = 0b010;
    s.begin_mask = s.end_mask = 0b100;
    s.shrink_mask = 0b001;
    OpRun r("StridedSlice");
    RunStrided(s, &r);
    ASSERT_OK(r.Run());
    std::vector<double> want;
    for (int j = 0; j < 3; j++)
      for (int k = 3; k >= 0; k -= 2) want.push_back(X(1, j, k));
    ExpectNear(r.Output(0), {3, 2}, want);
  }
}

TEST(ArrayKernels, StridedSliceClampsOutOfRangeIndices) {
  // x[:, -10:10, 1:100:3]
  SliceSpec s{{0, -10, 1}, {0, 10, 100}, {1, 1, 3}};
  s.begin_mask = s.end_mask = 0b001;
  OpRun r("StridedSlice");
  RunStrided(s, &r);
  ASSERT_OK(r.Run());
  std::vector<double> want;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) want.push_back(X(i, j, 1));
  ExpectNear(r.Output(0), {2, 3, 1}, want);
}

TEST(ArrayKernels, StridedSliceSharesIdentityAndAlignedRows) {
  grt_tensor* x = T_<float>({2, 3, 4}, Iota(24));
  const char* data = Data(x);
  SliceSpec all{{0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
  all.begin_mask = all.end_mask = 0b111;
  OpRun r("StridedSlice");
  RunStrided(all, &r, x);
  ASSERT_OK(r.Run());
  EXPECT_EQ(Data(r.Output(0)), data);

  grt_tensor* y = T_<float>({4, 16}, Iota(64));  // rows of 64 bytes
  const char* ydata = Data(y);
  SliceSpec rows{{1}, {3}, {1}};
  OpRun r2("StridedSlice");
  r2.AttrType("T", GRT_FLOAT32).AttrType("Index", GRT_INT32);
  r2.Input(y)
      .Input(T_<int32_t>({1}, {1}))
      .Input(T_<int32_t>({1}, {3}))
      .Input(T_<int32_t>({1}, {1}));
  ASSERT_OK(r2.Run());
  EXPECT_EQ(Data(r2.Output(0)), ydata + 64);
  ExpectNear(r2.Output(0), {2, 16}, Iota(32, 16));
}

TEST(ArrayKernels, StridedSliceIndexOutOfBounds) {
  FeedRun r("StridedSlice");
  r.AttrType("T", GRT_FLOAT32).AttrType("Index", GRT_INT32).AttrInt("shrink_axis_mask", 1);
  r.Input(T_<float>({3}, Iota(3))).Input(T_<int32_t>({1}, {5})).Input(T_<int32_t>({1}, {6}));
  r.Input(T_<int32_t>({1}, {1}));
  grt_code code;
  std::string m = TakeMessage(r.Run(), &code);
  EXPECT_EQ(code, GRT_INVALID_ARGUMENT);
  EXPECT_EQ(m, "slice index 5 of dimension 0 out of bounds.");
}

// ---- tiling and transposing -------------------------------------------------------

TEST(ArrayKernels, TileMatchesModuloIndexing) {
  std::vector<int64_t> in = {2, 1, 3}, mult = {2, 3, 2};
  OpRun r("Tile");
  r.AttrType("T", GRT_INT16).Input(T_<int16_t>(in, Iota(6)));
  r.Input(T_<int32_t>({3}, std::vector<double>(mult.begin(), mult.end())));
  ASSERT_OK(r.Run());
  std::vector<int64_t> od = {4, 3, 6};
  std::vector<double> want;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 6; k++) want.push_back((i % 2) * 3 + (k % 3));
  ExpectNear(r.Output(0), od, want);
}

// Reference transpose by index decomposition.
std::vector<double> TransposeRef(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
                                 const std::vector<double>& in) {
  size_t r = dims.size();
  std::vector<int64_t> od(r), in_strides(r, 1);
  for (size_t i = 0; i < r; i++) od[i] = dims[perm[i]];
  for (int i = static_cast<int>(r) - 2; i >= 0; i--)
    in_strides[i] = in_strides[i + 1] * dims[i + 1];
  std::vector<double> out(in.size());
  for (size_t o = 0; o < out.size(); o++) {
    int64_t rem = static_cast<int64_t>(o), src = 0;
    for (int d = static_cast<int>(r) - 1; d >= 0; d--) {
      src += (rem % od[d]) * in_strides[perm[d]];
      rem /= od[d];
    }
    out[o] = in[src];
  }
  return out;
}

void CheckTranspose(grt_dtype t, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
                    grt_threadpool* pool) {
  std::vector<double> in = Iota(Count(dims));
  for (double& v : in) v = std::fmod(v, 100);  // fits int8/uint8/half exactly
  FeedRun r("Transpose");
  r.AttrType("T", t).AttrType("Tperm", GRT_INT64).Input(MakeTensor(t, dims, in));
  r.Input(T_<int64_t>({static_cast<int64_t>(perm.size())},
                      std::vector<double>(perm.begin(), perm.end())));
  ASSERT_OK(r.Run(pool));
  std::vector<int64_t> od;
  for (int64_t p : perm) od.push_back(dims[p]);
  ExpectNear(r.Output(0), od, TransposeRef(dims, perm, in));
}

TEST(ArrayKernels, TransposeEveryPermOfRank3AndDtypeSizes) {
  std::vector<int64_t> perm = {0, 1, 2};
  do {
    for (grt_dtype t : {GRT_UINT8, GRT_FLOAT16, GRT_FLOAT32, GRT_INT64})
      CheckTranspose(t, {3, 5, 7}, perm, nullptr);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(ArrayKernels, TransposeFastPathsAndGeneralCase) {
  CheckTranspose(GRT_FLOAT32, {67, 45}, {1, 0}, nullptr);             // 2-D tiles, partial edges
  CheckTranspose(GRT_FLOAT32, {300, 257}, {1, 0}, TestPool());        // split over threads
  CheckTranspose(GRT_FLOAT64, {5, 33, 40}, {0, 2, 1}, TestPool());    // batch of 2-D
  CheckTranspose(GRT_INT32, {2, 3, 4, 5}, {3, 1, 0, 2}, TestPool());  // gather
  CheckTranspose(GRT_INT32, {2, 3, 4, 5}, {0, 2, 3, 1}, nullptr);     // merges to [0,2,1]
  CheckTranspose(GRT_INT8, {4, 1, 6, 1}, {3, 2, 1, 0}, nullptr);      // size-1 dims dropped
  // NCHW to NHWC with 3 channels: rows of 2500 columns cut into strips of
  // 1024 (a partial last one), over threads and inline.
  CheckTranspose(GRT_FLOAT32, {2, 3, 50, 50}, {0, 2, 3, 1}, TestPool());
  CheckTranspose(GRT_FLOAT32, {1, 37, 41, 53}, {0, 2, 3, 1}, nullptr);
}

TEST(ArrayKernels, TransposeThatKeepsOrderSharesTheInput) {
  grt_tensor* x = T_<float>({1, 4, 1, 3}, Iota(12));
  const char* data = Data(x);
  OpRun r("Transpose");
  r.AttrType("T", GRT_FLOAT32).Input(x).Input(T_<int32_t>({4}, {2, 1, 0, 3}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {1, 4, 1, 3}, Iota(12));
  EXPECT_EQ(Data(r.Output(0)), data);
}

TEST(ArrayKernels, TransposeRejectsABadPermutation) {
  FeedRun r("Transpose");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 2}, Iota(4))).Input(T_<int32_t>({2}, {1, 1}));
  std::string m = TakeMessage(r.Run());
  EXPECT_EQ(m, "0 is missing from {1,1}.");
}

TEST(ArrayKernels, GatherSplitOverThreadsMatchesInline) {
  // A large strided slice through the pool and inline give the same bytes.
  std::vector<int64_t> dims = {64, 70, 33};
  std::vector<double> got[2];
  for (int i = 0; i < 2; i++) {
    FeedRun r("StridedSlice");
    r.AttrType("T", GRT_FLOAT32).AttrType("Index", GRT_INT32);
    r.Input(T_<float>(dims, Iota(Count(dims)))).Input(T_<int32_t>({3}, {63, 1, 2}));
    r.Input(T_<int32_t>({3}, {0, 69, 30})).Input(T_<int32_t>({3}, {-1, 2, 3}));
    ASSERT_OK(r.Run(i == 0 ? TestPool() : nullptr));
    EXPECT_EQ(Dims(r.Output(0)), (std::vector<int64_t>{63, 34, 10}));
    got[i] = Values(r.Output(0));
  }
  EXPECT_EQ(got[0], got[1]);
  EXPECT_EQ(got[0][0], 63 * 70 * 33 + 1 * 33 + 2);
  EXPECT_EQ(got[0].back(), 1 * 70 * 33 + 67 * 33 + 29);
}

// ---- metadata, OneHot, BroadcastGradientArgs -------------------------------------------

TEST(ArrayKernels, ShapeSizeRank) {
  OpRun shape("Shape");
  shape.AttrType("T", GRT_FLOAT32).AttrType("out_type", GRT_INT64).Input(T_<float>({2, 0, 3}, {}));
  ASSERT_OK(shape.Run());
  ExpectNear(shape.Output(0), {3}, {2, 0, 3});
  EXPECT_EQ(grt_tensor_dtype(shape.Output(0)), GRT_INT64);
  OpRun size("Size");
  size.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 5}, {0}));
  ASSERT_OK(size.Run());
  ExpectNear(size.Output(0), {}, {10});
  EXPECT_EQ(grt_tensor_dtype(size.Output(0)), GRT_INT32);
  OpRun rank("Rank");
  rank.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 5, 1}, {0}));
  ASSERT_OK(rank.Run());
  ExpectNear(rank.Output(0), {}, {3});
}

TEST(ArrayKernels, OneHotOnLastAndFirstAxis) {
  std::vector<double> idx = {0, 2, -1, 1};
  for (int64_t axis : {-1, 0}) {
    OpRun r("OneHot");
    r.AttrType("T", GRT_FLOAT32).AttrType("TI", GRT_INT32).AttrInt("axis", axis);
    r.Input(T_<int32_t>({4}, idx)).Input(T_<int32_t>({}, {3}));
    r.Input(T_<float>({}, {5})).Input(T_<float>({}, {-1}));
    ASSERT_OK(r.Run());
    std::vector<double> want;
    if (axis == -1) {
      for (double i : idx)
        for (int d = 0; d < 3; d++) want.push_back(i == d ? 5 : -1);
      ExpectNear(r.Output(0), {4, 3}, want);
    } else {
      for (int d = 0; d < 3; d++)
        for (double i : idx) want.push_back(i == d ? 5 : -1);
      ExpectNear(r.Output(0), {3, 4}, want);
    }
  }
}

void CheckBcastArgs(const std::vector<double>& s0, const std::vector<double>& s1,
                    const std::vector<double>& r0, const std::vector<double>& r1) {
  OpRun r("BroadcastGradientArgs");
  r.AttrType("T", GRT_INT32);
  r.Input(T_<int32_t>({static_cast<int64_t>(s0.size())}, s0));
  r.Input(T_<int32_t>({static_cast<int64_t>(s1.size())}, s1));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {static_cast<int64_t>(r0.size())}, r0);
  ExpectNear(r.Output(1), {static_cast<int64_t>(r1.size())}, r1);
}

TEST(ArrayKernels, BroadcastGradientArgs) {
  CheckBcastArgs({2, 3}, {3}, {}, {0});
  CheckBcastArgs({2, 1, 3}, {4, 1}, {1}, {0, 2});
  CheckBcastArgs({2, 1}, {2, 1}, {}, {});  // equal shapes reduce over nothing
  CheckBcastArgs({1}, {1, 1}, {0, 1}, {0, 1});
  FeedRun r("BroadcastGradientArgs");
  r.AttrType("T", GRT_INT32).Input(T_<int32_t>({2}, {2, 3})).Input(T_<int32_t>({1}, {4}));
  std::string m = TakeMessage(r.Run());
  EXPECT_EQ(m, "Incompatible shapes: [2,3] vs. [4]");
}

}  // namespace
}  // namespace grt_test
