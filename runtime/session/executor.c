/* Runs an executable: dataflow over pending counts. A finished node
 * decrements its successors; those that become ready run inline on this
 * thread when cheap, otherwise one stays here and the rest go to the
 * inter-op pool. Values live in per-run slots, freed when their last
 * consumer is done. An error stops further kernels; every node still
 * "finishes" so the run always completes and frees what it made. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cancel.h"
#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "runtime/cluster/liveness.h"
#include "runtime/session/cluster_stage.h"
#include "runtime/session/session_internal.h"

/* A value slot: 16 bytes, as every run clears one per value. */
typedef struct {
  grt_tensor* t;
  grt_var* ref;
} slot;

/* Beside each slot when the executable copies between devices
 * (e->copies): a Recv's slot that received a copy keeps the source tensor
 * and the copy's events until the value is released, as an asynchronous
 * copy may still read the source, and write the value, until its event
 * completes. events: the producer's compute stream, the copy, the
 * destination's compute stream (each NULL where not needed). */
enum { kCopyDone = 1, kCopyEvents = 3 };
typedef struct {
  grt_tensor* src;
  grt_event* events[kCopyEvents];
} slot_copy;

/* A run's part in one all-reduce across tasks (exec_cluster_group): the
 * local members' inputs and outputs (2n, from run_group) once `ready`, the
 * zeros a task without a member adds, the transport's request. */
enum { kClusterWaiting, kClusterStarted, kClusterDone };
typedef struct {
  grt_tensor** io;
  grt_tensor* zeros;
  grt_transport_request* req;
  int32_t ready; /* atomic: the local part is reduced (io) or failed (io NULL) */
  int32_t state; /* the run's thread only */
} cluster_part;

typedef struct run_state {
  grt_session* s;
  const grt_executable* e;
  slot* slots;
  slot_copy* copies;      /* per slot when e->copies, else NULL */
  int32_t* pending;       /* atomic */
  int32_t* uses;          /* atomic */
  int32_t* spill;         /* ready nodes a work stack had no room for, under mu */
  int32_t* group_waiting; /* atomic, per collective group: members not yet ready */
  int32_t n_spill;        /* under mu; read atomically to skip the lock */
  int32_t remaining;      /* atomic: nodes not yet finished */
  int32_t tasks;          /* atomic: pool tasks not yet ended; decremented under mu */
  int64_t step;
  grt_trace* trace;
  grt_status* status;         /* first error, under mu */
  int failed;                 /* atomic flag mirroring status != NULL */
  grt_cancel_token cancel;    /* grt_session_cancel and the deadline */
  const grt_capture_run* cap; /* a recording run (capture.c), or NULL */
  int64_t timeout_ms;         /* for messages */
  /* A cluster session's messages (runtime/cluster): a receive per remote
   * RECV, posted at the start and polled by the run's thread; the sends
   * posted by remote SENDs (under mu), waited for at the end. */
  grt_wire_recv** recvs;
  grt_wire_send** sends;
  int32_t n_sends, cap_sends;
  int64_t started_ms; /* when the run began: the peers' liveness is judged from it */
  /* Its all-reduces across tasks, started in order by the run's thread:
   * next_cluster is the next to start. */
  cluster_part* cluster;
  int32_t next_cluster;
  pthread_mutex_t mu;
  pthread_cond_t done;
} run_state;

static void fail(run_state* r, grt_status* st) {
  pthread_mutex_lock(&r->mu);
  if (!r->status) {
    r->status = st;
    __atomic_store_n(&r->failed, 1, __ATOMIC_RELEASE);
  } else {
    grt_status_free(st);
  }
  pthread_mutex_unlock(&r->mu);
}

/* Drops what a slot holds. A copy still in flight writes the value and
 * reads its source, so both go once the copy is done. (The value's later
 * readers are on its device's compute stream, which waited for the copy;
 * the allocator hands its memory only to work ordered after them.) */
static void clear_copied_slot(const run_state* r, int32_t i);

static inline void clear_slot(const run_state* r, int32_t i) {
  slot* sl = &r->slots[i];
  const slot_copy* c = r->copies ? &r->copies[i] : NULL;
  if (c && (c->src || c->events[0] || c->events[1] || c->events[2])) {
    clear_copied_slot(r, i);
  } else if (sl->t) { /* the usual case: no copy into or out of it */
    grt_tensor_free(sl->t);
    sl->t = NULL;
  }
}

static void clear_copied_slot(const run_state* r, int32_t i) {
  slot* sl = &r->slots[i];
  slot_copy* c = &r->copies[i];
  /* While recording nothing runs, and syncing is not allowed: the memory
   * goes back to the recording's pool, for work queued after the copy. */
  if (c->events[kCopyDone] && !r->cap) grt_status_free(grt_event_sync(c->events[kCopyDone]));
  grt_tensor_free(sl->t);
  sl->t = NULL;
  for (int k = 0; k < kCopyEvents; k++) {
    grt_event_free(c->events[k]);
    c->events[k] = NULL;
  }
  grt_tensor_free(c->src);
  c->src = NULL;
}

static inline void release_slot(run_state* r, int32_t i) {
  /* A slot's sole consumer needs no atomic to know it is the last; a
   * pinned slot (a feed, a constant) is cleared when the run ends. */
  int32_t uses = r->e->slot_uses[i];
  if (uses == 1 || (uses > 1 && __atomic_sub_fetch(&r->uses[i], 1, __ATOMIC_ACQ_REL) == 0))
    clear_slot(r, i);
}

/* The value in a slot, as a new reference: a Ref slot gives the variable's
 * current tensor, or TensorFlow's error when it was never assigned. */
static grt_status* read_slot(run_state* r, int32_t i, grt_tensor** out) {
  slot* sl = &r->slots[i];
  if (!sl->ref) {
    *out = grt_tensor_ref(sl->t);
    return NULL;
  }
  pthread_mutex_lock(&sl->ref->mu);
  *out = grt_tensor_ref(sl->ref->value);
  pthread_mutex_unlock(&sl->ref->mu);
  if (r->cap && *out) r->cap->saw_var(r->cap->ctx, sl->ref, *out, false);
  if (!*out)
    return GRT_ERROR(FAILED_PRECONDITION, "Attempting to use uninitialized value %s",
                     sl->ref->name);
  return NULL;
}

/* The status of a run that stopped at node x: CANCELLED or DEADLINE_EXCEEDED. */
static grt_status* stop_status(const run_state* r, grt_code code, const char* where) {
  if (code == GRT_DEADLINE_EXCEEDED)
    return grt_status_new(code, "deadline exceeded: the run passed its timeout of %lld ms %s",
                          (long long)r->timeout_ms, where);
  return grt_status_new(code, "run cancelled (grt_session_cancel) %s", where);
}

/* A RESOURCE_EXHAUSTED from a device that has a memory limit says the limit
 * and what the device has in use, so the host can tell a cap from a full
 * machine: an allocation the limit refused reads as the limit reached
 * (the bytes asked come from the tensor allocator's message, base/tensor.c,
 * with the allocator's own reason after them when it gave one), any other
 * keeps its own words with the limit added. */
static grt_status* add_memory_context(const grt_session* s, grt_device* dev, grt_status* st) {
  if (grt_status_code(st) != GRT_RESOURCE_EXHAUSTED || s->opts.memory_limit <= 0) return st;
  size_t in_use = 0, peak = 0;
  if (dev->ops->memory_stats) dev->ops->memory_stats(dev, GRT_MEMORY_DEVICE, &in_use, &peak);
  const char* msg = grt_status_message(st);
  const char* at = strstr(msg, "out of memory allocating ");
  unsigned long long asked = 0;
  size_t limit = (size_t)s->opts.memory_limit;
  grt_status* out;
  if (at && sscanf(at, "out of memory allocating %llu bytes", &asked) == 1 &&
      (asked > limit || in_use > limit - asked)) {
    /* The allocator's own reason (grt_allocator_fail_reason), if it gave one. */
    const char* why = strstr(at, " bytes: ");
    out = grt_status_new(
        GRT_RESOURCE_EXHAUSTED,
        "memory limit of %lld bytes on %s reached: asked for %llu bytes, %zu in use%s%s%s",
        (long long)s->opts.memory_limit, dev->name, asked, in_use, why ? " (the allocator: " : "",
        why ? why + 8 : "", why ? ")" : "");
  } else {
    out = grt_status_new(GRT_RESOURCE_EXHAUSTED,
                         "%s (memory_limit %lld bytes on %s, %zu bytes in use)", msg,
                         (long long)s->opts.memory_limit, dev->name, in_use);
  }
  grt_status_free(st);
  return out;
}

/* Where a node on device `dev` takes memory of `kind`: the recording's
 * pool for the recorded device, else the device's allocator. */
static grt_allocator* memory_of(const run_state* r, int32_t dev, grt_memory_kind kind) {
  if (r->cap && dev == r->cap->device) return r->cap->pool[kind];
  return r->s->device[dev]->memory[kind];
}

enum { kMaxStackInputs = 16 };

static grt_status* run_kernel(run_state* r, const exec_node* x) {
  grt_session* s = r->s;
  const grt_node* n = x->rw ? x->rw->node : &s->graph->nodes[x->node];
  grt_device* dev = s->device[x->device];
  const grt_op_kernel* k = x->rw ? x->rw->kernel : s->kernels[x->node];
  int32_t ni = x->n_inputs, no = x->n_outputs;
  const int32_t* in_slots = &r->e->in_slots[x->in_start];
  grt_tensor* in_stack[kMaxStackInputs];
  grt_var* ref_stack[kMaxStackInputs];
  grt_tensor* out_stack[kMaxStackInputs];
  grt_var* oref_stack[kMaxStackInputs];
  grt_tensor** in = ni <= kMaxStackInputs ? in_stack : grt_calloc((size_t)ni, sizeof *in);
  grt_var** refs = ni <= kMaxStackInputs ? ref_stack : grt_calloc((size_t)ni, sizeof *refs);
  grt_tensor** out = no <= kMaxStackInputs ? out_stack : grt_calloc((size_t)no, sizeof *out);
  grt_var** orefs = no <= kMaxStackInputs ? oref_stack : grt_calloc((size_t)no, sizeof *orefs);
  grt_status* st = NULL;
  if (!in || !refs || !out || !orefs) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t got = 0;
  bool writer = false;      /* takes a variable by reference: may write it */
  uint64_t borrowed = 0;    /* bit i: in[i] is borrowed from its slot, not referenced */
  uint64_t forwardable = 0; /* bit i: and this node is its last reader */
  for (; !st && got < ni; got++) {
    int32_t si = in_slots[got];
    const slot* sl = &r->slots[si];
    if (x->ref_inputs && n->sig.input_is_ref[got]) {
      refs[got] = sl->ref;
      in[got] = NULL;
      writer |= refs[got] != NULL;
      if (refs[got]) {
        pthread_mutex_lock(&refs[got]->mu);
        in[got] = grt_tensor_ref(refs[got]->value);
        pthread_mutex_unlock(&refs[got]->mu);
        if (r->cap) r->cap->saw_var(r->cap->ctx, refs[got], in[got], true);
      }
    } else if (!sl->ref && got < 64) {
      /* A plain value: the slot holds it until this node releases its use
       * (in finish), so the kernel can borrow it without a reference. */
      refs[got] = NULL;
      in[got] = sl->t;
      borrowed |= (uint64_t)1 << got;
      /* This node is the value's last reader (its other readers have
       * finished: a use is released only after its node ran; a fetch is
       * released at the end of the run), nothing is being copied into or
       * out of it, and no recording replays into its address: the kernel
       * may write its output over it (op_kernel.h). */
      if (__atomic_load_n(&r->uses[si], __ATOMIC_ACQUIRE) == 1 && !r->cap &&
          (!r->copies || (!r->copies[si].src && !r->copies[si].events[kCopyDone])))
        forwardable |= (uint64_t)1 << got;
    } else {
      /* A plain value read from a variable keeps the variable beside its
       * snapshot (op_kernel.h: versions for derived copies). */
      refs[got] = sl->ref;
      st = read_slot(r, si, &in[got]);
      if (st) in[got] = NULL;
    }
  }
  /* (One output, the usual case, is two stores; a loop here became two
   * memset calls.) */
  if (!out || !orefs) {
    no = 0; /* out of memory (st says so): no outputs to clear or keep */
  } else if (no == 1) {
    out[0] = NULL;
    orefs[0] = NULL;
  } else {
    for (int32_t i = 0; i < no; i++) {
      out[i] = NULL;
      orefs[i] = NULL;
    }
  }
  if (!st) {
    grt_kernel_ctx ctx = {
        .node = n,
        .n_inputs = ni,
        .inputs = in,
        .input_refs = refs,
        .n_outputs = no,
        .outputs = out,
        .output_refs = orefs,
        .allocator = memory_of(r, x->device, GRT_MEMORY_DEVICE),
        .host_allocator = memory_of(r, x->device, GRT_MEMORY_HOST),
        .host_outputs = x->host_outputs,
        .stream = dev->streams[GRT_STREAM_COMPUTE],
        .intra_op = s->intra_op,
        .state = x->rw ? x->rw->state : s->states[x->node],
        .step = r->step,
        .cancel = &r->cancel,
        .forwardable = forwardable,
    };
    /* The thread's current cancel token (grt_parallel_for's) is this run's,
     * set by drain once for all the nodes it runs. */
    /* Every kernel taking a variable by reference may write it. */
    for (int32_t i = 0; writer && i < ni; i++)
      if (n->sig.input_is_ref[i] && refs[i]) grt_var_write_begin(refs[i]);
    st = dev->ops->launch ? dev->ops->launch(dev, ctx.stream, k, &ctx) : k->compute(&ctx);
    for (int32_t i = 0; writer && i < ni; i++)
      if (n->sig.input_is_ref[i] && refs[i]) grt_var_write_end(refs[i]);
    /* A kernel that saw the stop (or whose shards were skipped) returned
     * early with outputs that mean nothing: the run fails here. One that
     * finished before any check saw it has whole outputs, but the next
     * node's check, or the end of the run's, stops the run all the same. */
    grt_code stop = grt_cancel_seen(&r->cancel);
    if (stop != GRT_OK) {
      grt_status_free(st);
      st = stop_status(r, stop, "while it ran");
    }
    if (st) st = add_memory_context(s, dev, st);
  }
  /* The inputs it holds references to (every one borrowed: none). Inputs
   * past the 64th are never borrowed: with all 64 borrowed, the ones after
   * them were still referenced (an AddN of 100 values leaked 36). */
  uint64_t all = got >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << got) - 1;
  if (borrowed != all || got > 64)
    for (int32_t i = 0; i < got; i++)
      if (!(i < 64 && (borrowed >> i) & 1)) grt_tensor_free(in[i]);
  /* An input given back as an output (written over, op_kernel.h, or
   * passed through): this node is its last reader, so its slot's
   * reference goes now. With two references left, the slot's and the
   * output's, both this thread's, no other thread can hold the tensor, and
   * a plain store drops one; otherwise another holder (a Const's value,
   * say) may be counting at the same time: an atomic decrement. */
  for (uint64_t f = st ? 0 : forwardable; f; f &= f - 1) {
    int32_t i = __builtin_ctzll(f);
    for (int32_t j = 0; j < no; j++) {
      if (out[j] != in[i]) continue;
      if (__atomic_load_n(&in[i]->refs, __ATOMIC_ACQUIRE) == 2)
        __atomic_store_n(&in[i]->refs, 1, __ATOMIC_RELAXED);
      else
        __atomic_fetch_sub(&in[i]->refs, 1, __ATOMIC_ACQ_REL);
      r->slots[in_slots[i]].t = NULL;
      break;
    }
  }
  for (int32_t i = 0; i < no; i++) {
    int32_t si = x->out_start + i;
    if (!st && !out[i] && !orefs[i])
      st = GRT_ERROR(INTERNAL, "kernel produced no output %d", (int)i);
    r->slots[si].t = out[i];
    r->slots[si].ref = orefs[i];
    if (r->uses[si] == 0) {
      grt_tensor_free(out[i]);
      r->slots[si].t = NULL;
    }
  }
  if (in != in_stack) grt_free(in);
  if (refs != ref_stack) grt_free(refs);
  if (out != out_stack) grt_free(out);
  if (orefs != oref_stack) grt_free(orefs);
  if (st) st = grt_status_prefix(st, "node '%s' (%s)", n->name, n->op);
  return st;
}

/* The stream a copy runs on, by where each side's tensor lives: the
 * destination's host-to-device stream, the source's device-to-host or
 * device-to-device stream. */
static grt_stream* copy_stream(grt_device* from, grt_device* to, bool src_host, bool dst_host) {
  if (src_host && !dst_host) return to->streams[GRT_STREAM_HOST_TO_DEVICE];
  if (!src_host && dst_host) return from->streams[GRT_STREAM_DEVICE_TO_HOST];
  if (!src_host) return from->streams[GRT_STREAM_DEVICE_TO_DEVICE];
  return to->streams[GRT_STREAM_HOST_TO_DEVICE]; /* host to host: a plain copy */
}

/* Copies t from `from` into a new tensor on `to`, ordered with events: the
 * copy stream waits for the producer's compute stream, and the consumer's
 * compute stream waits for the copy (or, for a host-side consumer, this
 * thread does). Events on synchronous streams are skipped. */
static grt_status* copy_between(const run_state* r, const exec_node* x, grt_device* from,
                                grt_device* to, grt_tensor* t, int32_t si) {
  bool src_host = from->host_addressable || x->src_host;
  bool dst_host = to->host_addressable || x->dst_host;
  grt_allocator* a = to->memory[x->dst_host ? GRT_MEMORY_HOST : GRT_MEMORY_DEVICE];
  /* A recording replays into the same memory: a copy into the recorded
   * device takes the pool's, and a fetch out of it the pool's host memory
   * (pinned on a GPU, which a recorded copy needs). */
  if (r->cap && to->index == r->cap->device)
    a = r->cap->pool[x->dst_host ? GRT_MEMORY_HOST : GRT_MEMORY_DEVICE];
  else if (r->cap && from->index == r->cap->device)
    a = r->cap->pool[GRT_MEMORY_HOST];
  grt_tensor* u = NULL;
  grt_event* ev[kCopyEvents] = {NULL, NULL, NULL};
  /* Device memory apart from host memory is not host-addressable: the
   * tensor's headers stay off it (backend.h). */
  bool addressable = x->dst_host || to->memory[GRT_MEMORY_DEVICE] == to->memory[GRT_MEMORY_HOST];
  grt_status* made = addressable ? grt_tensor_new_packed(a, t->dtype, &t->shape, &u)
                                 : grt_tensor_new_device(a, t->dtype, &t->shape, &u);
  if (made) {
    grt_tensor_free(t); /* ours on every path (a memory limit fails here) */
    return made;
  }
  grt_stream* producer = from->streams[GRT_STREAM_COMPUTE];
  grt_stream* cs = copy_stream(from, to, src_host, dst_host);
  grt_stream* consumer = to->streams[GRT_STREAM_COMPUTE];
  grt_status* st = NULL;
  if (!producer->synchronous && cs != producer) {
    st = grt_device_event_new(from, &ev[0]);
    if (!st) st = grt_stream_record_event(producer, ev[0]);
    if (!st) st = grt_stream_wait_event(cs, ev[0]);
  }
  /* u's memory may have held a tensor that work queued on the destination's
   * compute stream still reads (freed on the host, reused at once): the copy
   * waits for that stream too. */
  if (!st && !consumer->synchronous && cs != consumer) {
    st = grt_device_event_new(to, &ev[2]);
    if (!st) st = grt_stream_record_event(consumer, ev[2]);
    if (!st) st = grt_stream_wait_event(cs, ev[2]);
  }
  if (!st)
    st = grt_stream_memcpy(cs, grt_tensor_data(u), grt_tensor_data(t), grt_tensor_byte_size(t));
  bool host_consumer = consumer->synchronous || x->dst_host;
  if (!st && !cs->synchronous) {
    st = grt_device_event_new(cs->device, &ev[kCopyDone]);
    if (!st) st = grt_stream_record_event(cs, ev[kCopyDone]);
    /* While recording, a copy to the host is joined to the recorded
     * device's compute stream: the recording ends there, and the replay's
     * sync covers it. */
    grt_stream* join =
        host_consumer && r->cap ? r->s->device[r->cap->device]->streams[GRT_STREAM_COMPUTE] : NULL;
    if (!st && join)
      st = grt_stream_wait_event(join, ev[kCopyDone]);
    else if (!st)
      st = host_consumer ? grt_event_sync(ev[kCopyDone])
                         : grt_stream_wait_event(consumer, ev[kCopyDone]);
    if (join) host_consumer = false; /* keep the source until the slot goes */
  }
  if (st || host_consumer) {
    /* The copy is complete (the consumer waited for it), so t can go now;
     * after a failure, first let the copy stream finish what it queued. */
    if (st && !r->cap) grt_status_free(grt_stream_sync(cs));
    for (int k = 0; k < kCopyEvents; k++) grt_event_free(ev[k]);
    grt_tensor_free(t);
    if (st) {
      grt_tensor_free(u);
      return st;
    }
  } else {
    r->copies[si].src = t;
    for (int k = 0; k < kCopyEvents; k++) r->copies[si].events[k] = ev[k];
  }
  r->slots[si].t = u;
  return NULL;
}

/* Send: deliver the tensor to the Recv on the other device. Between devices
 * the host addresses directly (logical CPUs) that is the same buffer;
 * otherwise a copy on the devices' streams. */
static grt_status* run_send(run_state* r, const exec_node* x) {
  if (x->n_inputs == 0) return NULL; /* a control signal */
  const exec_node* recv = &r->e->nodes[x->peer];
  grt_device* from = r->s->device[x->device];
  grt_device* to = r->s->device[recv->device];
  grt_tensor* t = NULL;
  grt_status* st = read_slot(r, r->e->in_slots[x->in_start], &t);
  int32_t si = recv->out_start;
  if (!st && r->uses[si] == 0) {
    grt_tensor_free(t);
  } else if (!st && from->host_addressable && to->host_addressable) {
    r->slots[si].t = t;
  } else if (!st) {
    st = copy_between(r, x, from, to, t, si);
    if (st) st = add_memory_context(r->s, to, st);
  }
  if (st)
    return grt_status_prefix(st, "send of '%s' to %s",
                             x->node >= 0 ? r->s->graph->nodes[x->node].name : "a fed value",
                             to->name);
  return NULL;
}

/* "'node:0' from /job:ps/replica:0/task:0 (crossing 3, step 7)"; a control
 * edge's is "'^node'". */
static void describe_crossing(const run_state* r, const exec_node* x, const char* dir, char* buf,
                              size_t size) {
  const grt_node* n = &r->s->graph->nodes[x->node];
  char port[16] = "";
  if (x->remote_port >= 0) snprintf(port, sizeof port, ":%d", (int)x->remote_port);
  snprintf(buf, size, "'%s%.200s%s' %s %s (crossing %d, step %lld)", x->remote_port < 0 ? "^" : "",
           n->name, port, dir, grt_cluster_task_name(r->s->cluster, x->remote_peer),
           (int)x->crossing, (long long)r->step);
}

/* A remote SEND: the value goes to its task; the run waits for it at the
 * end (wait_sends), holding a reference to the tensor until then. */
static grt_status* run_remote_send(run_state* r, const exec_node* x) {
  grt_tensor* t = NULL;
  if (x->n_inputs) GRT_RETURN_IF_ERROR(read_slot(r, r->e->in_slots[x->in_start], &t));
  int64_t tag;
  grt_wire_send* ws = NULL;
  grt_status* st = grt_cluster_tag(r->s->cluster, x->crossing, r->step, &tag);
  if (!st) st = grt_wire_send_start(r->s->cluster, x->remote_peer, tag, t, &ws);
  grt_tensor_free(t);
  if (!st) {
    pthread_mutex_lock(&r->mu);
    if (r->n_sends == r->cap_sends) {
      int32_t cap = r->cap_sends ? r->cap_sends * 2 : 16;
      grt_wire_send** v = grt_realloc(r->sends, (size_t)cap * sizeof *v);
      if (v) {
        r->sends = v;
        r->cap_sends = cap;
      }
    }
    if (r->n_sends < r->cap_sends)
      r->sends[r->n_sends++] = ws;
    else
      st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    pthread_mutex_unlock(&r->mu);
    if (st) grt_wire_send_abandon(r->s->cluster, ws);
  }
  if (st) {
    char what[400];
    describe_crossing(r, x, "to", what, sizeof what);
    return grt_status_prefix(st, "send of %s", what);
  }
  return NULL;
}

/* A small id per thread for trace tracks: 0 for the first thread that ran
 * a node, then 1, 2, ... */
static int thread_id(void) {
  static int next;
  static _Thread_local int id = -1;
  if (id < 0) id = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
  return id;
}

typedef struct {
  int32_t* v;
  int32_t n, cap;
  int32_t small[64];
} work_stack;

/* A node goes to the run's spill array when a work stack cannot grow. Each
 * node is readied once per run, so the array (n_nodes entries, allocated
 * when the run starts) never fills, and no ready node is ever lost. */
static void spill_push(run_state* r, int32_t x) {
  pthread_mutex_lock(&r->mu);
  r->spill[r->n_spill] = x;
  __atomic_store_n(&r->n_spill, r->n_spill + 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&r->mu);
}

static bool spill_pop(run_state* r, int32_t* x) {
  if (__atomic_load_n(&r->n_spill, __ATOMIC_ACQUIRE) == 0) return false;
  bool got = false;
  pthread_mutex_lock(&r->mu);
  if (r->n_spill > 0) {
    *x = r->spill[r->n_spill - 1];
    __atomic_store_n(&r->n_spill, r->n_spill - 1, __ATOMIC_RELEASE);
    got = true;
  }
  pthread_mutex_unlock(&r->mu);
  return got;
}

/* A full stack doubles, or spills x when it cannot. */
static void push_grow(run_state* r, work_stack* w, int32_t x) {
  int32_t cap = w->cap * 2;
  int32_t* v = grt_malloc((size_t)cap * sizeof *v);
  if (!v) {
    spill_push(r, x);
    return;
  }
  memcpy(v, w->v, (size_t)w->n * sizeof *v);
  if (w->v != w->small) grt_free(w->v);
  w->v = v;
  w->cap = cap;
  w->v[w->n++] = x;
}

static inline void push(run_state* r, work_stack* w, int32_t x) {
  if (w->n == w->cap)
    push_grow(r, w, x);
  else
    w->v[w->n++] = x;
}

typedef struct {
  run_state* r;
  int32_t x;
} pool_task;

static void drain(run_state* r, work_stack* w);

static void pool_entry(void* arg) {
  pool_task t = *(pool_task*)arg;
  grt_free(arg);
  work_stack w = {.v = NULL, .n = 0, .cap = 64};
  w.v = w.small;
  push(t.r, &w, t.x);
  drain(t.r, &w);
  if (w.v != w.small) grt_free(w.v);
  /* The run (on its caller's stack) lasts until every task has ended: this
   * is the task's last touch of it. */
  run_state* r = t.r;
  pthread_mutex_lock(&r->mu);
  if (__atomic_sub_fetch(&r->tasks, 1, __ATOMIC_ACQ_REL) == 0) pthread_cond_broadcast(&r->done);
  pthread_mutex_unlock(&r->mu);
}

static void finish(run_state* r, const exec_node* x, work_stack* w) {
  const grt_executable* e = r->e;
  int32_t kept = -1;
  for (int32_t i = x->succ_start; i < x->succ_end; i++) {
    int32_t y = e->succ[i];
    /* A node with one predecessor is ready now; others count down. */
    if (e->pending[y] != 1 && __atomic_sub_fetch(&r->pending[y], 1, __ATOMIC_ACQ_REL) != 0)
      continue;
    /* Cheap nodes, and one expensive node, stay on this thread; so do
     * further expensive nodes of the kept one's device unless the session
     * runs one device's kernels concurrently (concurrent_kernels): each
     * kernel already splits its work over the intra-op budget, and two at
     * once oversubscribe the cores and pay a pool thread's wake-up
     * (runtime/EXECUTION.md, "One device's kernels in turn"). */
    if (e->nodes[y].run_inline || kept < 0 || !r->s->inter_op ||
        (!r->s->opts.concurrent_kernels && e->nodes[y].device == e->nodes[kept].device)) {
      if (!e->nodes[y].run_inline) kept = y;
      push(r, w, y);
      continue;
    }
    pool_task* t = grt_malloc(sizeof *t);
    if (t) {
      t->r = r;
      t->x = y;
      __atomic_add_fetch(&r->tasks, 1, __ATOMIC_ACQ_REL);
      if (!grt_threadpool_schedule(r->s->inter_op, pool_entry, t)) {
        __atomic_sub_fetch(&r->tasks, 1, __ATOMIC_ACQ_REL);
        grt_free(t);
        t = NULL;
      }
    }
    if (!t) push(r, w, y);
  }
  for (int32_t i = 0; i < x->n_inputs; i++) release_slot(r, e->in_slots[x->in_start + i]);
}

static const char* kind_name(uint8_t kind) {
  static const char* const kNames[] = {"kernel", "send", "recv"};
  return kind < 3 ? kNames[kind] : "?";
}

static void run_node(run_state* r, int32_t xi) {
  const exec_node* x = &r->e->nodes[xi];
  if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE)) return;
  grt_code stop = grt_cancel_check(&r->cancel);
  if (stop != GRT_OK) {
    const grt_node* n = x->node >= 0 ? &r->s->graph->nodes[x->node] : NULL;
    char where[320];
    snprintf(where, sizeof where, "before node '%.200s' (%.64s)", n ? n->name : "(feed)",
             n ? n->op : kind_name(x->kind));
    fail(r, stop_status(r, stop, where));
    return;
  }
  int64_t t0 = r->trace ? grt_trace_now_ns() : 0;
  grt_status* st = NULL;
  if (x->kind == EXEC_KERNEL && !x->preset)
    st = run_kernel(r, x);
  else if (x->kind == EXEC_SEND && x->remote_peer >= 0)
    st = run_remote_send(r, x);
  else if (x->kind == EXEC_SEND)
    st = run_send(r, x);
  if (st) fail(r, st);
  if (r->trace) {
    const grt_node* n = x->node >= 0 ? &r->s->graph->nodes[x->node] : NULL;
    static const char* const kCat[] = {"kernel", "send", "recv"};
    /* A rewrite's replacement keeps its root's name but runs its own op
     * (_FusedMatMul for MatMul + BiasAdd): the trace says what ran. */
    const char* op = x->kind != EXEC_KERNEL ? kCat[x->kind] : x->rw ? x->rw->node->op : n->op;
    grt_trace_add(r->trace, n ? n->name : "(feed)", op, kCat[x->kind], x->device, thread_id(), t0,
                  grt_trace_now_ns() - t0);
  }
}

static void run_group_part(run_state* r, const exec_group* g);

/* A group across tasks whose local part did not run: the run's thread
 * completes its members with no value. */
static void group_not_run(run_state* r, const exec_group* g) {
  if (g->cluster) __atomic_store_n(&r->cluster[g->cluster - 1].ready, 1, __ATOMIC_RELEASE);
}

/* Runs collective group g once every member is ready: reads each member's
 * input, has the backend reduce them into one output per member
 * (collective_groups.c) and puts those in the members' slots. A group
 * across tasks hands its local sum to the run's thread instead, which sums
 * it with the other tasks' (poll_cluster) and then fills the slots. */
static void run_group(run_state* r, const exec_group* g) {
  if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE)) {
    group_not_run(r, g);
    return;
  }
  grt_code stop = grt_cancel_check(&r->cancel);
  if (stop != GRT_OK) {
    char where[320];
    snprintf(where, sizeof where, "before NcclAllReduce group '%.200s'", g->shared_name);
    fail(r, stop_status(r, stop, where));
    group_not_run(r, g);
    return;
  }
  run_group_part(r, g);
}

static void run_group_part(run_state* r, const exec_group* g) {
  const grt_executable* e = r->e;
  int64_t t0 = r->trace ? grt_trace_now_ns() : 0;
  grt_tensor** in = grt_calloc((size_t)g->n * 2, sizeof *in);
  if (!in) {
    fail(r, GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory running NcclAllReduce group '%s'",
                      g->shared_name));
    group_not_run(r, g);
    return;
  }
  grt_tensor** out = in + g->n;
  grt_status* st = NULL;
  for (int32_t k = 0; !st && k < g->n; k++) {
    const exec_node* x = &e->nodes[e->group_members[g->start + k]];
    st = read_slot(r, e->in_slots[x->in_start], &in[k]);
    if (st)
      st = grt_status_prefix(st, "node '%s' (NcclAllReduce)", r->s->graph->nodes[x->node].name);
  }
  if (!st && g->cluster && g->n == 1) {
    /* One member here: the transport sums its input straight into its
     * output (no local reduction, no extra copy). Never in place, even when
     * no other node reads the input (a gradient): Open MPI 4.1's
     * non-blocking MPI_Iallreduce in place ran at a fifth of its speed out
     * of place at 64 MiB on 2 ranks (its in-place path works through
     * buffers of its own; the blocking call is the other way round). */
    st = grt_collective_output_new(r->s->device[e->nodes[e->group_members[g->start]].device], in[0],
                                   &out[0]);
  } else if (!st) {
    const grt_cancel_token* prev = grt_cancel_set_current(&r->cancel);
    st = grt_collective_group_run(r->s, e, g, in, out, &r->cancel);
    grt_cancel_set_current(prev);
    grt_code stop = grt_cancel_seen(&r->cancel);
    if (stop != GRT_OK) {
      grt_status_free(st);
      st = stop_status(r, stop, "while an NcclAllReduce group ran");
    }
  }
  if (g->cluster) {
    /* The run's thread sums it with the other tasks' (poll_messages). */
    cluster_part* c = &r->cluster[g->cluster - 1];
    if (st) {
      for (int32_t k = 0; k < 2 * g->n; k++) grt_tensor_free(in[k]);
      grt_free(in);
      in = NULL;
      fail(r, st);
    }
    c->io = in;
    __atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
    return;
  }
  for (int32_t k = 0; k < g->n; k++) {
    const exec_node* x = &e->nodes[e->group_members[g->start + k]];
    grt_tensor_free(in[k]);
    if (st) {
      grt_tensor_free(out[k]);
      continue;
    }
    if (r->uses[x->out_start] == 0)
      grt_tensor_free(out[k]);
    else
      r->slots[x->out_start].t = out[k];
    if (r->trace) {
      const grt_node* n = &r->s->graph->nodes[x->node];
      grt_trace_add(r->trace, n->name, n->op, "kernel", x->device, thread_id(), t0,
                    grt_trace_now_ns() - t0);
    }
  }
  grt_free(in);
  if (st) fail(r, st);
}

/* A collective member became ready. The last of its group to arrive runs
 * the group and completes every member; the others complete nothing yet
 * (they never block). Returns the nodes completed here. */
static int32_t arrive(run_state* r, const exec_node* x, work_stack* w) {
  int32_t gi = x->collective - 1;
  if (__atomic_sub_fetch(&r->group_waiting[gi], 1, __ATOMIC_ACQ_REL) != 0) return 0;
  const exec_group* g = &r->e->groups[gi];
  run_group(r, g);
  if (g->cluster) return 0; /* completed by the run's thread (poll_messages) */
  for (int32_t k = 0; k < g->n; k++) finish(r, &r->e->nodes[r->e->group_members[g->start + k]], w);
  return g->n;
}

/* Runs this stack's nodes and whatever was spilled. A thread that spills a
 * node is itself in drain (or about to be), and does not leave it while the
 * spill array holds anything it can see. The count of finished nodes goes to
 * `remaining` once per drain, not once per node. */
static void drain(run_state* r, work_stack* w) {
  int32_t done = 0;
  /* Kernels see the run's token as the thread's current one (for
   * grt_parallel_for): set once here, not around every node. */
  const grt_cancel_token* prev = grt_cancel_set_current(&r->cancel);
  for (;;) {
    int32_t x;
    if (w->n > 0)
      x = w->v[--w->n];
    else if (!spill_pop(r, &x))
      break;
    if (r->e->nodes[x].collective) {
      done += arrive(r, &r->e->nodes[x], w);
      continue;
    }
    run_node(r, x);
    finish(r, &r->e->nodes[x], w);
    done++;
  }
  grt_cancel_set_current(prev);
  if (done && __atomic_sub_fetch(&r->remaining, done, __ATOMIC_ACQ_REL) == 0) {
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->done);
    pthread_mutex_unlock(&r->mu);
  }
}

/* ---- messages between the tasks of a cluster ------------------------- */

/* Posts a receive for every remote RECV of the run. */
static grt_status* post_recvs(run_state* r) {
  const grt_executable* e = r->e;
  r->recvs = grt_calloc((size_t)e->n_remote_recvs + 1, sizeof *r->recvs);
  if (!r->recvs) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory starting a run");
  for (int32_t i = 0; i < e->n_remote_recvs; i++) {
    const exec_node* x = &e->nodes[e->remote_recvs[i]];
    int64_t tag;
    GRT_RETURN_IF_ERROR(grt_cluster_tag(r->s->cluster, x->crossing, r->step, &tag));
    GRT_RETURN_IF_ERROR(grt_wire_recv_start(r->s->cluster, x->remote_peer, tag, &r->recvs[i]));
  }
  return NULL;
}

/* Whether a peer waited on is still there (runtime/cluster/liveness.h):
 * asked only when nothing landed for a while, so the fast path pays
 * nothing. */
static grt_status* check_peer(const run_state* r, int32_t peer, int32_t idle) {
  if (idle < 64) return NULL;
  return grt_cluster_peer_check(r->s->cluster, peer, r->started_ms,
                                r->s->opts.cluster_peer_timeout_ms);
}

/* Spins, then yields the core, then sleeps: a message due within tens of
 * microseconds (a small tensor's round trip) is taken without a sleep,
 * which costs 50 us or more of timer slack. */
static void pause_poll(int32_t idle) {
  if (idle < 64) return;
  if (idle < 4096) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, idle < 8192 ? 20000 : 200000};
  nanosleep(&ts, NULL);
}

/* Completes the members of all-reduce `ci` across tasks: with its sum
 * (io's outputs) when `ok`, else with no value. */
static void complete_cluster_part(run_state* r, int32_t ci, bool ok, work_stack* w) {
  const grt_executable* e = r->e;
  cluster_part* c = &r->cluster[ci];
  c->state = kClusterDone;
  int32_t gi = e->cluster_groups[ci].group;
  const exec_group* g = gi >= 0 ? &e->groups[gi] : NULL;
  grt_tensor** out = g && c->io ? c->io + g->n : NULL;
  size_t bytes = out && out[0] ? grt_tensor_byte_size(out[0]) : 0;
  if (ok && out && grt_cluster_stage_needed(r->s, e, g)) {
    /* The sum is in the host half of the staging buffer: every member's
     * output gets it by a copy to its device (no host memcpy below). */
    grt_status* st = grt_cluster_stage_up(r->s, e, g, c->zeros, out);
    if (st) {
      fail(r, grt_status_prefix(st, "step %lld", (long long)r->step));
      ok = false;
    }
    bytes = 0;
  }
  grt_tensor_free(c->zeros);
  c->zeros = NULL;
  if (!g) return;
  for (int32_t k = 0; k < g->n; k++) {
    const exec_node* x = &e->nodes[e->group_members[g->start + k]];
    if (c->io) {
      if (ok && k > 0 && bytes) memcpy(grt_tensor_data(out[k]), grt_tensor_data(out[0]), bytes);
      grt_tensor_free(c->io[k]);
      if (ok && r->uses[x->out_start] > 0)
        r->slots[x->out_start].t = out[k];
      else
        grt_tensor_free(out[k]);
    }
    finish(r, x, w);
  }
  grt_free(c->io);
  c->io = NULL;
  __atomic_sub_fetch(&r->remaining, g->n, __ATOMIC_ACQ_REL);
  drain(r, w);
}

/* Progresses the run's all-reduces across tasks, on the run's thread: each
 * is started once its local part is reduced and every earlier one has
 * started (every rank starts them in one order, so none waits on a rank
 * that waits on it), then polled. After a failure one not started
 * completes with no value, and one started is given up: MPI keeps its
 * buffers, so they are never freed. Returns how many completed. */
static int32_t poll_cluster(run_state* r, work_stack* w, bool* failed, grt_code stop,
                            int32_t idle) {
  const grt_executable* e = r->e;
  int32_t completed = 0;
  for (int32_t ci = 0; ci < e->n_cluster_groups; ci++) {
    cluster_part* c = &r->cluster[ci];
    const exec_cluster_group* cg = &e->cluster_groups[ci];
    if (c->state == kClusterDone) continue;
    bool ready = cg->group < 0 || __atomic_load_n(&c->ready, __ATOMIC_ACQUIRE);
    if (!*failed && stop != GRT_OK) {
      char where[320];
      snprintf(where, sizeof where, "waiting for the all-reduce '%.200s' across tasks (step %lld)",
               cg->shared_name, (long long)r->step);
      fail(r, stop_status(r, stop, where));
      *failed = true;
    }
    if (*failed) {
      if (!ready) continue; /* its members still arrive: they complete then */
      if (c->state == kClusterStarted) {
        grt_cluster_all_reduce_abandon(r->s->cluster, c->req);
        c->io = NULL; /* MPI may still write them: kept for the process's life */
        c->zeros = NULL;
      }
      complete_cluster_part(r, ci, false, w);
      completed++;
      continue;
    }
    grt_status* st = NULL;
    if (c->state == kClusterWaiting) {
      if (ci != r->next_cluster || !ready) continue;
      const void* in;
      void* out;
      int64_t count = cg->count;
      if (cg->group < 0) {
        /* The zeros, then room for the sum: out of place, as below. */
        int64_t dims[1] = {2 * cg->count};
        st = grt_tensor_new(cg->dtype, 1, dims, &c->zeros);
        size_t half = c->zeros ? grt_tensor_byte_size(c->zeros) / 2 : 0;
        if (!st) memset(grt_tensor_data(c->zeros), 0, half);
        in = c->zeros ? grt_tensor_data(c->zeros) : NULL;
        out = c->zeros ? (char*)grt_tensor_data(c->zeros) + half : NULL;
      } else if (c->io) {
        int32_t n = e->groups[cg->group].n;
        /* Out of place (see run_group_part): several members here each
         * hold the local sum, so the second's is the input and the first's
         * the output, which complete_cluster_part then copies to the rest. */
        const grt_tensor* part = c->io[n == 1 ? 0 : n + 1];
        in = grt_tensor_data(part);
        out = grt_tensor_data(c->io[n]);
        count = grt_tensor_num_elements(c->io[n]);
        if (grt_cluster_stage_needed(r->s, e, &e->groups[cg->group])) {
          /* Device memory: the transport sums a host copy (cluster_stage.h). */
          st = grt_cluster_stage_down(r->s, e, &e->groups[cg->group], n == 1 ? 0 : 1, part,
                                      &c->zeros);
          size_t half = c->zeros ? grt_tensor_byte_size(c->zeros) / 2 : 0;
          in = c->zeros ? grt_tensor_data(c->zeros) : NULL;
          out = c->zeros ? (char*)grt_tensor_data(c->zeros) + half : NULL;
        }
        /* Every rank must give the transport the same count. */
        if (cg->count >= 0 && count != cg->count)
          st = GRT_ERROR(INVALID_ARGUMENT,
                         "all-reduce '%s' across tasks: this task's value has %lld elements, "
                         "its shape says %lld",
                         cg->shared_name, (long long)count, (long long)cg->count);
      } else {
        continue; /* its local part failed: the run has failed */
      }
      if (!st)
        st = grt_cluster_all_reduce_start(r->s->cluster, cg->shared_name, in, out, count, cg->dtype,
                                          &c->req);
      if (!st) {
        c->state = kClusterStarted;
        r->next_cluster++;
      }
    }
    bool done = false;
    if (!st && c->state == kClusterStarted)
      st = grt_cluster_all_reduce_poll(r->s->cluster, cg->shared_name, c->req, &done);
    /* Every rank takes part: any peer lost fails the wait (liveness.h). */
    bool lost = false;
    for (int32_t peer = 0;
         !st && !done && c->state == kClusterStarted && peer < grt_cluster_size(r->s->cluster);
         peer++)
      lost = (st = check_peer(r, peer, idle)) != NULL;
    if (lost)
      st = grt_status_prefix(st, "waiting for the all-reduce '%s' across tasks", cg->shared_name);
    if (st) {
      fail(r, grt_status_prefix(st, "step %lld", (long long)r->step));
      *failed = true;
      if (lost) grt_cluster_all_reduce_abandon(r->s->cluster, c->req);
      if (c->state == kClusterStarted) {
        c->io = NULL; /* the transport failed it: MPI may still hold the buffers */
        c->zeros = NULL;
      }
      complete_cluster_part(r, ci, false, w);
      completed++;
    } else if (done) {
      complete_cluster_part(r, ci, true, w);
      completed++;
    }
  }
  return completed;
}

/* The run's thread waits here for its messages, and completes each remote
 * RECV as its message lands (its successors then run as for any node), so
 * no kernel and no pool thread ever blocks on another task; so too its
 * all-reduces across tasks (poll_cluster). A deadline or cancel fails the
 * run naming the first receive still waiting; after any failure every
 * receive left is cancelled and completed with no value. */
static void poll_messages(run_state* r, work_stack* w) {
  const grt_executable* e = r->e;
  /* A receive not posted (the run failed while posting) completes too. */
  uint8_t* finished = grt_calloc((size_t)e->n_remote_recvs + 1, 1);
  if (!finished) {
    fail(r, GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory running a step"));
    for (int32_t i = 0; i < e->n_remote_recvs; i++) {
      grt_wire_recv_cancel(r->s->cluster, r->recvs[i]);
      r->recvs[i] = NULL;
      finish(r, &e->nodes[e->remote_recvs[i]], w);
      __atomic_sub_fetch(&r->remaining, 1, __ATOMIC_ACQ_REL);
      drain(r, w);
    }
    return;
  }
  int32_t left = e->n_remote_recvs, cluster_left = e->n_cluster_groups;
  for (int32_t idle = 0; left > 0 || cluster_left > 0; idle++) {
    bool failed = __atomic_load_n(&r->failed, __ATOMIC_ACQUIRE);
    grt_code stop = failed ? GRT_OK : grt_cancel_check(&r->cancel);
    if (cluster_left > 0) {
      int32_t done = poll_cluster(r, w, &failed, stop, idle);
      cluster_left -= done;
      if (done) idle = 0;
    }
    for (int32_t i = 0; i < e->n_remote_recvs; i++) {
      if (finished[i]) continue;
      const exec_node* x = &e->nodes[e->remote_recvs[i]];
      bool done = false;
      grt_tensor* t = NULL;
      grt_status* st = NULL;
      if (!failed && stop == GRT_OK && r->recvs[i]) {
        st = grt_wire_recv_poll(r->s->cluster, r->recvs[i],
                                r->s->device[x->device]->memory[GRT_MEMORY_DEVICE], &done, &t);
        if (!st && !done) st = check_peer(r, x->remote_peer, idle);
      } else {
        if (stop != GRT_OK && !failed) {
          char what[400], where[480];
          describe_crossing(r, x, "from", what, sizeof what);
          snprintf(where, sizeof where, "waiting for %s", what);
          fail(r, stop_status(r, stop, where));
          failed = true;
        }
        grt_wire_recv_cancel(r->s->cluster, r->recvs[i]);
        done = true;
      }
      if (st) {
        char what[400];
        describe_crossing(r, x, "from", what, sizeof what);
        fail(r, grt_status_prefix(st, "receive of %s", what));
        grt_wire_recv_cancel(r->s->cluster, r->recvs[i]);
        failed = true;
        done = true;
      }
      if (!done) continue;
      r->recvs[i] = NULL;
      finished[i] = 1;
      left--;
      idle = 0;
      if (x->n_outputs && r->uses[x->out_start] > 0)
        r->slots[x->out_start].t = t;
      else
        grt_tensor_free(t);
      finish(r, x, w);
      __atomic_sub_fetch(&r->remaining, 1, __ATOMIC_ACQ_REL);
      drain(r, w);
    }
    if (left > 0 || cluster_left > 0) pause_poll(idle);
  }
  grt_free(finished);
}

/* The run's sends, each until its bytes have left (the peer took them),
 * bounded by the run's deadline; a send given up keeps its tensor. */
static void wait_sends(run_state* r) {
  for (int32_t idle = 0; r->n_sends > 0; idle++) {
    grt_code stop = grt_cancel_check(&r->cancel);
    for (int32_t i = r->n_sends - 1; i >= 0; i--) {
      bool done = false;
      grt_status* st =
          stop == GRT_OK ? grt_wire_send_poll(r->s->cluster, r->sends[i], &done) : NULL;
      if (!st && !done && stop == GRT_OK) {
        int32_t peer = grt_wire_send_peer(r->sends[i]);
        st = check_peer(r, peer, idle);
        if (st)
          st = grt_status_prefix(st, "waiting for a send to %s to be taken",
                                 grt_cluster_task_name(r->s->cluster, peer));
      }
      if (st || stop != GRT_OK) {
        if (st)
          fail(r, st);
        else
          fail(r, stop_status(r, stop, "waiting for a send to another task to be taken"));
        grt_wire_send_abandon(r->s->cluster, r->sends[i]);
        done = true;
      }
      if (done) {
        r->sends[i] = r->sends[--r->n_sends];
        idle = 0;
      }
    }
    if (r->n_sends > 0) pause_poll(idle);
  }
}

/* The session whose step count a run takes its number from and, in a
 * cluster, whose lock runs one at a time: a cluster's fallback
 * (optimize.c) counts with its parent, so the ranks number their steps
 * alike whichever graph serves a run. */
static grt_session* step_owner(grt_session* s) { return s->cluster && s->parent ? s->parent : s; }

static grt_status* execute(grt_session* s, const grt_executable* e, const grt_run_options* opts,
                           grt_tensor* const* feeds, grt_tensor** out_values, grt_trace* trace,
                           const grt_capture_run* cap) {
  size_t n = (size_t)e->n_nodes, ns = (size_t)e->n_slots;
  /* One block for the per-run arrays. */
  size_t ng = (size_t)e->n_groups;
  size_t copies = e->copies ? ns * sizeof(slot_copy) : 0;
  size_t bytes = ns * sizeof(slot) + copies + 2 * n * sizeof(int32_t) + ns * sizeof(int32_t) +
                 ng * sizeof(int32_t);
  char* block = grt_malloc(bytes + 1);
  /* Without its parts of the all-reduces across tasks the run cannot take
   * part in them: the other ranks then wait for this one until their
   * deadline, or until it exits. */
  cluster_part* cluster =
      e->n_cluster_groups ? grt_calloc((size_t)e->n_cluster_groups, sizeof *cluster) : NULL;
  if (!block || (e->n_cluster_groups && !cluster)) {
    grt_free(block);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory starting a run");
  }
  run_state r;
  memset(&r, 0, sizeof r);
  r.cluster = cluster;
  r.s = s;
  r.e = e;
  r.slots = (slot*)block;
  r.copies = e->copies ? (slot_copy*)(block + ns * sizeof(slot)) : NULL;
  r.pending = (int32_t*)(block + ns * sizeof(slot) + copies);
  r.uses = r.pending + n;
  r.spill = r.uses + ns;
  r.group_waiting = r.spill + n;
  for (size_t g = 0; g < ng; g++) r.group_waiting[g] = e->groups[g].n;
  memset(r.slots, 0, ns * sizeof(slot) + copies);
  memcpy(r.pending, e->pending, n * sizeof(int32_t));
  memcpy(r.uses, e->slot_uses, ns * sizeof(int32_t));
  r.remaining = e->n_nodes;
  r.step = __atomic_fetch_add(&step_owner(s)->steps, 1, __ATOMIC_RELAXED);
  r.trace = trace;
  r.cap = cap;
  r.timeout_ms = opts ? opts->timeout_ms : 0;
  if (s->cluster) r.started_ms = grt_cluster_now_ms();
  grt_cancel_token_init(&r.cancel, &s->cancel_epoch, r.timeout_ms);
  pthread_mutex_init(&r.mu, NULL);
  pthread_cond_init(&r.done, NULL);
  for (int32_t i = 0; i < e->n_feeds; i++)
    if (r.uses[e->feed_slots[i]] != 0) r.slots[e->feed_slots[i]].t = grt_tensor_ref(feeds[i]);
  for (int32_t i = 0; i < e->n_presets; i++) {
    const exec_node* x = &e->nodes[e->presets[i]];
    if (r.uses[x->out_start] != 0) r.slots[x->out_start].t = grt_tensor_ref(x->preset);
  }

  work_stack w = {.v = NULL, .n = 0, .cap = 64};
  w.v = w.small;
  if (e->n_remote_recvs) {
    grt_status* pst = post_recvs(&r);
    if (pst) fail(&r, pst);
  }
  for (int32_t i = e->n_initial - 1; i >= 0; i--) push(&r, &w, e->initial[i]);
  drain(&r, &w);
  if (e->n_remote_recvs || e->n_cluster_groups) poll_messages(&r, &w);
  if (w.v != w.small) grt_free(w.v);
  pthread_mutex_lock(&r.mu);
  /* Every node finished, and every pool task gone: a task may still be in
   * drain after its last node, and a finisher may still be signalling. */
  while (__atomic_load_n(&r.remaining, __ATOMIC_ACQUIRE) > 0 ||
         __atomic_load_n(&r.tasks, __ATOMIC_ACQUIRE) > 0)
    pthread_cond_wait(&r.done, &r.mu);
  pthread_mutex_unlock(&r.mu);
  wait_sends(&r);
  grt_free(r.sends);
  grt_free(r.recvs);
  grt_free(r.cluster);

  /* Wait for what asynchronous devices still have queued (TensorFlow's
   * sessions sync their devices at the end of a step too). */
  for (int32_t i = 0; !cap && i < e->n_async; i++) {
    grt_device* d = s->device[e->async_devices[i]];
    for (int k = 0; k < GRT_NUM_STREAM_KINDS; k++) {
      grt_status* sst = grt_stream_sync(d->streams[k]);
      if (sst) fail(&r, sst);
    }
  }
  /* A run past its deadline, or cancelled while it ran, never reports
   * success, even when its last kernel could not be stopped (one oneDNN
   * call) and finished: the caller asked for results by a time, or for
   * none. */
  if (!r.status) {
    grt_code stop = grt_cancel_check(&r.cancel);
    if (stop != GRT_OK) fail(&r, stop_status(&r, stop, "before it returned"));
  }
  grt_status* st = r.status;
  for (int32_t i = 0; i < e->n_fetches; i++) {
    out_values[i] = NULL;
    if (!st && e->fetch_slots[i] >= 0) st = read_slot(&r, e->fetch_slots[i], &out_values[i]);
  }
  for (int32_t i = 0; i < e->n_fetches; i++)
    if (e->fetch_slots[i] >= 0) release_slot(&r, e->fetch_slots[i]);
  /* Slots nobody consumed because the run failed early. */
  for (size_t i = 0; i < ns; i++) clear_slot(&r, (int32_t)i);
  if (st) {
    for (int32_t i = 0; i < e->n_fetches; i++) {
      grt_tensor_free(out_values[i]);
      out_values[i] = NULL;
    }
  }
  pthread_mutex_destroy(&r.mu);
  pthread_cond_destroy(&r.done);
  grt_free(block);
  return st;
}

grt_status* grt_executor_run_ex(grt_session* s, const grt_executable* e,
                                const grt_run_options* opts, grt_tensor* const* feeds,
                                grt_tensor** out_values, grt_trace* trace,
                                const grt_capture_run* cap) {
  /* With graph_capture a recording holds the lock exclusively: this run's
   * work must not land in it. (A recording run itself is under it.) */
  bool shared = s->opts.graph_capture && !cap;
  if (shared) pthread_rwlock_rdlock(&s->capture_lock);
  /* A cluster's ranks must number their steps alike: one run at a time,
   * a fallback's runs included. */
  pthread_mutex_t* one = &step_owner(s)->cluster_mu;
  if (s->cluster) {
    pthread_mutex_lock(one);
    grt_cluster_run_begin(s->cluster);
  }
  grt_status* st = execute(s, e, opts, feeds, out_values, trace, cap);
  if (s->cluster) {
    /* The peers hear at once that this rank left its run, failed or not. */
    grt_cluster_run_end(s->cluster, st != NULL);
    pthread_mutex_unlock(one);
  }
  if (shared) pthread_rwlock_unlock(&s->capture_lock);
  return st;
}

grt_status* grt_executor_run(grt_session* s, const grt_executable* e, const grt_run_options* opts,
                             grt_tensor* const* feeds, grt_tensor** out_values, grt_trace* trace) {
  return grt_executor_run_ex(s, e, opts, feeds, out_values, trace, NULL);
}
