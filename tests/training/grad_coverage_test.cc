// Every registered op has a gradient row (a function, or marked not
// differentiable as TensorFlow marks it), except the ops listed here whose
// gradient is not written yet (docs/gradients.md says why). A new op family
// fails here until its gradient table is written and its op table points
// at it (GRT_OP_TABLE_WITH_GRADS).
#include <gtest/gtest.h>

#include <set>
#include <string>

extern "C" {
#include "ops/grad.h"
#include "ops/op_def.h"
}

namespace {

const std::set<std::string> kNoGradientYet = {
    "Prod",          // needs Cumprod
    "StridedSlice",  // needs StridedSliceGrad
    "BiasAddGrad",   // second order
    "ApplyGradientDescent",
    "ApplyMomentum",
    "ApplyAdam",  // TensorFlow has none
    // the convolution family's backprops (second order) and the depthwise
    // convolution, whose backprop ops grt does not have
    "Conv2DBackpropInput",
    "Conv2DBackpropFilter",
    "MaxPoolGrad",
    "AvgPoolGrad",
    "LRNGrad",
    "FusedBatchNormGradV3",
    "DepthwiseConv2dNative",
    "Conv3DBackpropInputV2",
    "Conv3DBackpropFilterV2",
    "MaxPool3DGrad",
    "AvgPool3DGrad",
    "_DilatedMaxPool",  // grt's own, for ONNX import (inference)
    // made by the session's rewrite after gradients exist (as TensorFlow's
    // remapper does); TensorFlow registers no gradient for them either
    "_FusedMatMul",
    "_FusedConv2D",
    "_FusedDepthwiseConv2dNative",
    // made by the optimizer's expand_depthwise pass (inference only)
    "_FusedExpandDepthwise",
    // made by the optimizer's sequence fusions (inference only)
    "_LayerNorm",
    "_Gelu",
    "_ScaledDotProductAttention",
    "_PackedQKVAttention",
    // the ONNX importer's fused recurrent ops (ops/defs_rnn.c: inference only)
    "_RNN",
    "_GRU",
    "_LSTM",
    "TruncateMod",        // gradient not written yet
    "MatrixDeterminant",  // needs MatrixInverse
    // indexing ops added for ONNX import: TensorFlow's gradients need
    // UnsortedSegmentSum (GatherV2), ScatterNd (GatherNd), MirrorPadGrad,
    // or are not written yet (Cumsum, TopKV2, Einsum, Pad, PadV2, TensorScatter*)
    "GatherV2",
    "GatherNd",
    "TensorScatterUpdate",
    "TensorScatterAdd",
    "TensorScatterMax",
    "TensorScatterMin",
    "Cumsum",
    "TopKV2",
    "Einsum",
    "Pad",
    "PadV2",
    "MirrorPad",
};

TEST(GradCoverage, EveryOpHasAGradientRowOrIsListed) {
  ASSERT_EQ(grt_op_registry_status(), nullptr);
  ASSERT_GT(grt_op_count(), 0);
  for (int32_t i = 0; i < grt_op_count(); i++) {
    const grt_op_def* def = grt_op_at(i);
    bool listed = kNoGradientYet.count(def->name) > 0;
    if (listed)
      EXPECT_EQ(def->grad, nullptr) << def->name << " has a gradient now: unlist it";
    else
      EXPECT_NE(def->grad, nullptr)
          << def->name << " has no gradient row: add one to its family's ops/grad_*.c table";
  }
}

TEST(GradCoverage, RowsNameRegisteredOpsOnce) {
  for (const grt_grad_table* t :
       {&grt_grads_array, &grt_grads_math, &grt_grads_nn, &grt_grads_state, &grt_grads_random,
        &grt_grads_conv, &grt_grads_index, &grt_grads_math_more, &grt_grads_array_more}) {
    std::set<std::string> seen;
    for (int32_t i = 0; i < t->n; i++) {
      EXPECT_NE(grt_op_lookup(t->rows[i].op), nullptr) << t->rows[i].op << " is not an op";
      EXPECT_TRUE(seen.insert(t->rows[i].op).second) << t->rows[i].op << " twice";
    }
  }
}

}  // namespace
