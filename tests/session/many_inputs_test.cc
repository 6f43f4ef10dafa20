// A kernel with more than 64 inputs (the executor borrows the first 64
// from their slots and takes references to the rest, executor.c
// run_kernel): every reference it took is given back. An AddN of 100 fed
// values left the 36 past the 64th referenced (leaked) until this test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "base/tensor.h"
}

namespace {

std::string Msg(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

TEST(ManyInputs, EveryReferenceIsGivenBack) {
  for (int n : {63, 64, 65, 100, 130}) {
    SCOPED_TRACE(n);
    std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
    std::string inputs;
    for (int i = 0; i < n; i++) {
      json += R"({"name":"p)" + std::to_string(i) +
              R"(","op":"Placeholder","attrs":{"dtype":"float32","shape":[]}},)";
      inputs += (i ? ",\"p" : "\"p") + std::to_string(i) + "\"";
    }
    json += R"({"name":"sum","op":"AddN","inputs":[)" + inputs + R"(],"attrs":{"T":"float32"}}]})";
    grt_graph* g = nullptr;
    ASSERT_EQ(Msg(grt_graph_from_json(json.data(), json.size(), &g)), "");
    grt_session* s = nullptr;
    ASSERT_EQ(Msg(grt_session_new(g, nullptr, &s)), "");
    std::vector<grt_tensor*> values(n);
    std::vector<std::string> names(n);
    std::vector<grt_feed> feeds(n);
    for (int i = 0; i < n; i++) {
      ASSERT_EQ(Msg(grt_tensor_new(GRT_FLOAT32, 0, nullptr, &values[i])), "");
      *static_cast<float*>(grt_tensor_data(values[i])) = static_cast<float>(i);
      names[i] = "p" + std::to_string(i);
      feeds[i] = {names[i].c_str(), values[i]};
    }
    const char* fetch = "sum";
    for (int run = 0; run < 2; run++) {
      grt_tensor* out = nullptr;
      ASSERT_EQ(Msg(grt_session_run(s, feeds.data(), n, &fetch, 1, nullptr, 0, &out, nullptr)), "");
      EXPECT_EQ(*static_cast<const float*>(grt_tensor_data(out)), n * (n - 1) / 2.0f);
      grt_tensor_free(out);
    }
    // The caller's own reference is all that is left of each fed value.
    for (int i = 0; i < n; i++)
      EXPECT_EQ(__atomic_load_n(&values[i]->refs, __ATOMIC_ACQUIRE), 1) << "input " << i;
    for (grt_tensor* t : values) grt_tensor_free(t);
    grt_session_free(s);
    grt_graph_free(g);
  }
}

}  // namespace
