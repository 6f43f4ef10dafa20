// The GPU suite, continued: the kernels added after the first set — the
// array ops that move elements, the shape ops, Cast, comparisons, Select,
// AddN, Pow, ArgMax, Prod, OneHot, and the variables with the optimizers —
// each against the CPU kernel on fresh random inputs. int32 cases run the
// rows whose arguments live in host memory.
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs the graphs and
// comparisons on the CPU only.
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuOps : public GpuSuite {};

const grt_dtype kMoved[] = {GRT_FLOAT32, GRT_INT64, GRT_INT32, GRT_BOOL};

std::string TypeAttr(grt_dtype dt) { return "\"T\":\"" + DtypeName(dt) + "\""; }

TEST_F(GpuOps, TransposeTileSlice) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32, GRT_BOOL}) {
    CheckAgainstCpu({"Transpose", "", {{dt, {3, 4, 5}}, {GRT_INT32, {3}, kConst, {2, 0, 1}}}});
    CheckAgainstCpu({"Transpose", "", {{dt, {7, 9}}, {GRT_INT32, {2}, kConst, {1, 0}}}});
    CheckAgainstCpu({"Tile", "", {{dt, {2, 3}}, {GRT_INT32, {2}, kConst, {3, 2}}}});
  }
  for (grt_dtype dt : kMoved) {
    CheckAgainstCpu({"Slice",
                     "",
                     {{dt, {5, 6, 7}},
                      {GRT_INT32, {3}, kConst, {1, 0, 2}},
                      {GRT_INT32, {3}, kConst, {3, -1, 4}}}});
    CheckAgainstCpu({"Slice",
                     "",
                     {{dt, {4, 4}},
                      {GRT_INT32, {2}, kConst, {2, 1}},
                      {GRT_INT32, {2}, kConst, {0, 3}}}});  // empty
  }
}

// x[1:4, ::-2], x[..., 1], x[:, tf.newaxis, -1:], x[-1], and masks.
TEST_F(GpuOps, StridedSlice) {
  struct Spec {
    std::vector<int64_t> b, e, s;
    std::string masks;
  };
  const std::vector<Spec> specs = {
      {{1, 0}, {4, 0}, {1, -2}, "\"end_mask\":2"},
      {{0, 1}, {0, 2}, {1, 1}, "\"ellipsis_mask\":1,\"shrink_axis_mask\":2"},
      {{0, 0, -1}, {0, 0, 0}, {1, 1, 1}, "\"begin_mask\":1,\"end_mask\":5,\"new_axis_mask\":2"},
      {{-1}, {0}, {1}, "\"shrink_axis_mask\":1"},
      {{5, 2, 1}, {0, -1, 6}, {-1, 1, 2}, ""},
      {{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, "\"begin_mask\":7,\"end_mask\":7"},  // identity
  };
  for (grt_dtype dt : kMoved)
    for (const Spec& sp : specs) {
      int64_t n = (int64_t)sp.b.size();
      CheckAgainstCpu({"StridedSlice",
                       sp.masks.empty() ? TypeAttr(dt) : sp.masks + "," + TypeAttr(dt),
                       {{dt, {6, 5, 7}},
                        {GRT_INT32, {n}, kConst, sp.b},
                        {GRT_INT32, {n}, kConst, sp.e},
                        {GRT_INT32, {n}, kConst, sp.s}}});
    }
}

TEST_F(GpuOps, JoinsAndSplits) {
  for (grt_dtype dt : kMoved) {
    for (int64_t axis : {0, 1, -1})
      CheckAgainstCpu(
          {"ConcatV2",
           "\"N\":3," + TypeAttr(dt),
           {{dt, {2, 3, 4}}, {dt, {2, 3, 4}}, {dt, {2, 3, 4}}, {GRT_INT32, {}, kConst, {axis}}}});
    CheckAgainstCpu({"ConcatV2",
                     "\"N\":2," + TypeAttr(dt),
                     {{dt, {2, 1, 4}}, {dt, {2, 5, 4}}, {GRT_INT32, {}, kConst, {1}}}});
    for (int64_t axis : {0, 1, 2})
      CheckAgainstCpu({"Pack",
                       "\"N\":3,\"axis\":" + std::to_string(axis) + "," + TypeAttr(dt),
                       {{dt, {3, 4}}, {dt, {3, 4}}, {dt, {3, 4}}}});
    for (int64_t axis : {0, 1, -1})
      CheckAgainstCpu({"Unpack",
                       "\"num\":3,\"axis\":" + std::to_string(axis) + "," + TypeAttr(dt),
                       {{dt, axis == 0   ? std::vector<int64_t>{3, 4, 5}
                             : axis == 1 ? std::vector<int64_t>{4, 3, 5}
                                         : std::vector<int64_t>{4, 5, 3}}},
                       3});
    for (int64_t axis : {0, 1, -1})
      CheckAgainstCpu({"Split",
                       "\"num_split\":2," + TypeAttr(dt),
                       {{GRT_INT32, {}, kConst, {axis}}, {dt, {4, 6, 2}}},
                       2});
  }
}

TEST_F(GpuOps, FillOnesLikeSqueezeAndShapes) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32})
    CheckAgainstCpu({"Fill", "", {{GRT_INT32, {3}, kConst, {2, 3, 4}}, {dt, {}}}});
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32, GRT_BOOL}) {
    CheckAgainstCpu({"OnesLike", "", {{dt, {3, 5}}}});
    CheckAgainstCpu({"Squeeze", "\"squeeze_dims\":[0,2]", {{dt, {1, 4, 1, 3}}}});
    CheckAgainstCpu({"Squeeze", "", {{dt, {1, 4, 1, 3, 1}}}});
  }
  for (grt_dtype dt : {GRT_FLOAT32, GRT_INT32}) {
    CheckAgainstCpu({"Shape", "", {{dt, {2, 3, 4}}}});
    CheckAgainstCpu({"Shape", "\"out_type\":\"int64\"", {{dt, {2, 3, 4}}}});
    CheckAgainstCpu({"Size", "", {{dt, {2, 3, 4}}}});
    CheckAgainstCpu({"Rank", "", {{dt, {2, 3, 4}}}});
  }
  CheckAgainstCpu({"BroadcastGradientArgs",
                   "",
                   {{GRT_INT32, {3}, kConst, {2, 3, 4}}, {GRT_INT32, {2}, kConst, {1, 4}}},
                   2});
  CheckAgainstCpu({"BroadcastGradientArgs",
                   "\"T\":\"int64\"",
                   {{GRT_INT64, {2}, kConst, {5, 1}}, {GRT_INT64, {3}, kConst, {2, 1, 6}}},
                   2});
}

TEST_F(GpuOps, Cast) {
  const std::vector<std::pair<grt_dtype, grt_dtype>> pairs = {
      {GRT_FLOAT32, GRT_FLOAT64}, {GRT_FLOAT64, GRT_FLOAT32}, {GRT_FLOAT32, GRT_INT32},
      {GRT_FLOAT32, GRT_INT64},   {GRT_INT64, GRT_FLOAT32},   {GRT_INT32, GRT_FLOAT64},
      {GRT_BOOL, GRT_FLOAT32},    {GRT_FLOAT32, GRT_BOOL},    {GRT_INT64, GRT_INT32},
      {GRT_INT32, GRT_INT64},     {GRT_INT8, GRT_FLOAT32},    {GRT_INT16, GRT_INT64},
      {GRT_UINT8, GRT_FLOAT32},   {GRT_INT64, GRT_BOOL}};
  for (auto& p : pairs)
    CheckAgainstCpu(
        {"Cast",
         "\"SrcT\":\"" + DtypeName(p.first) + "\",\"DstT\":\"" + DtypeName(p.second) + "\"",
         {{p.first, {6, 7}}}});
}

TEST_F(GpuOps, ComparisonsAndLogicalNot) {
  for (const char* op : {"Less", "Greater", "GreaterEqual", "Equal"})
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32, GRT_INT8, GRT_UINT8}) {
      CheckAgainstCpu({op, "", {{dt, {4, 5}}, {dt, {4, 5}}}});
      CheckAgainstCpu({op, "", {{dt, {3, 1, 5}}, {dt, {4, 1}}}});
    }
  CheckAgainstCpu({"Equal", "", {{GRT_BOOL, {4, 5}}, {GRT_BOOL, {5}}}});
  CheckAgainstCpu({"LogicalNot", "", {{GRT_BOOL, {33}}}});
}

TEST_F(GpuOps, SelectAddNPow) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32, GRT_BOOL}) {
    CheckAgainstCpu({"Select", "", {{GRT_BOOL, {4, 5}}, {dt, {4, 5}}, {dt, {4, 5}}}});
    CheckAgainstCpu({"Select", "", {{GRT_BOOL, {4}}, {dt, {4, 5}}, {dt, {4, 5}}}});
    CheckAgainstCpu({"Select", "", {{GRT_BOOL, {}}, {dt, {4, 5}}, {dt, {4, 5}}}});
  }
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32}) {
    for (int n : {1, 3, 11}) {  // 11: more than one chunk of inputs
      Case c{"AddN", "\"N\":" + std::to_string(n) + "," + TypeAttr(dt), {}};
      for (int k = 0; k < n; k++) c.in.push_back({dt, {5, 7}});
      CheckAgainstCpu(c);
    }
  }
  for (grt_dtype dt : kFloats) {
    CheckAgainstCpu({"Pow", "", {{dt, {6, 5}, kPositive}, {dt, {6, 5}}}});
    CheckAgainstCpu({"Pow", "", {{dt, {6, 5}, kPositive}, {dt, {5}}}});
  }
  CheckAgainstCpu({"Pow", "", {{GRT_INT64, {6, 5}}, {GRT_INT64, {6, 5}, kLabels, {4}}}});
}

TEST_F(GpuOps, ArgMaxProdOneHot) {
  for (grt_dtype dt : kFloats)
    for (int64_t axis : {0, 1, -1})
      for (const char* out : {"int32", "int64"})
        CheckAgainstCpu({"ArgMax",
                         std::string("\"output_type\":\"") + out + "\"",
                         {{dt, {6, 7, 8}}, {GRT_INT32, {}, kConst, {axis}}}});
  for (grt_dtype dt : kFloats)
    for (bool keep : {false, true})
      CheckAgainstCpu({"Prod",
                       std::string("\"keep_dims\":") + (keep ? "true" : "false"),
                       {{dt, {6, 7, 8}}, {GRT_INT32, {2}, kConst, {0, 2}}}});
  CheckAgainstCpu({"Prod", "", {{GRT_INT64, {6, 7}}, {GRT_INT32, {1}, kConst, {1}}}});
  CheckAgainstCpu({"Prod", "", {{GRT_INT32, {6, 7}}, {GRT_INT32, {1}, kConst, {0}}}});
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT64, GRT_INT32})
    for (grt_dtype it : {GRT_INT32, GRT_INT64})
      for (int64_t axis : {-1, 0, 1})
        CheckAgainstCpu({"OneHot",
                         "\"axis\":" + std::to_string(axis) + ",\"TI\":\"" + DtypeName(it) + "\"",
                         {{it, {4, 3}, kLabels, {7}},  // some labels past depth 5: all off
                          {GRT_INT32, {}, kConst, {5}},
                          {dt, {}, kConst, {3}},
                          {dt, {}, kConst, {-1}}}});
}

// ---- variables and the optimizers ----------------------------------------------

// One optimizer step graph: variables (and slots) on `device`, initialised
// from fed values, then `steps` runs of the update; the variables' values
// come back. Scalars are CPU Consts the executor copies over.
struct VarCase {
  std::string op;
  std::string attrs;
  std::vector<std::string> refs;  // the variable, then its slots
  std::vector<double> scalars;    // in input order, between refs and grad (Adam) or around it
  std::string inputs;             // the op's inputs, in TensorFlow's order
};

std::string Number(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::vector<grt_tensor*> RunSteps(const VarCase& vc, grt_dtype dt,
                                  const std::vector<int64_t>& shape, const std::string& device,
                                  const std::vector<grt_tensor*>& init, grt_tensor* grad,
                                  int steps) {
  std::string t = DtypeName(dt);
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[)";
  std::vector<std::string> targets;
  for (const char* op : {"VariableV2", "Assign"}) GpuSuiteRanOps().insert(op);
  GpuSuiteRanOps().insert(vc.op);
  for (size_t r = 0; r < vc.refs.size(); r++) {
    const std::string& v = vc.refs[r];
    j += R"({"name":")" + v + R"(","op":"VariableV2","device":")" + device +
         R"(","attrs":{"dtype":")" + t + R"(","shape":)" + ShapeJson(shape) + "}},";
    j += R"({"name":"init_)" + v + R"(","op":"Placeholder","device":"/cpu:0","attrs":{"dtype":")" +
         t + R"(","shape":)" + ShapeJson(shape) + "}},";
    j += R"({"name":"assign_)" + v + R"(","op":"Assign","inputs":[")" + v + R"(","init_)" + v +
         R"("],"device":")" + device + "\"},";
    targets.push_back("assign_" + v);
  }
  for (size_t k = 0; k < vc.scalars.size(); k++)
    j += R"({"name":"s)" + std::to_string(k) +
         R"(","op":"Const","device":"/cpu:0","attrs":{"dtype":")" + t + R"(","value":{"dtype":")" +
         t + R"(","shape":[],"values":[)" + Number(vc.scalars[k]) + "]}}},";
  j += R"({"name":"grad","op":"Placeholder","device":"/cpu:0","attrs":{"dtype":")" + t +
       R"(","shape":)" + ShapeJson(shape) + "}},";
  j += R"({"name":"step","op":")" + vc.op + R"(","inputs":[)" + vc.inputs + R"(],"device":")" +
       device + R"(","attrs":{)" + vc.attrs + "}}]}";
  std::vector<grt_tensor*> out(vc.refs.size(), nullptr);
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(j.c_str(), j.size(), &g);
  EXPECT_EQ(st, nullptr) << grt_status_message(st) << "\n" << j;
  if (st) {
    grt_status_free(st);
    return out;
  }
  grt_session* s = nullptr;
  EXPECT_EQ((st = NewSession(g, &s)), nullptr) << grt_status_message(st);
  std::vector<std::string> names;
  for (auto& v : vc.refs) names.push_back("init_" + v);
  std::vector<grt_feed> feeds;
  for (size_t r = 0; r < vc.refs.size(); r++) feeds.push_back({names[r].c_str(), init[r]});
  std::vector<const char*> tg;
  for (auto& x : targets) tg.push_back(x.c_str());
  st = grt_session_run(s, feeds.data(), (int32_t)feeds.size(), nullptr, 0, tg.data(),
                       (int32_t)tg.size(), nullptr, nullptr);
  EXPECT_EQ(st, nullptr) << vc.op << " init on " << device << ": " << grt_status_message(st);
  grt_status_free(st);
  grt_feed gf = {"grad", grad};
  const char* step = "step";
  for (int i = 0; i < steps; i++) {
    st = grt_session_run(s, &gf, 1, nullptr, 0, &step, 1, nullptr, nullptr);
    EXPECT_EQ(st, nullptr) << vc.op << " on " << device << ": " << grt_status_message(st);
    grt_status_free(st);
  }
  std::vector<const char*> fetches;
  for (auto& v : vc.refs) fetches.push_back(v.c_str());
  st = grt_session_run(s, nullptr, 0, fetches.data(), (int32_t)fetches.size(), nullptr, 0,
                       out.data(), nullptr);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  for (auto& o : out) o = Detach(o);
  grt_session_free(s);
  grt_graph_free(g);
  return out;
}

void CheckVarCase(const VarCase& vc, grt_dtype dt) {
  SCOPED_TRACE(vc.op + " " + DtypeName(dt));
  std::vector<int64_t> shape = {17, 9};
  std::vector<grt_tensor*> init;
  for (size_t r = 0; r < vc.refs.size(); r++)  // second moments must not be negative
    init.push_back(Random({dt, shape, r == 2 ? kPositive : kRandom}));
  grt_tensor* grad = Random({dt, shape});
  auto gpu = RunSteps(vc, dt, shape, Dry() ? "/cpu:0" : "/device:GPU:0", init, grad, 3);
  auto cpu = RunSteps(vc, dt, shape, "/cpu:0", init, grad, 3);
  // float16/bfloat16: both update in float32 and round the references once
  // per step; the GPU's fused multiply-adds may move a rounding by an ulp.
  double tol = dt == GRT_FLOAT32    ? 1e-5
               : dt == GRT_FLOAT64  ? 1e-12
               : dt == GRT_FLOAT16  ? 1e-3
               : dt == GRT_BFLOAT16 ? 8e-3
                                    : 0;
  for (size_t r = 0; r < vc.refs.size(); r++) {
    ASSERT_NE(gpu[r], nullptr);
    ASSERT_NE(cpu[r], nullptr);
    double err = 0, norm = 0;
    for (int64_t i = 0; i < grt_tensor_num_elements(cpu[r]); i++) {
      double a = At(gpu[r], i), b = At(cpu[r], i);
      err += (a - b) * (a - b);
      norm += b * b;
    }
    EXPECT_LE(std::sqrt(err), tol * std::sqrt(norm) + (tol ? 1e-30 : 0)) << vc.refs[r];
  }
  for (auto* t : init) grt_tensor_free(t);
  for (auto* t : gpu) grt_tensor_free(t);
  for (auto* t : cpu) grt_tensor_free(t);
  grt_tensor_free(grad);
}

// Every dtype each op's GPU rows allow (float16 and bfloat16 in float32
// arithmetic; int64 for AssignAdd/AssignSub).
TEST_F(GpuOps, VariablesAndOptimizers) {
  for (grt_dtype dt : RowDtypes("AssignAdd", "T"))
    CheckVarCase({"AssignAdd", "", {"v"}, {}, R"("v","grad")"}, dt);
  for (grt_dtype dt : RowDtypes("AssignSub", "T"))
    CheckVarCase({"AssignSub", "\"use_locking\":true", {"v"}, {}, R"("v","grad")"}, dt);
  for (grt_dtype dt : RowDtypes("ApplyGradientDescent", "T"))
    CheckVarCase({"ApplyGradientDescent", "", {"v"}, {0.1}, R"("v","s0","grad")"}, dt);
  for (const char* nesterov : {"false", "true"}) {
    for (grt_dtype dt : RowDtypes("ApplyMomentum", "T"))
      CheckVarCase({"ApplyMomentum",
                    std::string("\"use_nesterov\":") + nesterov,
                    {"v", "accum"},
                    {0.05, 0.9},
                    R"("v","accum","s0","grad","s1")"},
                   dt);
    for (grt_dtype dt : RowDtypes("ApplyAdam", "T"))
      CheckVarCase({"ApplyAdam",
                    std::string("\"use_nesterov\":") + nesterov + ",\"use_locking\":true",
                    {"v", "m", "vv"},
                    {0.9, 0.999, 0.01, 0.9, 0.999, 1e-7},
                    R"("v","m","vv","s0","s1","s2","s3","s4","s5","grad")"},
                   dt);
  }
}

// The sequence models' fusions (backends/cuda/seq_fused.cu): layer norms
// over the last dim and over the last two, rows of one element, of fewer
// elements than a warp and of a ViT's width; GELU in both forms on values
// of either sign.
TEST_F(GpuOps, LayerNormAndGelu) {
  struct {
    std::vector<int64_t> x;
    int64_t axis, n;
  } norms[] = {{{7, 33}, -1, 33}, {{3, 5, 8}, 1, 40}, {{4, 1}, -1, 1}, {{5, 768}, -1, 768}};
  for (auto& c : norms) {
    SCOPED_TRACE("_LayerNorm over " + std::to_string(c.n) + " elements");
    CheckAgainstCpu({"_LayerNorm",
                     R"("begin_norm_axis":)" + std::to_string(c.axis) + R"(,"epsilon":1e-5)",
                     {{GRT_FLOAT32, c.x}, {GRT_FLOAT32, {c.n}}, {GRT_FLOAT32, {c.n}}}});
  }
  for (const char* approximate : {"false", "true"})
    CheckAgainstCpu(
        {"_Gelu", std::string(R"("approximate":)") + approximate, {{GRT_FLOAT32, {9, 37}}}});
}

// A variable of every dtype its GPU row allows, both variable ops, set
// from a Placeholder on the GPU by an Assign there and read back after a
// NoOp that waits on the Assign: the bytes must come back unchanged.
TEST_F(GpuOps, VariablesOfEveryDtype) {
  const std::string dev = Dry() ? "/cpu:0" : "/device:GPU:0";
  for (const char* var_op : {"VariableV2", "Variable"})
    for (grt_dtype dt : RowDtypes(var_op, "dtype")) {
      SCOPED_TRACE(std::string(var_op) + " " + DtypeName(dt));
      for (const char* op : {var_op, "Placeholder", "Assign", "NoOp"}) GpuSuiteRanOps().insert(op);
      const std::string t = DtypeName(dt), shape = "[5,3]";
      std::string j = R"({"format":"grt.graph","version":1,"nodes":[)";
      j += R"({"name":"v","op":")" + std::string(var_op) + R"(","device":")" + dev +
           R"(","attrs":{"dtype":")" + t + R"(","shape":)" + shape + "}},";
      j += R"({"name":"x","op":"Placeholder","device":")" + dev + R"(","attrs":{"dtype":")" + t +
           R"(","shape":)" + shape + "}},";
      j += R"({"name":"a","op":"Assign","inputs":["v","x"],"device":")" + dev + "\"},";
      j += R"({"name":"done","op":"NoOp","inputs":["^a"],"device":")" + dev + "\"}]}";
      grt_graph* g = nullptr;
      grt_status* st = grt_graph_from_json(j.c_str(), j.size(), &g);
      ASSERT_EQ(st, nullptr) << grt_status_message(st) << "\n" << j;
      grt_session* s = nullptr;
      ASSERT_EQ((st = NewSession(g, &s)), nullptr) << grt_status_message(st);
      grt_tensor* x = Random({dt, {5, 3}});
      grt_feed f = {"x", x};
      const char* done = "done";
      st = grt_session_run(s, &f, 1, nullptr, 0, &done, 1, nullptr, nullptr);
      EXPECT_EQ(st, nullptr) << grt_status_message(st);
      grt_status_free(st);
      const char* v = "v";
      grt_tensor* out = nullptr;
      st = grt_session_run(s, nullptr, 0, &v, 1, nullptr, 0, &out, nullptr);
      EXPECT_EQ(st, nullptr) << grt_status_message(st);
      grt_status_free(st);
      out = Detach(out);
      ASSERT_NE(out, nullptr);
      ASSERT_EQ(grt_tensor_dtype(out), dt);
      ASSERT_EQ(grt_tensor_byte_size(out), grt_tensor_byte_size(x));
      EXPECT_EQ(memcmp(grt_tensor_data(out), grt_tensor_data(x), grt_tensor_byte_size(x)), 0);
      grt_tensor_free(out);
      grt_tensor_free(x);
      grt_session_free(s);
      grt_graph_free(g);
    }
}

}  // namespace

// ---- the convolution family ------------------------------------------------------

namespace conv {

struct Conv {
  bool nchw;
  int64_t n, h, w, c;       // input
  int64_t kh, kw, fic, oc;  // filter (HWIO); depthwise: fic = c, oc = multiplier
  int64_t stride, dilation;
  std::string padding;  // VALID, SAME or EXPLICIT (pads 1, 2, 0, 1)
  bool depthwise;
};

const int64_t kPads[4] = {1, 2, 0, 1};

std::vector<int64_t> Dims(bool nchw, int64_t n, int64_t c, int64_t h, int64_t w) {
  return nchw ? std::vector<int64_t>{n, c, h, w} : std::vector<int64_t>{n, h, w, c};
}

int64_t OutSize(const Conv& v, int d, int64_t in, int64_t k) {
  int64_t eff = (k - 1) * v.dilation + 1, s = v.stride;
  if (v.padding == "VALID") return (in - eff + s) / s;
  if (v.padding == "SAME") return (in + s - 1) / s;
  return (in + kPads[2 * d] + kPads[2 * d + 1] - eff + s) / s;
}

std::string Attrs(const Conv& v) {
  std::string s1 = std::to_string(v.stride), d1 = std::to_string(v.dilation);
  std::string strides = v.nchw ? "[1,1," + s1 + "," + s1 + "]" : "[1," + s1 + "," + s1 + ",1]";
  std::string dil = v.nchw ? "[1,1," + d1 + "," + d1 + "]" : "[1," + d1 + "," + d1 + ",1]";
  std::string a = "\"T\":\"float32\",\"data_format\":\"" + std::string(v.nchw ? "NCHW" : "NHWC") +
                  "\",\"strides\":" + strides + ",\"dilations\":" + dil + ",\"padding\":\"" +
                  v.padding + "\"";
  if (v.padding == "EXPLICIT")
    a += v.nchw ? ",\"explicit_paddings\":[0,0,0,0,1,2,0,1]"
                : ",\"explicit_paddings\":[0,0,1,2,0,1,0,0]";
  return a;
}

std::vector<Conv> Cases() {
  std::vector<Conv> cs;
  for (bool nchw : {false, true})
    for (const char* pad : {"VALID", "SAME", "EXPLICIT"})
      for (int64_t stride : {1, 2})
        cs.push_back({nchw, 2, 9, 8, 4, 3, 3, 4, 5, stride, 1, pad, false});
  cs.push_back({false, 2, 9, 8, 4, 3, 3, 4, 5, 1, 2, "SAME", false});   // dilated
  cs.push_back({false, 2, 7, 7, 4, 3, 3, 2, 6, 1, 1, "SAME", false});   // two groups
  cs.push_back({false, 1, 6, 6, 3, 1, 1, 3, 4, 1, 1, "VALID", false});  // 1x1
  return cs;
}

// A float32 tensor's copy in float64 (float32 values are exact there).
grt_tensor* Widened(const grt_tensor* t, grt_dtype dt) {
  EXPECT_EQ(dt, GRT_FLOAT64);
  std::vector<int64_t> dims(grt_tensor_rank(t));
  for (int32_t d = 0; d < grt_tensor_rank(t); d++) dims[d] = grt_tensor_dim(t, d);
  grt_tensor* c = nullptr;
  EXPECT_EQ(grt_tensor_new(dt, (int32_t)dims.size(), dims.data(), &c), nullptr);
  for (int64_t i = 0; c && i < grt_tensor_num_elements(t); i++)
    static_cast<double*>(grt_tensor_data(c))[i] = At(t, i);
  return c;
}

// A tensor's values as float32 (exact for float16 and bfloat16).
grt_tensor* AsFloat32(const grt_tensor* t) {
  std::vector<int64_t> dims(grt_tensor_rank(t));
  for (int32_t d = 0; d < grt_tensor_rank(t); d++) dims[d] = grt_tensor_dim(t, d);
  grt_tensor* c = nullptr;
  EXPECT_EQ(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &c), nullptr);
  for (int64_t i = 0; c && i < grt_tensor_num_elements(t); i++)
    static_cast<float*>(grt_tensor_data(c))[i] = (float)At(t, i);
  return c;
}

// The CPU runs convolutions and pooling in float32 only, so a float32 case
// `c` is checked in `dt` against the CPU's float32 result on the same
// values: float16/bfloat16 inputs are drawn in dt (their float32 copies are
// exact), float64 inputs are float32 draws (exact in float64). The GPU's
// result, widened, must be within `tol` (relative L2 over the tensor) of
// the CPU's. Dry, the float32 case runs on the CPU on both sides. Only the
// inputs in `typed` (bit i: input i) take dt, and the outputs in
// `typed_out`; the others stay float32 (FusedBatchNorm's U arguments and
// statistics).
void CheckInDtype(const Case& c, grt_dtype dt, double tol, uint32_t typed = ~0u,
                  uint32_t typed_out = ~0u) {
  SCOPED_TRACE(c.op + " {" + c.attrs + "} in " + DtypeName(dt));
  Case g = c;
  const std::string f32 = "\"T\":\"float32\"";
  size_t at = g.attrs.find(f32);
  ASSERT_NE(at, std::string::npos) << g.attrs;
  g.attrs.replace(at, f32.size(), "\"T\":\"" + DtypeName(dt) + "\"");
  std::vector<grt_tensor*> feeds, feeds32;
  for (size_t i = 0; i < g.in.size(); i++) {
    Input& in = g.in[i];
    if (in.fill == kConst) continue;
    if (in.dt != GRT_FLOAT32 ||
        !((typed >> i) & 1)) {  // an index or other argument: the same on both sides
      feeds.push_back(Random(in));
      feeds32.push_back(Detach(grt_tensor_ref(feeds.back())));  // a copy
      continue;
    }
    if (dt == GRT_FLOAT64) {
      feeds32.push_back(Random(in));
      feeds.push_back(Widened(feeds32.back(), GRT_FLOAT64));
    } else {
      in.dt = dt;
      feeds.push_back(Random(in));
      feeds32.push_back(AsFloat32(feeds.back()));
    }
    in.dt = dt;
  }
  std::vector<grt_tensor*> gpu, cpu;
  if (Dry())
    RunOn(c, "/cpu:0", feeds32, &gpu);
  else
    RunOn(g, "/device:GPU:0", feeds, &gpu);
  RunOn(c, "/cpu:0", feeds32, &cpu);
  for (int k = 0; k < c.outputs; k++) {
    ASSERT_NE(gpu[k], nullptr);
    ASSERT_NE(cpu[k], nullptr);
    if (!Dry()) {
      ASSERT_EQ(grt_tensor_dtype(gpu[k]), (typed_out >> k) & 1 ? dt : GRT_FLOAT32) << k;
    }
    ASSERT_EQ(grt_tensor_num_elements(gpu[k]), grt_tensor_num_elements(cpu[k]));
    double err = 0, norm = 0;
    for (int64_t i = 0; i < grt_tensor_num_elements(cpu[k]); i++) {
      double a = At(gpu[k], i), b = At(cpu[k], i);
      err += (a - b) * (a - b);
      norm += b * b;
    }
    EXPECT_LE(std::sqrt(err), tol * std::sqrt(norm) + 1e-30) << "output " << k;
    if (grt_tensor_num_elements(cpu[k]) > 1) {
      EXPECT_GT(norm, 0) << "output " << k << " is all zeros: nothing was compared";
    }
  }
  for (auto* t : feeds) grt_tensor_free(t);
  for (auto* t : feeds32) grt_tensor_free(t);
  for (auto* t : gpu) grt_tensor_free(t);
  for (auto* t : cpu) grt_tensor_free(t);
}

// The dtypes the GPU rows promise beyond the CPU's float32, with the
// tolerance of each against the CPU's float32 result: float16 and bfloat16
// round each output once (half an ulp: 2^-11 and 2^-8 relative), so four
// times that covers an ulp of difference in the float32 sums before it;
// float64 is compared with a float32 computation, so float32's tolerance.
struct Narrow {
  grt_dtype dt;
  double tol;
};
const Narrow kOtherFloats[] = {{GRT_FLOAT16, 2e-3}, {GRT_BFLOAT16, 1.6e-2}, {GRT_FLOAT64, 1e-5}};

}  // namespace conv

TEST_F(GpuOps, ConvolutionsThroughCudnn) {
  using namespace conv;
  const grt_dtype f = GRT_FLOAT32;
  for (const Conv& v : Cases()) {
    std::vector<int64_t> x = Dims(v.nchw, v.n, v.c, v.h, v.w), fs = {v.kh, v.kw, v.fic, v.oc};
    std::vector<int64_t> y =
        Dims(v.nchw, v.n, v.oc, OutSize(v, 0, v.h, v.kh), OutSize(v, 1, v.w, v.kw));
    std::string a = Attrs(v);
    CheckAgainstCpu({"Conv2D", a, {{f, x}, {f, fs}}});
    CheckAgainstCpu({"Conv2DBackpropInput", a, {{GRT_INT32, {4}, kConst, x}, {f, fs}, {f, y}}});
    CheckAgainstCpu({"Conv2DBackpropFilter", a, {{f, x}, {GRT_INT32, {4}, kConst, fs}, {f, y}}});
  }
  for (bool nchw : {false, true})
    for (const char* pad : {"VALID", "SAME"})
      for (int64_t stride : {1, 2}) {
        Conv v = {nchw, 2, 9, 8, 4, 3, 3, 4, 2, stride, 1, pad, true};
        CheckAgainstCpu(
            {"DepthwiseConv2dNative", Attrs(v), {{f, Dims(nchw, 2, 4, 9, 8)}, {f, {3, 3, 4, 2}}}});
      }
}

// float16, bfloat16 (computed in float32) and float64 (which cuDNN runs in
// NCHW: NHWC cases convert around it) against the CPU's float32; each case
// twice, the second run taking the algorithm the device's cache kept.
TEST_F(GpuOps, ConvolutionsThroughCudnnInOtherFloats) {
  using namespace conv;
  const grt_dtype f = GRT_FLOAT32;
  for (const Narrow& nt : kOtherFloats)
    for (int pass = 0; pass < 2; pass++) {
      for (const Conv& v : Cases()) {
        std::vector<int64_t> x = Dims(v.nchw, v.n, v.c, v.h, v.w), fs = {v.kh, v.kw, v.fic, v.oc};
        std::vector<int64_t> y =
            Dims(v.nchw, v.n, v.oc, OutSize(v, 0, v.h, v.kh), OutSize(v, 1, v.w, v.kw));
        std::string a = Attrs(v);
        CheckInDtype({"Conv2D", a, {{f, x}, {f, fs}}}, nt.dt, nt.tol);
        CheckInDtype({"Conv2DBackpropInput", a, {{GRT_INT32, {4}, kConst, x}, {f, fs}, {f, y}}},
                     nt.dt, nt.tol);
        CheckInDtype({"Conv2DBackpropFilter", a, {{f, x}, {GRT_INT32, {4}, kConst, fs}, {f, y}}},
                     nt.dt, nt.tol);
      }
      for (bool nchw : {false, true}) {
        Conv v = {nchw, 2, 9, 8, 4, 3, 3, 4, 2, 2, 1, "SAME", true};
        CheckInDtype(
            {"DepthwiseConv2dNative", Attrs(v), {{f, Dims(nchw, 2, 4, 9, 8)}, {f, {3, 3, 4, 2}}}},
            nt.dt, nt.tol);
      }
    }
}

// GRT_CUDNN_AUTOTUNE=1: the algorithms ranked by cudnnFind*Ex (timing each
// on the call's data), a key of its own in the device's cache.
TEST_F(GpuOps, ConvolutionsMeasuredByCudnnFind) {
  using namespace conv;
  setenv("GRT_CUDNN_AUTOTUNE", "1", 1);
  const grt_dtype f = GRT_FLOAT32;
  for (const Conv& v : Cases()) {
    std::vector<int64_t> x = Dims(v.nchw, v.n, v.c, v.h, v.w), fs = {v.kh, v.kw, v.fic, v.oc};
    std::vector<int64_t> y =
        Dims(v.nchw, v.n, v.oc, OutSize(v, 0, v.h, v.kh), OutSize(v, 1, v.w, v.kw));
    std::string a = Attrs(v);
    CheckAgainstCpu({"Conv2D", a, {{f, x}, {f, fs}}});
    CheckAgainstCpu({"Conv2DBackpropInput", a, {{GRT_INT32, {4}, kConst, x}, {f, fs}, {f, y}}});
    CheckAgainstCpu({"Conv2DBackpropFilter", a, {{f, x}, {GRT_INT32, {4}, kConst, fs}, {f, y}}});
    CheckInDtype({"Conv2D", a, {{f, x}, {f, fs}}}, kOtherFloats[0].dt, kOtherFloats[0].tol);
  }
  unsetenv("GRT_CUDNN_AUTOTUNE");
}

TEST_F(GpuOps, Pooling) {
  const grt_dtype f = GRT_FLOAT32;
  for (bool nchw : {false, true})
    for (const char* pad : {"VALID", "SAME"})
      for (int64_t k : {2, 3}) {
        std::string ks = std::to_string(k);
        std::string win = nchw ? "[1,1," + ks + "," + ks + "]" : "[1," + ks + "," + ks + ",1]";
        std::string st = nchw ? "[1,1,2,2]" : "[1,2,2,1]";
        std::string a = "\"T\":\"float32\",\"data_format\":\"" +
                        std::string(nchw ? "NCHW" : "NHWC") + "\",\"ksize\":" + win +
                        ",\"strides\":" + st + ",\"padding\":\"" + pad + "\"";
        std::vector<int64_t> x = conv::Dims(nchw, 2, 3, 9, 8);
        int64_t oh = std::string(pad) == "SAME" ? 5 : (9 - k) / 2 + 1,
                ow = std::string(pad) == "SAME" ? 4 : (8 - k) / 2 + 1;
        std::vector<int64_t> y = conv::Dims(nchw, 2, 3, oh, ow);
        CheckAgainstCpu({"MaxPool", a, {{f, x}}});
        CheckAgainstCpu({"AvgPool", a, {{f, x}}});
        CheckAgainstCpu({"MaxPoolGrad", a, {{f, x}, {f, y}, {f, y}}});
        CheckAgainstCpu({"AvgPoolGrad", a, {{GRT_INT32, {4}, kConst, x}, {f, y}}});
        // The other floats against the CPU's float32 (conv::kOtherFloats'
        // tolerances; MaxPool is exact, MaxPoolGrad of the 16-bit types
        // adds in float32 and rounds once).
        for (const conv::Narrow& nt : conv::kOtherFloats) {
          conv::CheckInDtype({"MaxPool", a, {{f, x}}}, nt.dt, nt.tol);
          conv::CheckInDtype({"AvgPool", a, {{f, x}}}, nt.dt, nt.tol);
          conv::CheckInDtype({"MaxPoolGrad", a, {{f, x}, {f, y}, {f, y}}}, nt.dt, nt.tol);
          conv::CheckInDtype({"AvgPoolGrad", a, {{GRT_INT32, {4}, kConst, x}, {f, y}}}, nt.dt,
                             nt.tol);
        }
      }
}

TEST_F(GpuOps, LrnAndBatchNorm) {
  const grt_dtype f = GRT_FLOAT32;
  const std::string lrn =
      "\"T\":\"float32\",\"depth_radius\":2,\"bias\":1.5,\"alpha\":0.1,\"beta\":0.75";
  CheckAgainstCpu({"LRN", lrn, {{f, {2, 3, 4, 10}}}});
  CheckAgainstCpu({"LRNGrad", lrn, {{f, {2, 3, 4, 10}}, {f, {2, 3, 4, 10}}, {f, {2, 3, 4, 10}}}});
  for (bool nchw : {false, true})
    for (bool training : {true, false})
      for (const char* factor : {"1", "0.25"}) {
        std::string a = "\"T\":\"float32\",\"U\":\"float32\",\"epsilon\":0.001,\"data_format\":\"" +
                        std::string(nchw ? "NCHW" : "NHWC") +
                        "\",\"is_training\":" + (training ? "true" : "false");
        std::string fwd = a + ",\"exponential_avg_factor\":" + factor;
        std::vector<int64_t> x = conv::Dims(nchw, 2, 3, 5, 4);
        CheckAgainstCpu({"FusedBatchNormV3",
                         fwd,
                         {{f, x}, {f, {3}}, {f, {3}}, {f, {3}}, {f, {3}, kPositive}},
                         6});
        if (std::string(factor) == "1")  // the gradient has no factor
          CheckAgainstCpu({"FusedBatchNormGradV3",
                           a,
                           {{f, x}, {f, x}, {f, {3}}, {f, {3}}, {f, {3}, kPositive}, {f, {}}},
                           5});
        // x, y and their gradients in float16 and bfloat16 (statistics in
        // float32), against the CPU's float32 (conv::kOtherFloats' tolerances).
        for (const conv::Narrow& nt : conv::kOtherFloats) {
          if (nt.dt == GRT_FLOAT64) continue;  // not a FusedBatchNorm type on the GPU
          conv::CheckInDtype({"FusedBatchNormV3",
                              fwd,
                              {{f, x}, {f, {3}}, {f, {3}}, {f, {3}}, {f, {3}, kPositive}},
                              6},
                             nt.dt, nt.tol, 1u << 0, 1u << 0);
          if (std::string(factor) == "1")
            conv::CheckInDtype({"FusedBatchNormGradV3",
                                a,
                                {{f, x}, {f, x}, {f, {3}}, {f, {3}}, {f, {3}, kPositive}, {f, {}}},
                                5},
                               nt.dt, nt.tol, (1u << 0) | (1u << 1), 1u << 0);
        }
      }
}
