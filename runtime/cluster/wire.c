/* The wire protocol between tasks (DESIGN.md): per message a fixed header
 * (magic, dtype, rank, byte count, dims, and the bytes themselves when they
 * are few), then the tensor's other bytes in chunks of at most kChunk, all with one tag: the
 * transport keeps messages of one (peer, tag) in order. A control signal is a header with dtype -1.
 */
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "runtime/cluster/cluster.h"
#include "runtime/cluster/cluster_internal.h"

enum { kMagic = 0x67727477 /* "grtw" */ };
/* MPI counts are int: a chunk stays far below 2^31 bytes. */
#define kChunk ((size_t)64 << 20)
/* A tensor of at most this many bytes rides in its header's message: a
 * small value's crossing is one message, not two (bench/cluster/latency). */
enum { kInline = 64 };

typedef struct {
  uint32_t magic;
  int32_t dtype; /* grt_dtype, or -1 for a control signal */
  int32_t rank, pad;
  uint64_t bytes;
  int64_t dims[GRT_MAX_RANK];
  unsigned char small[kInline]; /* the bytes, when at most kInline */
} header;

struct grt_wire_send {
  header h;
  int32_t peer;
  grt_tensor* t;
  int32_t n, done;
  grt_transport_request* req[]; /* header, then chunks */
};

struct grt_wire_recv {
  header h;
  int32_t peer;
  int64_t tag;
  grt_tensor* t;
  int32_t n, done; /* requests: the header's until it lands, then the chunks' */
  grt_transport_request** req;
  grt_transport_request* head;
};

/* The messages of a tensor's bytes after its header. */
static size_t chunks_of(uint64_t bytes) {
  return bytes <= kInline ? 0 : (size_t)((bytes + kChunk - 1) / kChunk);
}

static grt_status* fail(const grt_cluster* c, const char* what, int32_t peer, const char* why) {
  return GRT_ERROR(UNAVAILABLE, "%s %s: %s", what, grt_cluster_task_name(c, peer), why);
}

grt_status* grt_wire_send_start(grt_cluster* c, int32_t peer, int64_t tag, grt_tensor* t,
                                grt_wire_send** out) {
  *out = NULL;
  uint64_t bytes = t ? grt_tensor_byte_size(t) : 0;
  size_t n = 1 + chunks_of(bytes);
  grt_wire_send* s = grt_calloc(1, sizeof *s + n * sizeof(grt_transport_request*));
  if (!s) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory sending to a task");
  s->h.magic = kMagic;
  s->h.dtype = t ? (int32_t)grt_tensor_dtype(t) : -1;
  s->h.rank = t ? grt_tensor_rank(t) : 0;
  s->h.bytes = bytes;
  for (int32_t i = 0; t && i < s->h.rank; i++) s->h.dims[i] = grt_tensor_dim(t, i);
  s->t = t ? grt_tensor_ref(t) : NULL;
  s->peer = peer;
  char why[256] = "";
  const char* data = t ? grt_tensor_data(t) : NULL;
  if (bytes && bytes <= kInline) memcpy(s->h.small, data, bytes);
  for (size_t i = 0; i < n; i++, s->n++) {
    const void* p = i == 0 ? (const void*)&s->h : data + (i - 1) * kChunk;
    size_t len = i == 0 ? sizeof s->h : (i < n - 1 ? kChunk : bytes - (n - 2) * kChunk);
    if (c->t->isend(p, len, peer, tag, &s->req[i], why, sizeof why)) {
      grt_wire_send_abandon(c, s);
      return fail(c, "sending to", peer, why);
    }
  }
  *out = s;
  return NULL;
}

grt_status* grt_wire_send_poll(grt_cluster* c, grt_wire_send* s, bool* done) {
  *done = false;
  char why[256] = "";
  for (; s->done < s->n; s->done++) {
    int ok = 0;
    if (c->t->test(s->req[s->done], &ok, why, sizeof why)) {
      s->req[s->done] = NULL; /* the transport's error ends the request */
      s->done++;
      return GRT_ERROR(UNAVAILABLE, "sending: %s", why);
    }
    if (!ok) return NULL;
    s->req[s->done] = NULL;
  }
  grt_tensor_free(s->t);
  grt_free(s);
  *done = true;
  return NULL;
}

int32_t grt_wire_send_peer(const grt_wire_send* s) { return s->peer; }

void grt_wire_send_abandon(grt_cluster* c, grt_wire_send* s) {
  if (!s) return;
  bool pending = false;
  for (int32_t i = s->done; i < s->n; i++)
    if (s->req[i]) {
      c->t->cancel(s->req[i]);
      pending = true;
    }
  /* The transport may still read the header and the tensor: both are kept
   * (a failed run's leak, bounded by its messages). */
  if (!pending) {
    grt_tensor_free(s->t);
    grt_free(s);
  }
}

grt_status* grt_wire_recv_start(grt_cluster* c, int32_t peer, int64_t tag, grt_wire_recv** out) {
  *out = NULL;
  grt_wire_recv* r = grt_calloc(1, sizeof *r);
  if (!r) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory receiving from a task");
  r->peer = peer;
  r->tag = tag;
  char why[256] = "";
  if (c->t->irecv(&r->h, sizeof r->h, peer, tag, &r->head, why, sizeof why)) {
    grt_free(r);
    return fail(c, "receiving from", peer, why);
  }
  *out = r;
  return NULL;
}

/* The header landed: checked, then the tensor made and its chunks posted. */
static grt_status* start_body(grt_cluster* c, grt_wire_recv* r, grt_allocator* a) {
  const header* h = &r->h;
  if (h->magic != kMagic || h->dtype < -1 || h->dtype >= GRT_NUM_DTYPES || h->rank < 0 ||
      h->rank > GRT_MAX_RANK)
    return GRT_ERROR(DATA_LOSS, "a message from %s is not grt's (magic %08x, dtype %d, rank %d)",
                     grt_cluster_task_name(c, r->peer), (unsigned)h->magic, (int)h->dtype,
                     (int)h->rank);
  if (h->dtype < 0) return NULL;
  grt_shape shape = {.rank = h->rank};
  for (int32_t i = 0; i < h->rank; i++) shape.dims[i] = h->dims[i];
  size_t want = 0;
  if (!grt_tensor_bytes_for((grt_dtype)h->dtype, &shape, &want) || want != h->bytes)
    return GRT_ERROR(DATA_LOSS, "a tensor from %s has %llu bytes for its shape and dtype %s",
                     grt_cluster_task_name(c, r->peer), (unsigned long long)h->bytes,
                     grt_dtype_name((grt_dtype)h->dtype));
  GRT_RETURN_IF_ERROR(grt_tensor_new_packed(a, (grt_dtype)h->dtype, &shape, &r->t));
  if (h->bytes && h->bytes <= kInline) memcpy(grt_tensor_data(r->t), h->small, h->bytes);
  size_t n = chunks_of(h->bytes);
  r->req = grt_calloc(n + 1, sizeof *r->req);
  if (!r->req) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory receiving from a task");
  char why[256] = "";
  char* data = grt_tensor_data(r->t);
  for (size_t i = 0; i < n; i++, r->n++) {
    size_t len = i < n - 1 ? kChunk : h->bytes - (n - 1) * kChunk;
    if (c->t->irecv(data + i * kChunk, len, r->peer, r->tag, &r->req[i], why, sizeof why))
      return fail(c, "receiving from", r->peer, why);
  }
  return NULL;
}

grt_status* grt_wire_recv_poll(grt_cluster* c, grt_wire_recv* r, grt_allocator* a, bool* done,
                               grt_tensor** out) {
  *done = false;
  *out = NULL;
  char why[256] = "";
  int ok = 0;
  if (r->head) {
    if (c->t->test(r->head, &ok, why, sizeof why)) {
      r->head = NULL;
      return fail(c, "receiving from", r->peer, why);
    }
    if (!ok) return NULL;
    r->head = NULL;
    GRT_RETURN_IF_ERROR(start_body(c, r, a));
  }
  for (; r->done < r->n; r->done++) {
    if (c->t->test(r->req[r->done], &ok, why, sizeof why)) {
      r->req[r->done] = NULL;
      return fail(c, "receiving from", r->peer, why);
    }
    if (!ok) return NULL;
    r->req[r->done] = NULL;
  }
  *out = r->t;
  r->t = NULL;
  grt_free(r->req);
  grt_free(r);
  *done = true;
  return NULL;
}

void grt_wire_recv_cancel(grt_cluster* c, grt_wire_recv* r) {
  if (!r) return;
  if (r->head) c->t->cancel(r->head);
  for (int32_t i = r->done; i < r->n; i++)
    if (r->req[i]) c->t->cancel(r->req[i]);
  grt_tensor_free(r->t);
  grt_free(r->req);
  grt_free(r);
}
