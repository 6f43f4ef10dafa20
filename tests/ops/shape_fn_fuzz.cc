// Fuzz target for every shape function: the input's bytes pick an op, its
// attrs (sometimes of the wrong type, sometimes missing), input shapes and
// constant inputs, then the op's signature and shape function run. Whatever
// the input, they must return (an error or shapes of rank <= 8 with dims
// >= -1) without crashing or reading out of bounds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "grt/graph.h"
#include "ops/graph.h"
#include "ops/op_def.h"
#include "base/dtype.h"
#include "base/status.h"
}

namespace {

// Bytes first; once they run out a generator seeded by them goes on, so
// short inputs still reach deep cases.
class Source {
 public:
  Source(const uint8_t* d, size_t n) : d_(d), n_(n), state_(0x9e3779b97f4a7c15ull ^ n) {
    for (size_t i = 0; i < n; i++) state_ = state_ * 1099511628211ull + d[i];
  }
  int64_t Below(int64_t n) {  // in [0, n)
    if (n <= 1) return 0;
    if (pos_ < n_) return d_[pos_++] % n;
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<int64_t>((z ^ (z >> 31)) % static_cast<uint64_t>(n));
  }
  int64_t In(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }
  // From the generator only, so any change to the input changes it.
  int64_t Hashed(int64_t n) {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_ ^ (state_ >> 29);
    return static_cast<int64_t>((z * 0xbf58476d1ce4e5b9ull >> 17) % static_cast<uint64_t>(n));
  }

 private:
  const uint8_t* d_;
  size_t n_, pos_ = 0;
  uint64_t state_;
};

grt_shape RandomShape(Source& s) {
  grt_shape sh;
  sh.rank = static_cast<int32_t>(s.In(-1, GRT_MAX_RANK));
  for (int32_t i = 0; i < GRT_MAX_RANK; i++) sh.dims[i] = s.In(-1, 6);
  return sh;
}

grt_dtype RandomType(Source& s, uint32_t allowed) {
  for (int tries = 0; tries < 16; tries++) {
    grt_dtype t = static_cast<grt_dtype>(s.In(1, GRT_NUM_DTYPES - 1));
    if (!allowed || (allowed & grt_dtype_bit(t))) return t;
  }
  for (int t = 1; t < GRT_NUM_DTYPES; t++)
    if (allowed & grt_dtype_bit(static_cast<grt_dtype>(t))) return static_cast<grt_dtype>(t);
  return GRT_FLOAT32;
}

void Drop(grt_status* s) { grt_status_free(s); }

void SetAttr(Source& s, grt_graph* g, const grt_attr_def& a) {
  int64_t how = s.Below(8);
  if (how == 0) return;  // leave unset: default or missing
  if (how == 1) {        // the wrong type
    if (a.type == GRT_ATTR_INT)
      Drop(grt_graph_set_attr_bool(g, 0, a.name, true));
    else
      Drop(grt_graph_set_attr_int(g, 0, a.name, s.In(-3, 3)));
    return;
  }
  switch (a.type) {
    case GRT_ATTR_INT:
      Drop(grt_graph_set_attr_int(g, 0, a.name, s.In(-3, 9)));
      break;
    case GRT_ATTR_FLOAT:
      Drop(grt_graph_set_attr_float(g, 0, a.name, 0.5f));
      break;
    case GRT_ATTR_BOOL:
      Drop(grt_graph_set_attr_bool(g, 0, a.name, s.Below(2) != 0));
      break;
    case GRT_ATTR_STRING: {
      static const char* kStrings[] = {"NHWC", "NCHW", "", "bad"};
      Drop(grt_graph_set_attr_string(g, 0, a.name, kStrings[s.Below(4)]));
      break;
    }
    case GRT_ATTR_TYPE:
      Drop(grt_graph_set_attr_type(g, 0, a.name, RandomType(s, a.allowed_types)));
      break;
    case GRT_ATTR_SHAPE: {
      grt_shape sh = RandomShape(s);
      Drop(grt_graph_set_attr_shape(g, 0, a.name, sh.rank, sh.dims));
      break;
    }
    case GRT_ATTR_TENSOR: {
      grt_shape sh = RandomShape(s);
      if (sh.rank < 0) sh.rank = 0;
      if (sh.rank > 3) sh.rank = 3;
      for (int32_t d = 0; d < sh.rank; d++)
        if (sh.dims[d] < 0) sh.dims[d] = 0;
      grt_tensor* t = nullptr;
      grt_status* st = grt_tensor_new(RandomType(s, 0), sh.rank, sh.dims, &t);
      if (!st) Drop(grt_graph_set_attr_tensor(g, 0, a.name, t));
      grt_status_free(st);
      grt_tensor_free(t);
      break;
    }
    case GRT_ATTR_LIST_INT: {
      std::vector<int64_t> v(static_cast<size_t>(s.Below(5)));
      for (int64_t& x : v) x = s.In(-4, 4);
      Drop(grt_graph_set_attr_int_list(g, 0, a.name, v.data(), static_cast<int32_t>(v.size())));
      break;
    }
    default:
      break;
  }
}

void Check(bool ok, const char* op, const char* what) {
  if (ok) return;
  fprintf(stderr, "shape_fn_fuzz: %s: %s\n", op, what);
  abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Source s(data, size);
  int32_t count = grt_op_count();
  if (count <= 0) return 0;
  const grt_op_def* def = grt_op_at(static_cast<int32_t>(s.Hashed(count)));
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_new(&g);
  if (st) {
    grt_status_free(st);
    return 0;
  }
  st = grt_graph_add_node(g, "n", def->name, nullptr);
  if (st) {
    grt_status_free(st);
    grt_graph_free(g);
    return 0;
  }
  for (int32_t i = 0; i < def->n_attrs; i++) SetAttr(s, g, def->attrs[i]);
  grt_node* n = &g->nodes[0];
  n->def = def;
  st = grt_node_compute_signature(g, n, def);
  if (st || !def->shape_fn) {
    grt_status_free(st);
    grt_graph_free(g);
    return 0;
  }
  int32_t ni = n->sig.n_inputs;
  std::vector<grt_shape> shapes(static_cast<size_t>(ni) + 1);
  std::vector<grt_dtype> types(static_cast<size_t>(ni) + 1);
  std::vector<const grt_tensor*> values(static_cast<size_t>(ni) + 1, nullptr);
  std::vector<grt_tensor*> owned;
  // Inputs mostly share one base shape (or are scalars) so that the paths
  // where shapes agree are reached as often as the error paths.
  grt_shape base = RandomShape(s);
  for (int32_t i = 0; i < ni; i++) {
    types[i] = n->sig.input_types[i];
    switch (s.Below(6)) {
      case 0:
      case 1:
      case 2:
        shapes[i] = base;
        break;
      case 3:
        shapes[i] = grt_shape{};
        break;
      case 4:
        shapes[i] = RandomShape(s);
        break;
      default:
        shapes[i] = base;
        if (base.rank > 0) shapes[i].dims[s.Below(base.rank)] = s.In(-1, 1);
    }
    if (grt_dtype_is_integer(types[i]) && s.Below(3) != 0) {
      int64_t len = s.Below(10);
      bool scalar = s.Below(3) == 0;
      grt_tensor* t = nullptr;
      grt_status* st_t = grt_tensor_new(types[i], scalar ? 0 : 1, &len, &t);
      if (st_t) {
        grt_status_free(st_t);
        continue;
      }
      int64_t count_v = scalar ? 1 : len;
      for (int64_t k = 0; k < count_v; k++)
        grt_dtype_store_int(types[i], grt_tensor_data(t), k, s.In(-3, 10));
      owned.push_back(t);
      values[i] = t;
      shapes[i].rank = scalar ? 0 : 1;
      shapes[i].dims[0] = len;
    }
  }
  grt_shape_ctx ctx = {n,
                       def,
                       ni,
                       shapes.data(),
                       types.data(),
                       values.data(),
                       n->sig.n_outputs,
                       n->sig.output_shapes};
  st = def->shape_fn(&ctx);
  if (st) {
    Check(grt_status_message(st)[0] != '\0', def->name, "an error without a message");
    grt_status_free(st);
  } else {
    for (int32_t k = 0; k < n->sig.n_outputs; k++) {
      const grt_shape& o = n->sig.output_shapes[k];
      Check(o.rank >= -1 && o.rank <= GRT_MAX_RANK, def->name, "output rank out of range");
      for (int32_t d = 0; d < o.rank; d++) Check(o.dims[d] >= -1, def->name, "output dim below -1");
    }
  }
  for (grt_tensor* t : owned) grt_tensor_free(t);
  grt_graph_free(g);
  return 0;
}
