/* The neural-network family's kernel table (kernels in nn_*.c; Relu and
 * ReluGrad are element-wise and live with those, in elementwise_*.c). */
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/elementwise.h"
#include "backends/cpu/nn.h"

#define K(op, fn) \
  { op, grt_cpu_##fn, NULL, NULL, 0 }

GRT_CPU_KERNEL_TABLE(nn, K("Relu", relu), K("ReluGrad", relu_grad), K("BiasAdd", bias_add),
                     K("BiasAddGrad", bias_add_grad), K("Softmax", softmax),
                     K("SparseSoftmaxCrossEntropyWithLogits", sparse_xent),
                     K("SoftmaxCrossEntropyWithLogits", xent), K("_LayerNorm", layer_norm),
                     K("_Gelu", gelu), K("_ScaledDotProductAttention", attention),
                     K("_PackedQKVAttention", packed_attention), K("_RNN", rnn), K("_GRU", gru),
                     K("_LSTM", lstm));
