// ONNX RNN, GRU and LSTM through the importer and the fused kernels (_RNN,
// _GRU, _LSTM), against a reference written here from ONNX's equations in
// double precision: every direction, both layouts, batch 1 and 3, the
// optional inputs (bias, sequence_lens, initial states, peepholes), clip,
// non-default activations with and without alpha/beta, GRU's
// linear_before_reset and LSTM's input_forget; a symbolic sequence length
// run at 10 and 10,000 steps by one session whose graph stays the same
// size; and bad input refused with the node named.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "interchange/interchange.h"
#include "onnx.pb-c.h"
}

namespace {

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

// ---- the case ----------------------------------------------------------

struct Spec {
  std::string op = "LSTM";  // RNN, GRU or LSTM
  std::string direction = "forward";
  int layout = 0;
  int S = 5, B = 1, I = 3, H = 4;
  bool bias = false, lens = false, h0 = false, c0 = false, peep = false;
  float clip = 0;  // 0: attribute left out
  std::vector<std::string> acts;
  std::vector<float> alpha, beta;
  int lbr = 0, input_forget = 0;
  bool declare_shapes = false;  // X's dims declared as "N", "S" (else undeclared)

  int D() const { return direction == "bidirectional" ? 2 : 1; }
  int G() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  int NActs() const { return op == "RNN" ? 1 : op == "GRU" ? 2 : 3; }
  bool Lstm() const { return op == "LSTM"; }
  std::string Name() const {
    std::string n = op + " " + direction + " layout " + std::to_string(layout) + " batch " +
                    std::to_string(B) + " seq " + std::to_string(S);
    if (bias) n += " bias";
    if (lens) n += " lens";
    if (h0) n += " h0";
    if (peep) n += " peep";
    if (clip > 0) n += " clip";
    for (auto& a : acts) n += " " + a;
    if (lbr) n += " lbr";
    if (input_forget) n += " input_forget";
    return n;
  }
};

struct Data {
  std::vector<float> x, w, r, b, h0, c0, p;
  std::vector<int32_t> lens;
};

float Uniform(uint64_t* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

Data MakeData(const Spec& c, uint64_t seed) {
  Data d;
  auto fill = [&](std::vector<float>* v, size_t n, float scale) {
    v->resize(n);
    for (auto& e : *v) e = scale * Uniform(&seed);
  };
  int D = c.D(), GH = c.G() * c.H;
  fill(&d.x, (size_t)c.S * c.B * c.I, 1.0f);
  fill(&d.w, (size_t)D * GH * c.I, 0.6f);
  fill(&d.r, (size_t)D * GH * c.H, 0.5f);
  if (c.bias) fill(&d.b, (size_t)D * 2 * GH, 0.4f);
  if (c.h0) fill(&d.h0, (size_t)D * c.B * c.H, 0.8f);
  if (c.c0) fill(&d.c0, (size_t)D * c.B * c.H, 0.8f);
  if (c.peep) fill(&d.p, (size_t)D * 3 * c.H, 0.5f);
  if (c.lens)
    for (int b = 0; b < c.B; b++) d.lens.push_back(b == 0 ? c.S : (c.S - 1 - b) % (c.S + 1));
  return d;
}

// ---- the reference -----------------------------------------------------

struct Act {
  std::string name;
  double alpha, beta;
};

// ONNX's functions (the spec's table), their alpha/beta defaults and use.
struct ActInfo {
  const char* name;
  int params;  // 0, 1 (alpha) or 2 (alpha, beta)
  double alpha, beta;
};
const ActInfo kActs[] = {
    {"Relu", 0, 0, 0},         {"Tanh", 0, 0, 0},
    {"Sigmoid", 0, 0, 0},      {"Affine", 2, 1, 0},
    {"LeakyRelu", 1, 0.01, 0}, {"ThresholdedRelu", 1, 1, 0},
    {"ScaledTanh", 2, 1, 1},   {"HardSigmoid", 2, 0.2, 0.5},
    {"Elu", 1, 1, 0},          {"Softsign", 0, 0, 0},
    {"Softplus", 0, 0, 0},
};

double Apply(const Act& a, double x) {
  const std::string& n = a.name;
  if (n == "Relu") return x > 0 ? x : 0;
  if (n == "Tanh") return std::tanh(x);
  if (n == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (n == "Affine") return a.alpha * x + a.beta;
  if (n == "LeakyRelu") return x < 0 ? a.alpha * x : x;
  if (n == "ThresholdedRelu") return x > a.alpha ? x : 0;
  if (n == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (n == "HardSigmoid") return std::max(0.0, std::min(1.0, a.alpha * x + a.beta));
  if (n == "Elu") return x < 0 ? a.alpha * (std::exp(x) - 1) : x;
  if (n == "Softsign") return x / (1 + std::fabs(x));
  if (n == "Softplus") return std::log(1 + std::exp(x));
  ADD_FAILURE() << "unknown activation " << n;
  return 0;
}

// The functions of every direction, alphas and betas consumed in order.
std::vector<Act> Resolve(const Spec& c) {
  static const char* const kDefaults[3][3] = {
      {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  int k = c.NActs(), total = k * c.D();
  std::vector<Act> out;
  size_t ia = 0, ib = 0;
  for (int i = 0; i < total; i++) {
    std::string n = c.acts.empty()                ? kDefaults[k - 1][i % k]
                    : (int)c.acts.size() == total ? c.acts[i]
                                                  : c.acts[i % k];
    Act a{n, 0, 0};
    for (const ActInfo& info : kActs)
      if (n == info.name) {
        a.alpha = info.alpha;
        a.beta = info.beta;
        if (info.params >= 1 && ia < c.alpha.size()) a.alpha = c.alpha[ia++];
        if (info.params >= 2 && ib < c.beta.size()) a.beta = c.beta[ib++];
      }
    out.push_back(a);
  }
  return out;
}

struct Outputs {
  std::vector<double> y, yh, yc;
};

Outputs Reference(const Spec& c, const Data& d) {
  int S = c.S, B = c.B, I = c.I, H = c.H, D = c.D(), G = c.G();
  bool bm = c.layout == 1;
  std::vector<Act> acts = Resolve(c);
  Outputs o;
  o.y.assign((size_t)S * D * B * H, 0.0);
  o.yh.assign((size_t)D * B * H, 0.0);
  o.yc.assign((size_t)D * B * H, 0.0);
  auto clip = [&](double v) {
    return c.clip > 0 ? std::max(-(double)c.clip, std::min((double)c.clip, v)) : v;
  };
  for (int dir = 0; dir < D; dir++) {
    bool rev = c.direction == "reverse" || dir == 1;
    const Act* f = &acts[dir * c.NActs()];
    for (int b = 0; b < B; b++) {
      int L = c.lens ? d.lens[b] : S;
      size_t st = bm ? ((size_t)b * D + dir) * H : ((size_t)dir * B + b) * H;
      std::vector<double> h(H, 0.0), cs(H, 0.0);
      for (int j = 0; j < H; j++) {
        if (c.h0) h[j] = d.h0[st + j];
        if (c.c0) cs[j] = d.c0[st + j];
      }
      for (int k = 0; k < L; k++) {
        int t = rev ? L - 1 - k : k;
        const float* xt = &d.x[(bm ? (size_t)b * S + t : (size_t)t * B + b) * I];
        // xw[g*H+j] = x W^T + Wb, hr = h R^T + Rb (per gate row)
        auto xw = [&](int row) {
          double v = c.bias ? d.b[(size_t)dir * 2 * G * H + row] : 0.0;
          for (int i = 0; i < I; i++) v += xt[i] * (double)d.w[((size_t)dir * G * H + row) * I + i];
          return v;
        };
        auto hr = [&](int row, const std::vector<double>& hv) {
          double v = c.bias ? d.b[(size_t)dir * 2 * G * H + G * H + row] : 0.0;
          for (int i = 0; i < H; i++) v += hv[i] * (double)d.r[((size_t)dir * G * H + row) * H + i];
          return v;
        };
        std::vector<double> nh(H), nc(H);
        if (c.op == "RNN") {
          for (int j = 0; j < H; j++) nh[j] = Apply(f[0], clip(xw(j) + hr(j, h)));
        } else if (c.op == "GRU") {
          std::vector<double> z(H), r(H);
          for (int j = 0; j < H; j++) {
            z[j] = Apply(f[0], clip(xw(j) + hr(j, h)));
            r[j] = Apply(f[0], clip(xw(H + j) + hr(H + j, h)));
          }
          std::vector<double> rh(H);
          for (int j = 0; j < H; j++) rh[j] = r[j] * h[j];
          for (int j = 0; j < H; j++) {
            double pre =
                c.lbr ? xw(2 * H + j) + r[j] * hr(2 * H + j, h) : xw(2 * H + j) + hr(2 * H + j, rh);
            double g = Apply(f[1], clip(pre));
            nh[j] = (1 - z[j]) * g + z[j] * h[j];
          }
        } else {
          const float* p = c.peep ? &d.p[(size_t)dir * 3 * H] : nullptr;
          for (int j = 0; j < H; j++) {
            double i = Apply(f[0], clip(xw(j) + hr(j, h) + (p ? p[j] * cs[j] : 0)));
            double fg = c.input_forget ? 1 - i
                                       : Apply(f[0], clip(xw(2 * H + j) + hr(2 * H + j, h) +
                                                          (p ? p[2 * H + j] * cs[j] : 0)));
            double g = Apply(f[1], clip(xw(3 * H + j) + hr(3 * H + j, h)));
            nc[j] = fg * cs[j] + i * g;
            double og = Apply(f[0], clip(xw(H + j) + hr(H + j, h) + (p ? p[H + j] * nc[j] : 0)));
            nh[j] = og * Apply(f[2], nc[j]);
          }
          cs = nc;
        }
        h = nh;
        for (int j = 0; j < H; j++)
          o.y[(bm ? ((size_t)b * S + t) * D + dir : ((size_t)t * D + dir) * B + b) * H + j] = h[j];
      }
      for (int j = 0; j < H; j++) {
        o.yh[st + j] = h[j];
        o.yc[st + j] = cs[j];
      }
    }
  }
  return o;
}

// ---- the model -----------------------------------------------------------

// An ONNX model of one node, every input a graph input (X's dims symbolic
// or undeclared), built with protobuf-c and serialized.
class ModelBuilder {
 public:
  std::string Build(const Spec& c, const std::vector<std::string>& inputs,
                    const std::vector<std::string>& outputs) {
    Onnx__NodeProto* node = New<Onnx__NodeProto>();
    onnx__node_proto__init(node);
    node->op_type = Str(c.op);
    node->name = Str("cell");
    node->n_input = inputs.size();
    node->input = Strs(inputs);
    node->n_output = outputs.size();
    node->output = Strs(outputs);
    std::vector<Onnx__AttributeProto*> attrs;
    attrs.push_back(Int("hidden_size", c.H));
    if (c.direction != "forward") attrs.push_back(String("direction", c.direction));
    if (c.layout) attrs.push_back(Int("layout", c.layout));
    if (c.clip != 0) attrs.push_back(Float("clip", c.clip));
    if (!c.acts.empty()) attrs.push_back(Strings("activations", c.acts));
    if (!c.alpha.empty()) attrs.push_back(Floats("activation_alpha", c.alpha));
    if (!c.beta.empty()) attrs.push_back(Floats("activation_beta", c.beta));
    if (c.lbr) attrs.push_back(Int("linear_before_reset", c.lbr));
    if (c.input_forget) attrs.push_back(Int("input_forget", c.input_forget));
    for (auto* a : extra_) attrs.push_back(a);
    node->n_attribute = attrs.size();
    node->attribute = Keep(attrs);

    Onnx__GraphProto* g = New<Onnx__GraphProto>();
    onnx__graph_proto__init(g);
    g->name = Str("rnn");
    g->n_node = 1;
    g->node = Keep(std::vector<Onnx__NodeProto*>{node});
    std::vector<Onnx__ValueInfoProto*> ins, outs;
    for (const std::string& in : inputs) {
      if (in.empty()) continue;
      std::vector<std::string> dims;
      if (in == "X" && c.declare_shapes)
        dims = c.layout ? std::vector<std::string>{"N", "S", std::to_string(c.I)}
                        : std::vector<std::string>{"S", "N", std::to_string(c.I)};
      auto it = declared_.find(in);
      if (it != declared_.end()) dims = it->second;
      ins.push_back(Value(in, in == "sequence_lens" ? 6 : 1, dims));
    }
    for (const std::string& out : outputs)
      if (!out.empty()) outs.push_back(Value(out, 1, {}));
    g->n_input = ins.size();
    g->input = Keep(ins);
    g->n_output = outs.size();
    g->output = Keep(outs);

    Onnx__OperatorSetIdProto* opset = New<Onnx__OperatorSetIdProto>();
    onnx__operator_set_id_proto__init(opset);
    opset->domain = Str("");
    opset->has_version = 1;
    opset->version = 14;
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.n_opset_import = 1;
    m.opset_import = Keep(std::vector<Onnx__OperatorSetIdProto*>{opset});
    m.graph = g;
    std::string out(onnx__model_proto__get_packed_size(&m), '\0');
    onnx__model_proto__pack(&m, reinterpret_cast<uint8_t*>(&out[0]));
    return out;
  }

  // Declares input `name` with these dims (numbers or symbols).
  void Declare(const std::string& name, std::vector<std::string> dims) { declared_[name] = dims; }
  void AddInt(const char* name, int64_t v) { extra_.push_back(Int(name, v)); }

 private:
  template <typename T>
  T* New() {
    blocks_.emplace_back(sizeof(T), '\0');
    return reinterpret_cast<T*>(&blocks_.back()[0]);
  }
  template <typename T>
  T** Keep(const std::vector<T*>& v) {
    T** a = static_cast<T**>(Raw(v.size() * sizeof(T*) + 1));
    for (size_t i = 0; i < v.size(); i++) a[i] = v[i];
    return a;
  }
  void* Raw(size_t n) {
    blocks_.emplace_back(n, '\0');
    return &blocks_.back()[0];
  }
  char* Str(const std::string& s) {
    strings_.push_back(s);
    return &strings_.back()[0];
  }
  char** Strs(const std::vector<std::string>& v) {
    std::vector<char*> p;
    for (auto& s : v) p.push_back(Str(s));
    return Keep(p);
  }
  Onnx__AttributeProto* Attr(const char* name, Onnx__AttributeProto__AttributeType t) {
    auto* a = New<Onnx__AttributeProto>();
    onnx__attribute_proto__init(a);
    a->name = Str(name);
    a->has_type = 1;
    a->type = t;
    return a;
  }
  Onnx__AttributeProto* Int(const char* name, int64_t v) {
    auto* a = Attr(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
    return a;
  }
  Onnx__AttributeProto* Float(const char* name, float v) {
    auto* a = Attr(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
    return a;
  }
  Onnx__AttributeProto* String(const char* name, const std::string& v) {
    auto* a = Attr(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.data = reinterpret_cast<uint8_t*>(Str(v));
    a->s.len = v.size();
    return a;
  }
  Onnx__AttributeProto* Strings(const char* name, const std::vector<std::string>& v) {
    auto* a = Attr(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    a->n_strings = v.size();
    a->strings = static_cast<ProtobufCBinaryData*>(Raw(v.size() * sizeof(ProtobufCBinaryData) + 1));
    for (size_t i = 0; i < v.size(); i++) {
      a->strings[i].data = reinterpret_cast<uint8_t*>(Str(v[i]));
      a->strings[i].len = v[i].size();
    }
    return a;
  }
  Onnx__AttributeProto* Floats(const char* name, const std::vector<float>& v) {
    auto* a = Attr(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    a->n_floats = v.size();
    a->floats = static_cast<float*>(Raw(v.size() * sizeof(float) + 1));
    for (size_t i = 0; i < v.size(); i++) a->floats[i] = v[i];
    return a;
  }
  Onnx__ValueInfoProto* Value(const std::string& name, int elem, std::vector<std::string> dims) {
    auto* tensor = New<Onnx__TypeProto__Tensor>();
    onnx__type_proto__tensor__init(tensor);
    tensor->has_elem_type = 1;
    tensor->elem_type = elem;
    if (!dims.empty()) {
      auto* shape = New<Onnx__TensorShapeProto>();
      onnx__tensor_shape_proto__init(shape);
      std::vector<Onnx__TensorShapeProto__Dimension*> ds;
      for (auto& d : dims) {
        auto* dim = New<Onnx__TensorShapeProto__Dimension>();
        onnx__tensor_shape_proto__dimension__init(dim);
        if (isdigit((unsigned char)d[0])) {
          dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
          dim->dim_value = std::stoll(d);
        } else {
          dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
          dim->dim_param = Str(d);
        }
        ds.push_back(dim);
      }
      shape->n_dim = ds.size();
      shape->dim = Keep(ds);
      tensor->shape = shape;
    }
    auto* type = New<Onnx__TypeProto>();
    onnx__type_proto__init(type);
    type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type->tensor_type = tensor;
    auto* vi = New<Onnx__ValueInfoProto>();
    onnx__value_info_proto__init(vi);
    vi->name = Str(name);
    vi->type = type;
    return vi;
  }

  std::deque<std::string> blocks_;
  std::deque<std::string> strings_;
  std::map<std::string, std::vector<std::string>> declared_;
  std::vector<Onnx__AttributeProto*> extra_;
};

std::vector<std::string> InputNames(const Spec& c) {
  std::vector<std::string> in = {
      "X", "W", "R", c.bias ? "B" : "", c.lens ? "sequence_lens" : "", c.h0 ? "initial_h" : ""};
  if (c.Lstm()) {
    in.push_back(c.c0 ? "initial_c" : "");
    in.push_back(c.peep ? "P" : "");
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  return in;
}

std::vector<std::string> OutputNames(const Spec& c) {
  std::vector<std::string> out = {"Y", "Y_h"};
  if (c.Lstm()) out.push_back("Y_c");
  return out;
}

grt_tensor* Tensor(grt_dtype t, std::vector<int64_t> dims, const void* data) {
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(t, (int32_t)dims.size(), dims.data(), &out)), "");
  if (out && grt_tensor_byte_size(out))
    memcpy(grt_tensor_data(out), data, grt_tensor_byte_size(out));
  return out;
}

// A loaded model and its session.
struct Model {
  grt_graph* g = nullptr;
  grt_session* s = nullptr;
  std::string error;  // the import's or session's message
  explicit Model(const std::string& bytes) {
    error = Message(grt_onnx_parse(bytes.data(), bytes.size(), &g));
    if (error.empty()) error = Message(grt_session_new(g, nullptr, &s));
  }
  ~Model() {
    grt_session_free(s);
    grt_graph_free(g);
  }
};

// Feeds d in the spec's layout; runs; the message ("" on success).
std::string RunModel(Model* m, const Spec& c, const Data& d, std::vector<grt_tensor*>* out,
                     const grt_run_options* ro = nullptr, grt_code* code = nullptr) {
  int D = c.D(), GH = c.G() * c.H;
  std::vector<int64_t> xd =
      c.layout ? std::vector<int64_t>{c.B, c.S, c.I} : std::vector<int64_t>{c.S, c.B, c.I};
  std::vector<int64_t> sd =
      c.layout ? std::vector<int64_t>{c.B, D, c.H} : std::vector<int64_t>{D, c.B, c.H};
  std::vector<std::pair<std::string, grt_tensor*>> feeds = {
      {"X", Tensor(GRT_FLOAT32, xd, d.x.data())},
      {"W", Tensor(GRT_FLOAT32, {D, GH, (int64_t)(d.w.size() / (D * GH))}, d.w.data())},
      {"R", Tensor(GRT_FLOAT32, {D, GH, (int64_t)(d.r.size() / (D * GH))}, d.r.data())}};
  if (c.bias) feeds.push_back({"B", Tensor(GRT_FLOAT32, {D, 2 * GH}, d.b.data())});
  if (c.lens)
    feeds.push_back({"sequence_lens", Tensor(GRT_INT32, {(int64_t)d.lens.size()}, d.lens.data())});
  if (c.h0) feeds.push_back({"initial_h", Tensor(GRT_FLOAT32, sd, d.h0.data())});
  if (c.c0) feeds.push_back({"initial_c", Tensor(GRT_FLOAT32, sd, d.c0.data())});
  if (c.peep) feeds.push_back({"P", Tensor(GRT_FLOAT32, {D, 3 * c.H}, d.p.data())});
  std::vector<grt_feed> f;
  for (auto& p : feeds) f.push_back({p.first.c_str(), p.second});
  std::vector<std::string> names = OutputNames(c);
  std::vector<const char*> fetch;
  for (auto& n : names) fetch.push_back(n.c_str());
  out->assign(fetch.size(), nullptr);
  grt_status* st =
      grt_session_run_with_options(m->s, ro, f.data(), (int32_t)f.size(), fetch.data(),
                                   (int32_t)fetch.size(), nullptr, 0, out->data(), nullptr);
  if (code) *code = grt_status_code(st);
  std::string msg = Message(st);
  for (auto& p : feeds) grt_tensor_free(p.second);
  return msg;
}

void Expect(const char* what, const grt_tensor* got, const std::vector<double>& want,
            std::vector<int64_t> dims, double tol) {
  ASSERT_NE(got, nullptr) << what;
  ASSERT_EQ(grt_tensor_rank(got), (int32_t)dims.size()) << what;
  for (size_t i = 0; i < dims.size(); i++)
    ASSERT_EQ(grt_tensor_dim(got, (int32_t)i), dims[i]) << what << " dim " << i;
  const float* v = static_cast<const float*>(grt_tensor_data(got));
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_NEAR(v[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
}

void Check(const Spec& c, double tol = 2e-5) {
  SCOPED_TRACE(c.Name());
  ModelBuilder mb;
  Model m(mb.Build(c, InputNames(c), OutputNames(c)));
  ASSERT_EQ(m.error, "");
  Data d = MakeData(c, 7 + c.S * 31 + c.B);
  std::vector<grt_tensor*> out;
  ASSERT_EQ(RunModel(&m, c, d, &out), "");
  Outputs want = Reference(c, d);
  int D = c.D();
  std::vector<int64_t> yd =
      c.layout ? std::vector<int64_t>{c.B, c.S, D, c.H} : std::vector<int64_t>{c.S, D, c.B, c.H};
  std::vector<int64_t> sd =
      c.layout ? std::vector<int64_t>{c.B, D, c.H} : std::vector<int64_t>{D, c.B, c.H};
  Expect("Y", out[0], want.y, yd, tol);
  Expect("Y_h", out[1], want.yh, sd, tol);
  if (c.Lstm()) Expect("Y_c", out[2], want.yc, sd, tol);
  for (grt_tensor* t : out) grt_tensor_free(t);
}

// Every cell, direction, layout and batch size, each with: the defaults;
// every optional input; clip and non-default activations with alpha/beta
// (one set per direction); the cell's own flag and activations without
// alpha/beta (their defaults), one set for both directions.
TEST(OnnxRnn, EveryAttributeCombinationMatchesTheReference) {
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (const char* dir : {"forward", "reverse", "bidirectional"})
      for (int layout : {0, 1})
        for (int batch : {1, 3})
          for (int variant = 0; variant < 4; variant++) {
            Spec c;
            c.op = op;
            c.direction = dir;
            c.layout = layout;
            c.B = batch;
            c.declare_shapes = variant % 2 == 0;
            bool bi = c.D() == 2;
            if (variant == 1) {
              c.bias = c.lens = c.h0 = true;
              c.c0 = c.peep = c.Lstm();
            } else if (variant == 2) {
              c.clip = 0.7f;
              c.bias = true;
              if (c.op == "RNN") {
                c.acts = {"ScaledTanh"};
                c.alpha = {0.8f};
                c.beta = {1.3f};
                if (bi) {
                  c.acts.push_back("LeakyRelu");
                  c.alpha.push_back(0.2f);
                }
              } else if (c.op == "GRU") {
                c.acts = {"HardSigmoid", "Softsign"};
                c.alpha = {0.3f};
                c.beta = {0.45f};
                if (bi) {
                  c.acts.insert(c.acts.end(), {"Sigmoid", "Elu"});
                  c.alpha.push_back(0.7f);
                }
              } else {
                c.acts = {"HardSigmoid", "Affine", "ThresholdedRelu"};
                c.alpha = {0.25f, 0.9f, 0.1f};
                c.beta = {0.55f, 0.05f};
                if (bi) c.acts.insert(c.acts.end(), {"Sigmoid", "Tanh", "Softplus"});
              }
            } else if (variant == 3) {
              c.bias = c.h0 = true;
              if (c.op == "RNN") c.acts = {"Relu"};
              if (c.op == "GRU") {
                c.lbr = 1;
                c.acts = {"Sigmoid", "LeakyRelu"};  // alpha defaults to 0.01
              }
              if (c.op == "LSTM") {
                c.input_forget = 1;
                c.acts = {"Sigmoid", "Elu", "Tanh"};  // alpha defaults to 1
              }
            }
            Check(c);
            if (HasFatalFailure()) return;
          }
}

// GRU's linear_before_reset and LSTM's input_forget with every optional
// input, bidirectional, batch-major.
TEST(OnnxRnn, CellFlagsWithEveryInput) {
  for (const char* op : {"GRU", "LSTM"}) {
    Spec c;
    c.op = op;
    c.direction = "bidirectional";
    c.layout = 1;
    c.B = 3;
    c.bias = c.lens = c.h0 = true;
    c.c0 = c.peep = c.Lstm();
    c.lbr = c.op == "GRU";
    c.input_forget = c.Lstm();
    Check(c);
  }
}

// One graph for any sequence length: the length is X's symbolic dim, bound
// at run time; 10,000 steps run with the same few nodes as 10.
TEST(OnnxRnn, SymbolicSequenceOfTenThousandSteps) {
  for (const char* op : {"LSTM", "GRU"}) {
    Spec c;
    c.op = op;
    c.declare_shapes = true;
    c.B = 2;
    c.I = 4;
    c.H = 8;
    c.bias = true;
    ModelBuilder mb;
    Model m(mb.Build(c, InputNames(c), OutputNames(c)));
    ASSERT_EQ(m.error, "");
    int32_t nodes = grt_graph_num_nodes(m.g);
    EXPECT_LT(nodes, 16);
    for (int steps : {10, 10000}) {
      c.S = steps;
      SCOPED_TRACE(c.Name());
      Data d = MakeData(c, 99);
      std::vector<grt_tensor*> out;
      ASSERT_EQ(RunModel(&m, c, d, &out), "");
      Outputs want = Reference(c, d);
      // Sequence lengths differ only at run time: the graph is the same.
      EXPECT_EQ(grt_graph_num_nodes(m.g), nodes);
      Expect("Y_h", out[1], want.yh, {1, c.B, c.H}, 1e-4);
      Expect("Y", out[0], want.y, {c.S, 1, c.B, c.H}, 1e-4);
      for (grt_tensor* t : out) grt_tensor_free(t);
    }
  }
}

// A long recurrence stops between steps once its run's deadline passes:
// DEADLINE_EXCEEDED, long before the whole sequence would have run.
TEST(OnnxRnn, ADeadlineStopsTheRecurrenceBetweenSteps) {
  Spec c;
  c.op = "GRU";
  c.S = 40000;
  c.I = 4;
  c.H = 32;
  ModelBuilder mb;
  Model m(mb.Build(c, InputNames(c), OutputNames(c)));
  ASSERT_EQ(m.error, "");
  Data d = MakeData(c, 11);
  std::vector<grt_tensor*> out;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(RunModel(&m, c, d, &out), "");
  double full = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_run_options* ro = nullptr;
  ASSERT_EQ(Message(grt_run_options_new(&ro)), "");
  int64_t ms = (int64_t)(full * 1000 / 20);
  ASSERT_EQ(Message(grt_run_options_set_timeout_ms(ro, ms > 0 ? ms : 1)), "");
  t0 = std::chrono::steady_clock::now();
  grt_code code = GRT_OK;
  std::string msg = RunModel(&m, c, d, &out, ro, &code);
  double stopped = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(code, GRT_DEADLINE_EXCEEDED) << msg;
  EXPECT_EQ(out[0], nullptr);
  EXPECT_LT(stopped, 0.5 * full) << "deadline run " << stopped << " s, full run " << full << " s";
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_run_options_free(ro);
}

// ---- bad input -------------------------------------------------------------

TEST(OnnxRnn, SequenceLensOutOfRangeIsRefusedNamingTheNode) {
  Spec c;
  c.B = 3;
  c.lens = true;
  ModelBuilder mb;
  Model m(mb.Build(c, InputNames(c), OutputNames(c)));
  ASSERT_EQ(m.error, "");
  for (int32_t bad : {c.S + 1, -1}) {
    Data d = MakeData(c, 3);
    d.lens[1] = bad;
    std::vector<grt_tensor*> out;
    std::string msg = RunModel(&m, c, d, &out);
    EXPECT_NE(msg.find("'Y' (_LSTM)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sequence_lens[1] is " + std::to_string(bad)), std::string::npos) << msg;
    for (grt_tensor* t : out) grt_tensor_free(t);
  }
}

TEST(OnnxRnn, WrongShapesFedAreRefusedNamingTheNodeAndInput) {
  Spec c;
  c.op = "GRU";
  c.B = 2;
  c.h0 = true;
  ModelBuilder mb;
  Model m(mb.Build(c, InputNames(c), OutputNames(c)));
  ASSERT_EQ(m.error, "");
  struct Bad {
    const char* what;
    void (*mutate)(Spec*, Data*);
    const char* want;
  };
  const Bad cases[] = {
      // W for input size 2 while X has 3.
      {"W's input size", [](Spec* s, Data* d) { d->w.resize(d->w.size() / 3 * 2); },
       "input W has 2 in dimension 2; X's input size is 3"},
      // R with 5 columns for hidden_size 4.
      {"R's columns", [](Spec* s, Data* d) { d->r.resize(d->r.size() / 4 * 5); },
       "input R has 5 in dimension 2; hidden_size is 4"},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.what);
    Spec s = c;
    Data d = MakeData(s, 5);
    b.mutate(&s, &d);
    std::vector<grt_tensor*> out;
    std::string msg = RunModel(&m, s, d, &out);
    EXPECT_NE(msg.find("'Y' (_GRU)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(b.want), std::string::npos) << msg;
    for (grt_tensor* t : out) grt_tensor_free(t);
  }
}

// Faults visible in the model itself fail the import, naming the node.
TEST(OnnxRnn, BadAttributesAndDeclaredShapesFailTheImport) {
  struct Bad {
    const char* what;
    void (*edit)(Spec*, ModelBuilder*);
    const char* want;
  };
  const Bad cases[] = {
      {"unknown activation",
       [](Spec* c, ModelBuilder*) {
         c->acts = {"Sigmoid", "Swish", "Tanh"};
       },
       "unknown function 'Swish'"},
      {"activation count",
       [](Spec* c, ModelBuilder*) {
         c->acts = {"Sigmoid", "Tanh"};
       },
       "lists 2 functions"},
      {"too many alphas",
       [](Spec* c, ModelBuilder*) {
         c->acts = {"Sigmoid", "Tanh", "Tanh"};
         c->alpha = {0.5f};
       },
       "'activation_alpha'"},
      {"negative clip", [](Spec* c, ModelBuilder*) { c->clip = -1.0f; }, "'clip' is -1"},
      {"direction", [](Spec* c, ModelBuilder*) { c->direction = "sideways"; },
       "'direction' is 'sideways'"},
      {"input_forget 2", [](Spec*, ModelBuilder* mb) { mb->AddInt("input_forget", 2); },
       "'input_forget' is 2"},
      {"R declared for another hidden size",
       [](Spec*, ModelBuilder* mb) {
         mb->Declare("R", {"1", "12", "3"});
       },
       "input R has 12 in dimension 1"},
      {"initial_h declared with 2 directions",
       [](Spec* c, ModelBuilder* mb) {
         c->h0 = true;
         mb->Declare("initial_h", {"2", "1", "4"});
       },
       "input initial_h has 2 in dimension 0; the number of directions is 1"},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.what);
    Spec c;
    ModelBuilder mb;
    b.edit(&c, &mb);
    Model m(mb.Build(c, InputNames(c), OutputNames(c)));
    EXPECT_NE(m.error.find("node 'cell' (LSTM)"), std::string::npos) << m.error;
    EXPECT_NE(m.error.find(b.want), std::string::npos) << m.error;
  }
}

}  // namespace
