// ONNX models written as C++ data in a test and serialized with protobuf-c
// (Debian's onnx.pb-c): a graph's inputs, initializers, nodes and outputs,
// each node's attributes of any kind, initializers as typed fields or raw
// bytes. For tables of small models, one line each, where a .textproto file
// per case would be a hundred files.
#ifndef GRT_TESTS_INTERCHANGE_ONNX_BUILDER_H_
#define GRT_TESTS_INTERCHANGE_ONNX_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

extern "C" {
#include "onnx.pb-c.h"
}

namespace onnxb {

// ONNX's element types (TensorProto.DataType).
enum Elem {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBfloat16 = 16,
};

// An attribute: the kind decides which member is written.
struct Attr {
  std::string name;
  Onnx__AttributeProto__AttributeType type;
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
};
inline Attr I(const std::string& n, int64_t v) {
  Attr a{n, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT};
  a.i = v;
  return a;
}
inline Attr F(const std::string& n, float v) {
  Attr a{n, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT};
  a.f = v;
  return a;
}
inline Attr S(const std::string& n, const std::string& v) {
  Attr a{n, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING};
  a.s = v;
  return a;
}
inline Attr Is(const std::string& n, std::vector<int64_t> v) {
  Attr a{n, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS};
  a.ints = v;
  return a;
}
inline Attr Fs(const std::string& n, std::vector<float> v) {
  Attr a{n, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS};
  a.floats = v;
  return a;
}
inline Attr Ss(const std::string& n, std::vector<std::string> v) {
  Attr a{n, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS};
  a.strings = v;
  return a;
}

// A value's declared type: dims -1 are symbolic ("N"); ranked false
// declares no shape at all.
struct Value {
  std::string name;
  int elem;
  std::vector<int64_t> dims;
  bool ranked = true;
};

// An initializer: int64s, floats or doubles in their typed field, or raw
// little-endian bytes.
struct Init {
  std::string name;
  int elem;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::string raw;
  bool has_raw = false;
};

struct Node {
  std::string op;
  std::vector<std::string> inputs, outputs;
  std::vector<Attr> attrs;
  std::string name;  // "" : "n"
};

struct Model {
  int64_t opset = 13;
  std::vector<Value> inputs, outputs;
  std::vector<Init> inits;
  std::vector<Node> nodes;

  Model& Opset(int64_t v) {
    opset = v;
    return *this;
  }
  Model& In(const std::string& n, int elem, std::vector<int64_t> dims, bool ranked = true) {
    inputs.push_back({n, elem, dims, ranked});
    return *this;
  }
  Model& Out(const std::string& n, int elem = kFloat) {
    outputs.push_back({n, elem, {}, false});
    return *this;
  }
  Model& Ints(const std::string& n, int elem, std::vector<int64_t> dims, std::vector<int64_t> v) {
    Init t{n, elem, dims};
    t.ints = v;
    inits.push_back(t);
    return *this;
  }
  Model& Floats(const std::string& n, std::vector<int64_t> dims, std::vector<float> v) {
    Init t{n, kFloat, dims};
    t.floats = v;
    inits.push_back(t);
    return *this;
  }
  Model& Raw(const std::string& n, int elem, std::vector<int64_t> dims, const std::string& bytes) {
    Init t{n, elem, dims};
    t.raw = bytes;
    t.has_raw = true;
    inits.push_back(t);
    return *this;
  }
  Model& Op(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
            std::vector<Attr> attrs = {}, const std::string& name = "n") {
    nodes.push_back({op, in, out, attrs, name});
    return *this;
  }

  std::string Bytes() const {
    Arena a;
    Onnx__GraphProto* g = a.New<Onnx__GraphProto>();
    onnx__graph_proto__init(g);
    g->name = a.Str("g");
    std::vector<Onnx__NodeProto*> nodes_p;
    for (const Node& n : nodes) nodes_p.push_back(a.MakeNode(n));
    g->n_node = nodes_p.size();
    g->node = a.Keep(nodes_p);
    std::vector<Onnx__ValueInfoProto*> ins, outs;
    for (const Value& v : inputs) ins.push_back(a.MakeValue(v));
    for (const Value& v : outputs) outs.push_back(a.MakeValue(v));
    g->n_input = ins.size();
    g->input = a.Keep(ins);
    g->n_output = outs.size();
    g->output = a.Keep(outs);
    std::vector<Onnx__TensorProto*> inits_p;
    for (const Init& t : inits) inits_p.push_back(a.MakeTensor(t));
    g->n_initializer = inits_p.size();
    g->initializer = a.Keep(inits_p);
    auto* opset_p = a.New<Onnx__OperatorSetIdProto>();
    onnx__operator_set_id_proto__init(opset_p);
    opset_p->domain = a.Str("");
    opset_p->has_version = 1;
    opset_p->version = opset;
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.n_opset_import = 1;
    m.opset_import = a.Keep(std::vector<Onnx__OperatorSetIdProto*>{opset_p});
    m.graph = g;
    std::string out(onnx__model_proto__get_packed_size(&m), '\0');
    onnx__model_proto__pack(&m, reinterpret_cast<uint8_t*>(&out[0]));
    return out;
  }

 private:
  // The protobuf-c structures' storage while they are packed.
  struct Arena {
    std::deque<std::string> blocks;
    void* Raw(size_t n) {
      blocks.emplace_back(n + 8, '\0');
      return &blocks.back()[0];
    }
    template <typename T>
    T* New() {
      return static_cast<T*>(Raw(sizeof(T)));
    }
    template <typename T>
    T** Keep(const std::vector<T*>& v) {
      T** p = static_cast<T**>(Raw(v.size() * sizeof(T*)));
      for (size_t i = 0; i < v.size(); i++) p[i] = v[i];
      return p;
    }
    char* Str(const std::string& s) {
      char* p = static_cast<char*>(Raw(s.size() + 1));
      memcpy(p, s.data(), s.size());
      return p;
    }
    template <typename T>
    T* Copy(const std::vector<T>& v) {
      T* p = static_cast<T*>(Raw(v.size() * sizeof(T)));
      if (!v.empty()) memcpy(p, v.data(), v.size() * sizeof(T));
      return p;
    }
    ProtobufCBinaryData Bin(const std::string& s) {
      ProtobufCBinaryData b;
      b.len = s.size();
      b.data = reinterpret_cast<uint8_t*>(Str(s));
      return b;
    }
    Onnx__AttributeProto* MakeAttr(const Attr& x) {
      auto* a = New<Onnx__AttributeProto>();
      onnx__attribute_proto__init(a);
      a->name = Str(x.name);
      a->has_type = 1;
      a->type = x.type;
      switch (x.type) {
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
          a->has_i = 1;
          a->i = x.i;
          break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
          a->has_f = 1;
          a->f = x.f;
          break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
          a->has_s = 1;
          a->s = Bin(x.s);
          break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
          a->n_ints = x.ints.size();
          a->ints = Copy(x.ints);
          break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
          a->n_floats = x.floats.size();
          a->floats = Copy(x.floats);
          break;
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: {
          std::vector<ProtobufCBinaryData> b;
          for (auto& s : x.strings) b.push_back(Bin(s));
          a->n_strings = b.size();
          a->strings = Copy(b);
          break;
        }
        default:
          break;
      }
      return a;
    }
    char** Strs(const std::vector<std::string>& v) {
      std::vector<char*> p;
      for (auto& s : v) p.push_back(Str(s));
      return Keep(p);
    }
    Onnx__NodeProto* MakeNode(const Node& n) {
      auto* p = New<Onnx__NodeProto>();
      onnx__node_proto__init(p);
      p->op_type = Str(n.op);
      p->name = Str(n.name);
      p->n_input = n.inputs.size();
      p->input = Strs(n.inputs);
      p->n_output = n.outputs.size();
      p->output = Strs(n.outputs);
      std::vector<Onnx__AttributeProto*> attrs;
      for (const Attr& x : n.attrs) attrs.push_back(MakeAttr(x));
      p->n_attribute = attrs.size();
      p->attribute = Keep(attrs);
      return p;
    }
    Onnx__ValueInfoProto* MakeValue(const Value& v) {
      auto* tensor = New<Onnx__TypeProto__Tensor>();
      onnx__type_proto__tensor__init(tensor);
      tensor->has_elem_type = 1;
      tensor->elem_type = v.elem;
      if (v.ranked) {
        auto* shape = New<Onnx__TensorShapeProto>();
        onnx__tensor_shape_proto__init(shape);
        std::vector<Onnx__TensorShapeProto__Dimension*> ds;
        for (int64_t d : v.dims) {
          auto* dim = New<Onnx__TensorShapeProto__Dimension>();
          onnx__tensor_shape_proto__dimension__init(dim);
          if (d >= 0) {
            dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dim->dim_value = d;
          } else {
            dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dim->dim_param = Str("N");
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
      vi->name = Str(v.name);
      vi->type = type;
      return vi;
    }
    Onnx__TensorProto* MakeTensor(const Init& t) {
      auto* p = New<Onnx__TensorProto>();
      onnx__tensor_proto__init(p);
      p->name = Str(t.name);
      p->has_data_type = 1;
      p->data_type = t.elem;
      p->n_dims = t.dims.size();
      p->dims = Copy(t.dims);
      if (t.has_raw) {
        p->has_raw_data = 1;
        p->raw_data = Bin(t.raw);
      } else if (!t.floats.empty()) {
        p->n_float_data = t.floats.size();
        p->float_data = Copy(t.floats);
      } else if (!t.doubles.empty()) {
        p->n_double_data = t.doubles.size();
        p->double_data = Copy(t.doubles);
      } else if (t.elem == kInt64) {
        p->n_int64_data = t.ints.size();
        p->int64_data = Copy(t.ints);
      } else if (t.elem == kUint32 || t.elem == kUint64) {
        std::vector<uint64_t> u(t.ints.begin(), t.ints.end());
        p->n_uint64_data = u.size();
        p->uint64_data = Copy(u);
      } else {
        std::vector<int32_t> v(t.ints.begin(), t.ints.end());
        p->n_int32_data = v.size();
        p->int32_data = Copy(v);
      }
      return p;
    }
  };
};

}  // namespace onnxb

#endif  // GRT_TESTS_INTERCHANGE_ONNX_BUILDER_H_
