/* Recording a step as a CUDA graph (grt_device_ops' capture hooks): stream
 * capture on the compute stream in relaxed mode (the BFC allocator may
 * still cudaMalloc a region while recording, which relaxed mode allows,
 * and the executor's threads queue work from any thread); the copy streams
 * join through the executor's events. The graph is instantiated once and
 * launched on the compute stream for each replay.
 *
 * Checked on an H200 by the GPU suite
 * (tests/gpu/run_gpu_suite.sh; logs in tests/gpu/runs). */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

struct grt_captured {
  cudaGraphExec_t exec;
};

/* Kernels whose launch does more than queue work on the compute stream. */
static const struct {
  const char* op;
  const char* why;
} kNotRecorded[] = {
    {"GatherV2", "synchronises its stream to check indices"},
    {"GatherNd", "synchronises its stream to check indices"},
    {"TensorScatterUpdate", "synchronises its stream to check indices"},
    {"TensorScatterAdd", "synchronises its stream to check indices"},
    {"TensorScatterMax", "synchronises its stream to check indices"},
    {"TensorScatterMin", "synchronises its stream to check indices"},
    {"ReverseSequence", "synchronises its stream to check seq_lengths"},
    {"Where", "synchronises its stream to count its output"},
    {"Pow", "reads int64 exponents back to the host"},
    {"RandomUniform", "advances its random counter on the host at each call"},
    {"RandomStandardNormal", "advances its random counter on the host at each call"},
    {"TruncatedNormal", "advances its random counter on the host at each call"},
    {"NcclAllReduce", "runs only as a group across devices"},
};

bool grt_cuda_capturable(grt_device* d, const grt_op_kernel* k, const char** why) {
  for (size_t i = 0; i < sizeof kNotRecorded / sizeof kNotRecorded[0]; i++)
    if (strcmp(k->op, kNotRecorded[i].op) == 0) {
      *why = kNotRecorded[i].why;
      return false;
    }
  return true;
}

static cudaStream_t compute_of(grt_device* gd) {
  return grt_cuda_stream(gd->streams[GRT_STREAM_COMPUTE]);
}

grt_status* grt_cuda_capture_begin(grt_device* gd) {
  grt_status* st = grt_cuda_error(cudaSetDevice(((cuda_device*)gd)->physical), "cudaSetDevice");
  if (st) return st;
  return grt_cuda_error(cudaStreamBeginCapture(compute_of(gd), cudaStreamCaptureModeRelaxed),
                        "cudaStreamBeginCapture");
}

grt_status* grt_cuda_capture_end(grt_device* gd, grt_captured** out) {
  *out = NULL;
  cudaSetDevice(((cuda_device*)gd)->physical);
  cudaGraph_t graph = NULL;
  grt_status* st =
      grt_cuda_error(cudaStreamEndCapture(compute_of(gd), &graph), "cudaStreamEndCapture");
  grt_captured* g = NULL;
  if (!st && !(g = calloc(1, sizeof *g)))
    st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory recording a step on %s", gd->name);
  if (!st) st = grt_cuda_error(cudaGraphInstantiate(&g->exec, graph, 0), "cudaGraphInstantiate");
  if (graph) cudaGraphDestroy(graph);
  if (st) {
    cudaGetLastError(); /* a failed capture must not stick to later launches */
    free(g);
    return st;
  }
  *out = g;
  return NULL;
}

grt_status* grt_cuda_replay(grt_device* gd, grt_captured* g) {
  grt_status* st = grt_cuda_error(cudaSetDevice(((cuda_device*)gd)->physical), "cudaSetDevice");
  return st ? st : grt_cuda_error(cudaGraphLaunch(g->exec, compute_of(gd)), "cudaGraphLaunch");
}

void grt_cuda_captured_free(grt_device* gd, grt_captured* g) {
  if (!g) return;
  cudaSetDevice(((cuda_device*)gd)->physical);
  cudaGraphExecDestroy(g->exec);
  free(g);
}
