/* Logical GPUs over physical cards and their descriptions (cuda_topology.h). */
#include "cuda_topology.h"

#include <stdio.h>

grt_cuda_placement grt_cuda_virtual_map(int32_t id, const grt_gpu_options* o) {
  grt_cuda_placement p = {id, 0, 1, 0};
  int n = o ? o->virtual_count : 0;
  if (n > 0) {
    p.physical = id / n;
    p.virtual_index = id % n;
    p.virtual_count = n;
    p.limit = (size_t)o->virtual_mib[p.virtual_index] << 20;
  }
  return p;
}

int32_t grt_cuda_logical_count(int32_t cards, const grt_gpu_options* o) {
  int32_t n = o && o->virtual_count > 0 ? o->virtual_count : 1;
  return cards * n;
}

size_t grt_cuda_memory_limit(const grt_cuda_placement* p, const grt_gpu_options* o,
                             size_t card_total) {
  if (p->limit) return p->limit;
  double f = o && o->memory_fraction > 0 && o->memory_fraction <= 1 ? o->memory_fraction : 1.0;
  size_t bytes = (size_t)((double)card_total * f);
  return bytes & ~(((size_t)1 << 20) - 1);
}

size_t grt_cuda_cap_to_free(size_t limit, size_t free_bytes) {
  size_t headroom = free_bytes / 50;
  if (headroom < ((size_t)256 << 20)) headroom = (size_t)256 << 20;
  size_t usable = free_bytes > headroom ? free_bytes - headroom : 0;
  if (limit > usable) limit = usable;
  return limit & ~(((size_t)1 << 20) - 1);
}

size_t grt_cuda_describe(const grt_cuda_card* card, const grt_cuda_placement* p, size_t limit,
                         char* buf, size_t size) {
  double gib = (double)limit / (double)((size_t)1 << 30);
  int n =
      snprintf(buf, size,
               "device: %d, name: %s, pci bus id: %s, compute capability: %d.%d, memory: %.1f GiB",
               p->physical, card->name, card->pci_bus_id, card->major, card->minor, gib);
  if (n < 0) return 0;
  if (p->virtual_count > 1) {
    size_t at = (size_t)n < size ? (size_t)n : size;
    int m = snprintf(buf + at, size - at, ", shares physical GPU %d (logical %d of %d)",
                     p->physical, p->virtual_index, p->virtual_count);
    if (m > 0) n += m;
  }
  return (size_t)n;
}
