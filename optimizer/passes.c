/* The passes, in the order they run. A row's name is its switch (session
 * option `optimizer_off`, `grt run --option optimizer_off=NAME,...`); a name
 * may appear on several rows (cleanups worth running again after a pass
 * that makes work for them), and one switch turns off all of them. */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"

const grt_opt_pass grt_opt_passes[] = {
    {"identity", "Identity nodes (and NoOps) between two nodes of one device removed",
     grt_opt_pass_identity},
    {"constant_folding",
     "nodes of constant inputs (and Shape/Size/Rank of known shapes) made Consts",
     grt_opt_pass_constant_folding},
    {"arithmetic", "x*1, x+0, identity Transposes and Reshapes, inverse pairs removed",
     grt_opt_pass_arithmetic},
    {"cse", "nodes computing the same value (same op, attrs, inputs, device) merged",
     grt_opt_pass_cse},
    {"symbolic_shapes",
     "shape arithmetic around an unknown batch (Shape, Gather, Concat, Select...) made Consts, "
     "and a Reshape to a shape known but for the batch given a -1 there",
     grt_opt_pass_symbolic_shapes},
    {"noop", "NoOps joining few control inputs to few control uses removed", grt_opt_pass_noop},
    /* The convolution chains: batch norms folded, NHWC, fusions. */
    {"bn_fold",
     "inference batch norms and per-channel scale/shift chains after a convolution with a "
     "constant filter folded into the filter and a bias",
     grt_opt_pass_bn_fold},
    {"layout",
     "NCHW convolutions, pools and the element-wise ops between them run in NHWC on device types "
     "that prefer it, with one Transpose in and out of each chain",
     grt_opt_pass_layout},
    {"conv_fusion",
     "Conv2D/DepthwiseConv2dNative + BiasAdd (+ residual Add) (+ activation) as one "
     "_FusedConv2D/_FusedDepthwiseConv2dNative",
     grt_opt_pass_conv_fusion},
    {"stem",
     "a CNN's first convolution (few input channels) reads its NCHW image in place, without the "
     "Transpose to NHWC, on device types with such a kernel",
     grt_opt_pass_stem},
    {"input_scale",
     "a squeeze-excitation block's channel scale (Mul by [N,1,1,C]) taken into the convolution "
     "after it as a scaled filter, on device types with such a kernel",
     grt_opt_pass_input_scale},
    {"channel_mean",
     "a squeeze-excitation block's Mean over H and W computed by the depthwise convolution it "
     "reads, as a second output, on device types with such a kernel",
     grt_opt_pass_channel_mean},
    {"expand_depthwise",
     "an inverted residual block's 1x1 expansion computed inside the depthwise convolution that "
     "reads it, never written whole, on device types with such a kernel",
     grt_opt_pass_expand_depthwise},
    {"depthwise_project",
     "an inverted residual block's 1x1 projection (+ residual) computed inside the fused "
     "expansion and depthwise convolution it reads, on device types with such a kernel",
     grt_opt_pass_depthwise_project},
    /* The sequence models' fusions (vision transformers, transformer encoders). */
    {"layer_norm",
     "Layer normalization spelled out (Mean, Sub, Square, Rsqrt, ...) into _LayerNorm",
     grt_opt_pass_layer_norm},
    {"gelu",
     "GELU's Erf form x*0.5*(1+erf(x/sqrt 2)) and tanh form "
     "x*0.5*(1+tanh(sqrt(2/pi)*(x+0.044715x^3))) into _Gelu",
     grt_opt_pass_gelu},
    {"attention",
     "scaled dot-product attention (MatMul, scale, mask Add, Softmax, MatMul) into "
     "_ScaledDotProductAttention",
     grt_opt_pass_attention},
    {"matmul_fusion",
     "Linear layers: BatchMatMul on 2-D constant weights as one MatMul, a constant bias Add as "
     "BiasAdd, so the session fuses them",
     grt_opt_pass_matmul_fusion},
    /* Again at the end: layout makes Transposes of Consts, fusion leaves
     * shape arithmetic and duplicates behind. */
    {"constant_folding", "(again, after layout and fusion)", grt_opt_pass_constant_folding},
    {"attention_heads",
     "the slices and transposes between a packed q/k/v projection and its attention removed: "
     "_PackedQKVAttention reads the heads in place",
     grt_opt_pass_attention_heads},
    {"arithmetic", "(again, after layout and fusion)", grt_opt_pass_arithmetic},
    {"cse", "(again, after layout and fusion)", grt_opt_pass_cse},
};

#define N_PASSES ((int32_t)(sizeof grt_opt_passes / sizeof grt_opt_passes[0]))

int32_t grt_opt_pass_count(void) { return N_PASSES; }
const char* grt_opt_pass_name(int32_t i) {
  return i >= 0 && i < N_PASSES ? grt_opt_passes[i].name : NULL;
}
const char* grt_opt_pass_doc(int32_t i) {
  return i >= 0 && i < N_PASSES ? grt_opt_passes[i].doc : NULL;
}

uint64_t grt_opt_pass_bit(const char* name) {
  if (!name) return 0;
  if (!strcmp(name, "all")) return ~(uint64_t)0;
  /* The bit of a name is that of its first row, so every row of it shares one. */
  for (int32_t i = 0; i < N_PASSES && i < 64; i++)
    if (!strcmp(grt_opt_passes[i].name, name)) return (uint64_t)1 << i;
  return 0;
}

grt_status* grt_opt_parse_pass_list(const char* list, uint64_t* out) {
  *out = 0;
  const char* p = list ? list : "";
  while (*p) {
    const char* e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char name[64];
    if (len == 0 || len >= sizeof name) {
      return GRT_ERROR(INVALID_ARGUMENT, "malformed optimizer pass list '%s'", list);
    }
    memcpy(name, p, len);
    name[len] = 0;
    uint64_t bit = grt_opt_pass_bit(name);
    if (!bit) {
      char known[512] = "all";
      for (int32_t i = 0; i < N_PASSES; i++) {
        if (grt_opt_pass_bit(grt_opt_passes[i].name) != ((uint64_t)1 << i)) continue;
        strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, grt_opt_passes[i].name, sizeof known - strlen(known) - 1);
      }
      return GRT_ERROR(INVALID_ARGUMENT, "unknown optimizer pass '%s' (known: %s)", name, known);
    }
    *out |= bit;
    p = e ? e + 1 : p + len;
  }
  return NULL;
}
