/* Which card each logical GPU is and how it describes itself: plain C with
 * no CUDA calls, so CI tests it (the device fills grt_cuda_card from
 * cudaGetDeviceProperties). */
#ifndef GRT_BACKENDS_CUDA_CUDA_TOPOLOGY_H_
#define GRT_BACKENDS_CUDA_CUDA_TOPOLOGY_H_

#include <stddef.h>
#include <stdint.h>

#include "gpu_options.h"
#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_cuda_card {
  char name[256];      /* "NVIDIA H100 80GB HBM3" */
  char pci_bus_id[32]; /* "0000:1b:00.0" */
  int major, minor;    /* compute capability */
  size_t total_memory;
} grt_cuda_card;

/* Where logical GPU `id` lives. With gpu.virtual_devices (sizes in MiB
 * per logical GPU of each card, as tf.config.set_logical_device_
 * configuration), card id / count holds logical GPU id % count, limited to
 * its size; without, GPU k is card k with the limit 0 (the device takes
 * memory_fraction of the card). */
typedef struct grt_cuda_placement {
  int physical;
  int virtual_index;
  int virtual_count; /* 1 without virtual devices */
  size_t limit;      /* bytes; 0: the card's share */
} grt_cuda_placement;

grt_cuda_placement grt_cuda_virtual_map(int32_t id, const grt_gpu_options* o);

/* Logical GPUs the machine shows for `cards` physical ones. */
int32_t grt_cuda_logical_count(int32_t cards, const grt_gpu_options* o);

/* The memory a device may hold: its virtual size, else memory_fraction of
 * the card's total (rounded down to 1 MiB). */
size_t grt_cuda_memory_limit(const grt_cuda_placement* p, const grt_gpu_options* o,
                             size_t card_total);

/* The limit a device can actually reserve: at most what the card has free
 * now less a headroom of max(256 MiB, 2% of it) for the CUDA context's and
 * cuBLAS's own allocations (as TensorFlow leaves some), in whole MiB. */
size_t grt_cuda_cap_to_free(size_t limit, size_t free_bytes);

/* As TensorFlow's placement log names a GPU: "device: 0, name: NVIDIA H100
 * 80GB HBM3, pci bus id: 0000:1b:00.0, compute capability: 9.0, memory:
 * 1.0 GiB", then ", shares physical GPU 0 (logical 2 of 4)" for a logical
 * GPU. Returns the length snprintf would. */
size_t grt_cuda_describe(const grt_cuda_card* card, const grt_cuda_placement* p, size_t limit,
                         char* buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_CUDA_TOPOLOGY_H_ */
