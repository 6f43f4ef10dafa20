// The cleanup passes under allocation failure: grt_graph_optimize over a
// graph that gives every pass work (a folded filter Transpose, a shape
// subgraph, twins for CSE, x*1 and a Transpose pair, a NoOp, a view of an
// unknown batch), with each of
// its allocations failing in turn (persistently, then once). Each attempt
// must return (an error, or a graph: a fold whose evaluator ran out of
// memory is skipped) without crashing or leaking (run under ASan).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "opt_test_util.h"

extern "C" {
#include "base/mem.h"
}

namespace {

using namespace grt_opt_test;

void EveryPassHasWork(Graph* g) {
  g->Placeholder("x", {1, 4, 4, 2});
  std::vector<float> w(36);
  for (size_t i = 0; i < w.size(); i++) w[i] = (float)i * 0.1f - 1;
  g->ConstF("w", {2, 2, 3, 3}, w);
  g->ConstI("perm", {4}, {2, 3, 1, 0});
  int32_t t = g->Node("wt", "Transpose", {"w", "perm"});
  g->Type(t, "Tperm", GRT_INT32);
  int32_t c = g->Node("conv", "Conv2D", {"x", "wt"});
  g->Ints(c, "strides", {1, 1, 1, 1});
  g->Str(c, "padding", "SAME");
  int32_t sh = g->Node("shape", "Shape", {"conv"});
  g->Type(sh, "out_type", GRT_INT32);
  g->ConstI("two", {2}, {1, -1});
  g->ConstI("two_again", {2}, {1, -1});  // a twin of "two"
  g->ConstI("zero", {}, {0});
  int32_t sl = g->Node("size", "Size", {"conv"});
  g->Type(sl, "out_type", GRT_INT32);
  int32_t r = g->Node("flat", "Reshape", {"conv", "two"});
  g->Type(r, "Tshape", GRT_INT32);
  int32_t r2 = g->Node("flat2", "Reshape", {"flat", "two_again"});
  g->Type(r2, "Tshape", GRT_INT32);
  g->ConstF("one", {}, {1.0f});
  g->Node("scaled", "Mul", {"flat2", "one"});
  g->Node("a", "Relu", {"scaled"});
  g->Node("b", "Relu", {"scaled"});
  g->Node("sum", "AddV2", {"a", "b"});
  g->ConstI("p10", {2}, {1, 0});
  int32_t t1 = g->Node("t1", "Transpose", {"sum", "p10"});
  g->Type(t1, "Tperm", GRT_INT32);
  int32_t t2 = g->Node("t2", "Transpose", {"t1", "p10"});
  g->Type(t2, "Tperm", GRT_INT32);
  int32_t n = g->Node("after", "NoOp", {}, GRT_FLOAT32, nullptr);
  g->Control(n, "sum");
  int32_t y = g->Node("y", "Neg", {"t2"});
  g->Control(y, "after");
  g->Node("shape_out", "Identity", {"shape"}, GRT_INT32);
  g->Node("size_out", "Identity", {"size"}, GRT_INT32);
  // An unknown batch's view: v [N,6] to [2N,3] (symbolic_shapes).
  g->Placeholder("v", {-1, 6});
  int32_t vs = g->Node("v_shape", "Shape", {"v"});
  g->Type(vs, "out_type", GRT_INT32);
  g->Node("v_n", "GatherV2", {"v_shape", "zero", "zero"}, GRT_INT32, "Tparams");
  g->ConstI("two_s", {}, {2});
  g->Node("v_2n", "Mul", {"v_n", "two_s"}, GRT_INT32);
  g->Node("v_2n_1", "ExpandDims", {"v_2n", "zero"}, GRT_INT32);
  g->ConstI("three", {1}, {3});
  g->Node("v_target", "ConcatV2", {"v_2n_1", "three", "zero"}, GRT_INT32);
  int32_t vr = g->Node("v_view", "Reshape", {"v", "v_target"});
  g->Type(vr, "Tshape", GRT_INT32);
}

TEST(OptimizerAllocFailure, EveryAllocationOfTheCleanupPasses) {
  Graph g;
  EveryPassHasWork(&g);
  grt_graph* out = nullptr;
  char* report = nullptr;
  grt_status* st = grt_graph_validate(g.g());
  ASSERT_EQ(st, nullptr) << Take(st);
  grt_mem_fail_after(-1);
  st = grt_graph_optimize(g.g(), nullptr, &out, &report);
  int64_t count = grt_mem_fail_after(-1);
  ASSERT_EQ(st, nullptr) << Take(st);
  std::string full = report;
  free(report);
  // Every pass did something (the test is only worth its time if so).
  for (const char* pass : {"constant_folding", "arithmetic", "cse", "noop", "symbolic_shapes"})
    EXPECT_EQ(PassLine(full, pass).find(" 0 changes"), std::string::npos) << pass << "\n" << full;
  EXPECT_EQ(CountOp(out, "Transpose"), 0) << full;
  grt_graph_free(out);
  ASSERT_GT(count, 100);
  printf("grt_graph_optimize takes %lld allocations; injecting at n = 0..%lld\n", (long long)count,
         (long long)count);

  int failed = 0;
  for (bool once : {false, true}) {
    for (int64_t n = 0; n <= count; n++) {
      out = nullptr;
      report = nullptr;
      if (once)
        grt_mem_fail_once_after(n);
      else
        grt_mem_fail_after(n);
      st = grt_graph_optimize(g.g(), nullptr, &out, &report);
      grt_mem_fail_after(-1);
      if (st) {
        failed++;
        EXPECT_EQ(out, nullptr);
        grt_status_free(st);
      } else {
        EXPECT_NE(out, nullptr);
      }
      grt_graph_free(out);
      free(report);
    }
  }
  EXPECT_GT(failed, 0);
  printf("%d attempts returned an error, the rest a graph\n", failed);
}

}  // namespace
