/* grt — the transport interface: how the processes of a cluster reach each
 * other. A transport is a plugin, a shared library named
 * libgrt_transport_*.so (the MPI one: libgrt_transport_mpi.so) found beside
 * libgrt.so or on GRT_PLUGIN_PATH and opened only when a session asks for
 * a cluster, so the library itself never links MPI. It exports
 *
 *   const grt_transport* grt_transport_entry(uint32_t host_api_version);
 *
 * A transport moves bytes only: messages of one (peer, tag) arrive in the
 * order they were sent, as MPI's do. What the bytes mean (tensors, their
 * headers, which tag is which edge) is grt's (runtime/cluster/DESIGN.md).
 * Every call returns 0 on success or writes one line to `why` (of `why_size`
 * bytes) and returns nonzero; none may block longer than its own exchange,
 * so the caller bounds every wait by polling `test`. */
#ifndef GRT_TRANSPORT_H_
#define GRT_TRANSPORT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the table below changes layout or meaning (2: `size` and
 * `iall_reduce`). The loader asks the plugin's entry for its own version and
 * checks `size` too, so a plugin built against another table is refused
 * with one line naming the file, never called through a wrong layout. */
#define GRT_TRANSPORT_API_VERSION 2u

/* A pending send or receive; the transport owns it until `test` says it is
 * done (and frees it then) or `cancel` has run. */
typedef struct grt_transport_request grt_transport_request;

typedef struct grt_transport {
  uint32_t api_version; /* GRT_TRANSPORT_API_VERSION */
  uint32_t size;        /* sizeof(grt_transport) as the plugin was built */
  const char* name;     /* "mpi" */
  /* Joins the processes of the job (once per process); this process's
   * rank in [0, size) and the number of processes. */
  int (*init)(int32_t* rank, int32_t* size, char* why, size_t why_size);
  /* The largest tag `isend`/`irecv` take (at least 32767). */
  int64_t (*max_tag)(void);
  /* Every rank gives `bytes` bytes; `out` (size * bytes) receives rank r's
   * at r * bytes on every rank. Collective: every rank calls it; fails when
   * some rank has not joined within `timeout_ms`. */
  int (*all_gather)(const void* in, size_t bytes, void* out, int64_t timeout_ms, char* why,
                    size_t why_size);
  /* Starts sending `bytes` (at most INT32_MAX) at `data` to `peer` with
   * `tag`; `data` must stay valid until the request is done. */
  int (*isend)(const void* data, size_t bytes, int32_t peer, int64_t tag,
               grt_transport_request** out, char* why, size_t why_size);
  /* Starts receiving a message of exactly `bytes` from `peer` with `tag`. */
  int (*irecv)(void* data, size_t bytes, int32_t peer, int64_t tag, grt_transport_request** out,
               char* why, size_t why_size);
  /* Sets *done to 1 (and frees the request) once it has completed. */
  int (*test)(grt_transport_request* r, int* done, char* why, size_t why_size);
  /* Gives up a pending request and frees it. A receive is cancelled and its
   * buffer may be reused once this returns; a send may still complete in
   * the background, so its buffer must stay valid for the process's life. */
  void (*cancel)(grt_transport_request* r);
  /* Starts an element-wise sum over every rank of `count` elements of
   * `dtype` (a grt_dtype: float32, float64, float16, bfloat16, int32,
   * int64): `out` receives the sum on every rank, the same bits on every
   * rank; `in` may equal `out` (in place). Collective and non-blocking:
   * every rank starts its all-reduces in the same order; completion is
   * polled with `test`. Any count: the transport splits what its own
   * counts cannot hold. A started all-reduce cannot be taken back: `cancel`
   * only forgets it, and its buffers must then stay valid for the
   * process's life. */
  int (*iall_reduce)(const void* in, void* out, int64_t count, int32_t dtype,
                     grt_transport_request** out_request, char* why, size_t why_size);
} grt_transport;

#define GRT_TRANSPORT_ENTRY_SYMBOL "grt_transport_entry"
typedef const grt_transport* (*grt_transport_entry_fn)(uint32_t host_api_version);

#ifdef __cplusplus
}
#endif

#endif /* GRT_TRANSPORT_H_ */
