// Allocation-failure injection for the training transformations: for a
// small model, count the heap allocations grt_graph_add_train_step takes
// with each optimizer, then redo it once for every n up to that count with
// allocation n+1 failing, persistently (grt_mem_fail_after) and once
// (grt_mem_fail_once_after). Each attempt must succeed or return
// RESOURCE_EXHAUSTED; a failed one must leave the graph as it was (its JSON
// text unchanged); none may crash. Under --config=asan LeakSanitizer checks
// that nothing leaks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

extern "C" {
#include "base/mem.h"
#include "grt/grt.h"
}

namespace {

const char* kModel = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32"}},
  {"name":"w","op":"VariableV2","colocate_with":["x"],"attrs":{"dtype":"float32","shape":[2]}},
  {"name":"w0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2],"values":[1,2]}}},
  {"name":"w/Assign","op":"Assign","inputs":["w","w0"]},
  {"name":"xw","op":"Mul","inputs":["x","w"]},
  {"name":"e","op":"Exp","inputs":["xw"]},
  {"name":"loss","op":"Add","inputs":["e","xw"]},
  {"name":"init","op":"NoOp","inputs":["^w/Assign"]}]})";

std::string Json(grt_graph* g) {
  char* text = nullptr;
  size_t len = 0;
  grt_status* s = grt_graph_to_json(g, &text, &len);
  EXPECT_EQ(s, nullptr);
  grt_status_free(s);
  std::string out = text ? std::string(text, len) : "";
  free(text);
  return out;
}

grt_status* Train(grt_graph* g, const char* optimizer) {
  grt_train_options o = {};
  o.loss = "loss";
  o.colocate_gradients_with_ops = true;
  grt_optimizer_defaults(&o.optimizer, optimizer, 0.1);
  return grt_graph_add_train_step(g, &o);
}

TEST(TrainingAllocFailure, EveryAllocationFailingLeavesTheGraphAsItWas) {
  for (const char* optimizer : {"sgd", "momentum", "adam"}) {
    grt_graph* g = nullptr;
    ASSERT_EQ(grt_graph_from_json(kModel, strlen(kModel), &g), nullptr);
    grt_mem_fail_after(-1);
    grt_status* s = Train(g, optimizer);
    int64_t count = grt_mem_fail_after(-1);
    ASSERT_EQ(s, nullptr) << grt_status_message(s);
    grt_graph_free(g);
    ASSERT_GT(count, 10);
    for (bool once : {false, true}) {
      for (int64_t n = 0; n <= count; n++) {
        SCOPED_TRACE(std::string(optimizer) + (once ? " once" : " persistent") +
                     " n=" + std::to_string(n));
        ASSERT_EQ(grt_graph_from_json(kModel, strlen(kModel), &g), nullptr);
        std::string before = Json(g);
        if (once)
          grt_mem_fail_once_after(n);
        else
          grt_mem_fail_after(n);
        s = Train(g, optimizer);
        grt_mem_fail_after(-1);
        grt_mem_fail_once_after(-1);
        if (s) {
          EXPECT_EQ(grt_status_code(s), GRT_RESOURCE_EXHAUSTED) << grt_status_message(s);
          EXPECT_EQ(Json(g), before);
        } else {
          EXPECT_GE(grt_graph_find_node(g, "train"), 0);
        }
        grt_status_free(s);
        grt_graph_free(g);
      }
    }
  }
}

}  // namespace
